"""A tournament's format: Swiss or round robin, the size of its tables, its rounds and its field.
Only what pairing needs; the games' own options (edition, clock, rated) are the application's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

KINDS = ("swiss", "round_robin")
TABLE_SIZES = (2, 3, 4)
MAX_SWISS_ROUNDS = 15  #: rounds of one Swiss; each round is an asynchronous game of days
MAX_SWISS_PLAYERS = 256  #: a Swiss's field; pairing one round of 256 takes well under a second
#: a round robin's field by table size, so that its schedule stays within about a dozen rounds
MAX_ROUND_ROBIN_PLAYERS = {2: 12, 3: 15, 4: 16}


@dataclass(frozen=True)
class Format:
    """How a tournament is paired. ``rounds`` is the Swiss's number of rounds; a round robin's
    follow from its field (``round_robin``), so it leaves ``rounds`` out."""

    kind: str
    table_size: int
    min_players: int
    max_players: int
    rounds: int | None = None


class Problem(NamedTuple):
    """One reason a format is refused: the field at fault and why, naming the limit."""

    field: str
    reason: str


def validate(format: Format) -> list[Problem]:
    """Every problem of a format, empty when it can be played."""
    problems: list[Problem] = []
    if format.kind not in KINDS:
        problems.append(Problem("kind", f"must be one of {', '.join(KINDS)}"))
    if format.table_size not in TABLE_SIZES:
        problems.append(Problem("table_size", "must be 2, 3 or 4"))
        return problems
    if format.kind == "swiss":
        if format.rounds is None or format.rounds < 1:
            problems.append(Problem("rounds", "a Swiss needs at least 1 round"))
        elif format.rounds > MAX_SWISS_ROUNDS:
            problems.append(Problem("rounds", f"at most {MAX_SWISS_ROUNDS} rounds"))
    elif format.kind == "round_robin" and format.rounds is not None:
        problems.append(Problem("rounds", "a round robin's rounds follow from its players: leave it out"))
    if format.min_players < format.table_size:
        problems.append(Problem("min_players", f"at least the table size, {format.table_size}"))
    if format.max_players < format.min_players:
        problems.append(Problem("max_players", "at least min_players"))
    cap = MAX_ROUND_ROBIN_PLAYERS[format.table_size] if format.kind == "round_robin" else MAX_SWISS_PLAYERS
    if format.max_players > cap:
        problems.append(Problem("max_players", f"at most {cap} players"))
    return problems
