"""The standings: points, then Buchholz, then Sonneborn–Berger; rating and name only order the list.

Buchholz is the strength of the opposition: for each table played, the sum of the tablemates'
final scores (a short table's sum scaled to a full table's, as its points are); a bye counts as
a full table of tablemates whose score is the player's own, so that it neither helps nor hurts.
Sonneborn–Berger is whom you beat: each tablemate's final score times what you earned against
them (1 ahead, ½ shared, 0 behind, as points are counted); a bye beat nobody and adds nothing.
Players equal on all three share a place."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .points import BYE_POINTS, table_points, weights
from .records import Entrant, Outcome, Round


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    player: str
    points: float
    buchholz: float
    sonneborn_berger: float
    place: int  #: 1 the best; shared by players equal on points, Buchholz and Sonneborn–Berger
    games: int  #: finished tables played (byes are not games)
    byes: int
    absences: int  #: rounds whose game the player did not play (``absences.count_absences``)
    withdrawn: bool


def finished(rounds: Sequence[Round], outcomes: Iterable[Outcome]) -> list[Outcome]:
    """The outcomes, each checked to be a table of the rounds (no table finished twice)."""
    open_tables = Counter(frozenset(table.players) for r in rounds for table in r.tables)
    checked = []
    for outcome in outcomes:
        key = frozenset(outcome.players)
        if open_tables[key] == 0:
            raise ValueError(f"no unfinished table of the rounds seats {sorted(key)}")
        open_tables[key] -= 1
        checked.append(outcome)
    return checked


def scores(
    entrants: Iterable[Entrant], rounds: Sequence[Round], outcomes: Iterable[Outcome], table_size: int
) -> dict[str, float]:
    """Each entrant's points so far: their finished tables and their byes."""
    total = {e.player: 0.0 for e in entrants}
    strangers = {p for r in rounds for p in r.players()} - total.keys()
    if strangers:
        raise ValueError(f"the rounds seat players who are not entrants: {sorted(strangers)}")
    for outcome in finished(rounds, outcomes):
        for player, points in table_points(outcome, table_size).items():
            total[player] += points
    for r in rounds:
        for player in r.byes:
            total[player] += BYE_POINTS[table_size]
    return total


def standings(
    entrants: Sequence[Entrant],
    rounds: Sequence[Round],
    outcomes: Sequence[Outcome],
    withdrawn: Collection[str],
    *,
    table_size: int,
    absences: Mapping[str, int] | None = None,
) -> list[Standing]:
    """The standings after the finished tables, best first; a stable, total order. ``absences``
    is each player's rounds missed (``absences.count_absences``), only shown."""
    played = finished(rounds, outcomes)
    total = scores(entrants, rounds, played, table_size)
    buchholz = dict.fromkeys(total, 0.0)
    berger = dict.fromkeys(total, 0.0)
    games: Counter[str] = Counter()
    byes: Counter[str] = Counter(p for r in rounds for p in r.byes)
    for outcome in played:
        scale = (table_size - 1) / (len(outcome.players) - 1)
        for (player, other), earned in weights(outcome, table_size).items():
            buchholz[player] += scale * total[other]
            berger[player] += earned * total[other]
        games.update(outcome.players)
    for player, count in byes.items():
        buchholz[player] += count * (table_size - 1) * total[player]
    rating = {e.player: e.rating for e in entrants}

    def merit(player: str) -> tuple[float, float, float]:
        return (total[player], buchholz[player], berger[player])

    order = sorted(total, key=lambda p: (*(-x for x in merit(p)), -rating[p], p))
    lines = []
    for player in order:
        better = sum(merit(other) > merit(player) for other in order)
        lines.append(
            Standing(
                player=player,
                points=total[player],
                buchholz=buchholz[player],
                sonneborn_berger=berger[player],
                place=1 + better,
                games=games[player],
                byes=byes[player],
                absences=(absences or {}).get(player, 0),
                withdrawn=player in withdrawn,
            )
        )
    return lines
