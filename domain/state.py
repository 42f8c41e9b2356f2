"""The state of a game: frozen values that ``evolve`` replaces, never mutates.

``Player``, ``Turn`` and ``Game`` keep their fields in a ``__dict__`` rather than slots:
``copy_with`` then copies one in a single dict copy, and a fold copies a Game about twice per
event (slots took a getattr and a setattr per field, half the time of a fold).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .city import City
from .events import RULES_VERSION
from .options import Options
from .peoples import Dragon


class Phase(str, Enum):
    """Where the current turn stands; the Reset is the single EndTurn command (R4)."""

    MOVEMENT = "movement"  #: steps and movement powers
    CONTRIBUTION = "contribution"  #: contributions, offerings, building actions


class EndReason(str, Enum):
    """How a game ended (R11)."""

    OFFERINGS = "offerings"  #: a player made the required number of offerings
    REBUILT = "rebuilt"  #: every building rebuilt and nobody can offer any more
    DRAW = "draw"  #: every player's markers are all on the board
    STALEMATE = "stalemate"  #: ten rounds passed with nobody contributing or offering (P16)


@dataclass(frozen=True)
class Player:
    seat: int
    position: str
    hand: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()  #: cards won on one's own turn, joining after the draw (R12)
    crystals: int = 0
    scales: int = 0
    markers: int = 10  #: markers in supply, not on the board
    offerings: int = 0
    #: Crystals as every seat can count them from public events (R16 hides the total, not its
    #: parts): catalogue rewards and scale awards, less offerings' costs. A given position's
    #: crystals (P15) are private, so a scenario's count starts at 0 and may read low.
    counted: int = 0


@dataclass(frozen=True, slots=True)
class Site:
    """A building tile in the city: its markers per space, and whether it is rebuilt."""

    building: str
    markers: tuple[int | None, ...]
    reconstructed: bool = False


@dataclass(frozen=True)
class Turn:
    seat: int
    number: int = 1
    phase: Phase = Phase.MOVEMENT
    steps: int = 2  #: orthogonal steps left this movement phase
    scales_given: bool = False  #: dragons pay on the first contribution only (R6)
    courtyard_offerings: int = 0  #: Pillars need an offering at the Courtyard first (R9)
    offered: bool = False  #: one offering per turn without Pillars
    action_used: bool = False  #: expansion action, once per turn (R13)
    relocated: bool = False  #: moved by the Main Hall: nothing more this turn
    taken_back: int = 0  #: take-backs this turn so far (P17 allows TAKE_BACKS_PER_TURN)


@dataclass(frozen=True, slots=True)
class Result:
    reason: EndReason
    winners: tuple[int, ...]


@dataclass(frozen=True)
class Game:
    """Everything about one game. ``seed`` and ``deck`` order are secret (R16)."""

    options: Options
    city: City
    seed: str
    commitment: str
    sites: Mapping[str, Site]
    players: tuple[Player, ...]
    dragons: Mapping[Dragon, str | None]
    obelisk: tuple[int | None, ...]
    scale_supply: int
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    reshuffles: int = 0
    turn: Turn | None = None
    result: Result | None = None
    version: int = 0
    scenario: bool = False  #: started from a given position, not the drawn opening (P15)
    given: tuple[str, ...] = ()  #: the setup's parts given, not drawn (GameCreated.explicit, P9)
    quiet_turns: int = 0  #: turns ended in a row without a contribution or an offering (P16)
    rules: int = RULES_VERSION  #: the rules version the game was created under (GameCreated.rules)
    #: Only in a bot's observation: the cards it cannot place (others' hands, the deck).
    unseen: tuple[str, ...] = ()
    #: The state this turn began with, while a take-back may still return to it (P17); None
    #: once something hidden was revealed or somebody gained, and between turns.
    turn_start: Game | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None

    def next_obelisk_space(self) -> int | None:
        """Index of the lowest open obelisk space, None when it is full."""
        for i, owner in enumerate(self.obelisk):
            if owner is None:
                return i
        return None


_set_dict = object.__setattr__


def copy_with(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` without re-running ``__init__``: evolve's hot path.

    Events are trusted, so nothing needs validating; copying the fields directly makes a fold
    several times faster. The copy is a new frozen object; the original is untouched. An
    object with a ``__dict__`` gets a new dict (one copy); a slotted one is copied per field.
    """
    cls = type(obj)
    new = object.__new__(cls)
    fields = getattr(obj, "__dict__", None)
    if fields is not None:
        _set_dict(new, "__dict__", {**fields, **changes} if changes else fields.copy())
    else:
        for name in cls.__slots__:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
