"""Commands: what a player asks for. ``decide`` validates each against the state."""

from __future__ import annotations

import typing
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, fields


@dataclass(frozen=True, slots=True)
class Move:
    """Take one orthogonal step to a neighbouring tile (R5)."""

    seat: int
    to: str


@dataclass(frozen=True, slots=True)
class FlyFigure:
    """Flit 1: put your figure on any tile."""

    seat: int
    card: str
    to: str


@dataclass(frozen=True, slots=True)
class GainSteps:
    """Flit 2: two more steps this movement phase."""

    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class FlyDragon:
    """Vulca/Terrah/Aqua 1: put that people's dragon on any tile, or outside (``to`` None)."""

    seat: int
    card: str
    to: str | None


@dataclass(frozen=True, slots=True)
class MoveDragon:
    """Vulca/Terrah/Aqua 2: move that dragon, already in the city, up to 3 steps."""

    seat: int
    card: str
    to: str


@dataclass(frozen=True, slots=True)
class Recolour:
    """A Hoax card discarded to make ``targets`` count as the contribution's colour."""

    card: str
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Contribute:
    """Pay one open space of the building the figure stands on and place a marker (R6).

    ``cards`` count for value; ``hoax`` names the Hoax cards played and what each recolours;
    ``colour`` is required on any-colour spaces and otherwise defaults to the space's colour.
    """

    seat: int
    building: str
    space: int
    cards: tuple[str, ...]
    colour: str | None = None
    hoax: tuple[Recolour, ...] = ()


#: The slots' setters, in field order: ``contributions`` sets them directly.
_CONTRIBUTE_SLOTS = tuple(getattr(Contribute, f.name).__set__ for f in fields(Contribute))


def contributions(
    seat: int,
    building: str,
    space: int,
    colour: str | None,
    cards: Iterable[tuple[str, ...]],
    plans: Iterable[Iterable[tuple[Recolour, ...]]],
) -> list[Contribute]:
    """``Contribute(seat, building, space, paid, colour, hoax)`` for each ``paid`` of
    ``cards`` with each ``hoax`` of its ``plans``, in 0.6x the time: legal_commands makes
    thousands in one call, and a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``. This sets the slots directly, which is all that ``__init__``
    does (no default factory, no post-init)."""
    set_seat, set_building, set_space, set_cards, set_colour, set_hoax = _CONTRIBUTE_SLOTS
    new = object.__new__
    made = []
    for paid, hoaxes in zip(cards, plans):
        for hoax in hoaxes:
            command = new(Contribute)
            set_seat(command, seat)
            set_building(command, building)
            set_space(command, space)
            set_cards(command, paid)
            set_colour(command, colour)
            set_hoax(command, hoax)
            made.append(command)
    return made


@dataclass(frozen=True, slots=True)
class Offer:
    """Offer crystals at the obelisk (R9); every offering after the first needs a Pillar."""

    seat: int
    pillar: str | None = None


@dataclass(frozen=True, slots=True)
class UseAction:
    """Use the expansion building's action (R13); ``to`` is the Main Hall's destination."""

    seat: int
    to: str | None = None


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The Reset: discard 0-2 cards, draw that many plus 2, pass the turn (R10)."""

    seat: int
    discards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TakeBack:
    """Take back every step and contribution of this turn so far (P17)."""

    seat: int


Command = Move | FlyFigure | GainSteps | FlyDragon | MoveDragon | Contribute | Offer | UseAction | EndTurn | TakeBack
COMMAND_TYPES: dict[str, type] = {
    "move": Move,
    "fly_figure": FlyFigure,
    "gain_steps": GainSteps,
    "fly_dragon": FlyDragon,
    "move_dragon": MoveDragon,
    "contribute": Contribute,
    "offer": Offer,
    "use_action": UseAction,
    "end_turn": EndTurn,
    "take_back": TakeBack,
}
COMMAND_NAMES: dict[type, str] = {v: k for k, v in COMMAND_TYPES.items()}


def command_document(command: Command) -> dict[str, typing.Any]:
    """A command as clients send it: ``{"type": "<name>", ...fields}`` without the seat (the
    seat comes from the token). The API writes commands so, and a game's review names its
    played and better commands so."""
    doc: dict[str, typing.Any] = {"type": COMMAND_NAMES[type(command)]}
    for f in fields(command):
        if f.name == "seat":
            continue
        value = getattr(command, f.name)
        if f.name == "hoax":
            value = [{"card": h.card, "targets": list(h.targets)} for h in value]
        elif isinstance(value, tuple):
            value = list(value)
        doc[f.name] = value
    return doc


@dataclass(frozen=True, slots=True)
class FieldRule:
    """A command's field as a client sends it (the seat comes from the token)."""

    required: bool  #: it has no default: a command without it is malformed
    nullable: bool  #: None (JSON null) is one of its values, e.g. fly_dragon's outside of the city


def _field_rules(command: type) -> dict[str, FieldRule]:
    hints = typing.get_type_hints(command)
    return {
        f.name: FieldRule(
            required=f.default is MISSING and f.default_factory is MISSING,
            nullable=type(None) in typing.get_args(hints[f.name]),
        )
        for f in fields(command)
        if f.name != "seat"
    }


#: Each command type's fields, read from the commands themselves: the one source the API's
#: request schema and its contract take them from, so that every command ``legal_commands``
#: lists, written as JSON, is one the API takes back (a UseAction without a destination is
#: ``"to": null``).
COMMAND_FIELDS: dict[str, dict[str, FieldRule]] = {name: _field_rules(cls) for name, cls in COMMAND_TYPES.items()}
