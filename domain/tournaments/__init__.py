"""Tournaments' rules, pure and deterministic: formats, Swiss pairing, round robin schedules,
points from places (ruling P18), standings and their tie-breaks, no-shows. docs/tournaments.md
says the rules in words; the application stores rounds and results and calls these."""

from .absences import ABSENCES_TO_WITHDRAW, absent_after, count_absences
from .formats import (
    KINDS,
    MAX_ROUND_ROBIN_PLAYERS,
    MAX_SWISS_PLAYERS,
    MAX_SWISS_ROUNDS,
    TABLE_SIZES,
    Format,
    Problem,
    validate,
)
from .layout import table_sizes
from .points import BYE_POINTS, POINTS, table_points
from .records import Entrant, Outcome, Round, Table
from .round_robin import round_robin, round_without
from .standings import Standing, scores, standings
from .swiss import pair_swiss

__all__ = [
    "ABSENCES_TO_WITHDRAW",
    "BYE_POINTS",
    "KINDS",
    "MAX_ROUND_ROBIN_PLAYERS",
    "MAX_SWISS_PLAYERS",
    "MAX_SWISS_ROUNDS",
    "POINTS",
    "TABLE_SIZES",
    "Entrant",
    "Format",
    "Outcome",
    "Problem",
    "Round",
    "Standing",
    "Table",
    "absent_after",
    "count_absences",
    "pair_swiss",
    "round_robin",
    "round_without",
    "scores",
    "standings",
    "table_points",
    "table_sizes",
    "validate",
]
