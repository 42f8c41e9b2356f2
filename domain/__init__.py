"""Blue Moon City's rules: commands decide events, events fold into state. No I/O here."""

from .commands import COMMAND_NAMES, COMMAND_TYPES, Command
from .decide import decide
from .errors import CommandError, IllegalCommand, InvalidCommand
from .events import EVENT_TYPES, Event
from .evolve import evolve, fold
from .legal import legal_commands
from .options import Edition, Layout, Options
from .setup import new_game
from .state import Game, Phase
from .views import redact, view

__all__ = [
    "COMMAND_NAMES",
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "Command",
    "CommandError",
    "Edition",
    "Event",
    "Game",
    "IllegalCommand",
    "InvalidCommand",
    "Layout",
    "Options",
    "Phase",
    "decide",
    "evolve",
    "fold",
    "legal_commands",
    "new_game",
    "redact",
    "view",
]
