"""Points from a finished table's places (ruling P18), and what a bye is worth.

At a full table a player scores one point for each tablemate they finish ahead of and half a
point for each they share a place with: 1/0 at tables of 2 (½ each for a shared place), 2/1/0 at
tables of 3, 3/2/1/0 at tables of 4. A short table (one seat fewer, where the field does not
divide) is scaled to the same range, so its winner also scores ``table_size - 1`` and its last
0. Every score and tie-break is then a sum of binary fractions (halves, quarters, eighths …),
which a float holds exactly, so equal scores compare equal."""

from __future__ import annotations

from .records import Outcome

#: points by table size and place (1st, 2nd, …) at a full table; shared places share the average
POINTS: dict[int, tuple[float, ...]] = {2: (1.0, 0.0), 3: (2.0, 1.0, 0.0), 4: (3.0, 2.0, 1.0, 0.0)}

#: a bye is worth a win at a full table, as FIDE's Swiss rules give a pairing-allocated bye: the
#: player did nothing wrong and lost a round's game; byes go to the lowest-ranked, once each
BYE_POINTS: dict[int, float] = {size: places[0] for size, places in POINTS.items()}


def weights(outcome: Outcome, table_size: int) -> dict[tuple[str, str], float]:
    """What each player earned against each tablemate: ``(player, tablemate)`` to 1 for finishing
    ahead, ½ for a shared place, 0 behind, scaled to a full table. A player's points are the sum
    over their tablemates, and Sonneborn–Berger weighs the tablemates' scores by the same."""
    scale = (table_size - 1) / (len(outcome.players) - 1)
    earned: dict[tuple[str, str], float] = {}
    for player, place in zip(outcome.players, outcome.places):
        for other, other_place in zip(outcome.players, outcome.places):
            if other != player:
                earned[player, other] = scale * (1.0 if place < other_place else 0.5 if place == other_place else 0.0)
    return earned


def table_points(outcome: Outcome, table_size: int) -> dict[str, float]:
    """Each player's points for a finished table, in a tournament at tables of ``table_size``."""
    points = dict.fromkeys(outcome.players, 0.0)
    for (player, _), earned in weights(outcome, table_size).items():
        points[player] += earned
    return points
