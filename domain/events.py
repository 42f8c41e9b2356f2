"""Events: facts that happened, in the past tense. ``evolve`` applies them without randomness.

Every field is a primitive or a (nested) tuple of primitives, so events serialize to JSON as
they are. ``views.redact`` hides the secret and private fields (marked below) from those who
may not see them. The ``#:`` comments are served as the fields' descriptions in openapi.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The rules a new game is played by, recorded in its GameCreated: 1 before ruling P16 (the
#: stalemate), 2 since, 3 since P17 limits take-backs a turn. A game keeps its version, and its
#: audit judges it by those rules.
RULES_VERSION = 3


@dataclass(frozen=True, slots=True)
class GameCreated:
    players: int
    edition: str
    expansion: bool
    layout: str
    grid: tuple[tuple[str, int, int], ...]  #: (tile, row, column)
    commitment: str  #: SHA-256 of the seed, public from the start
    seed: str | None  #: secret until the game ends
    explicit: tuple[str, ...] = ()  #: parts given, not drawn: grid, deck, first_player
    rules: int = RULES_VERSION  #: the rules version: 1 before ruling P16 (stalemates), 2 since, 3 (P17's limit)


@dataclass(frozen=True, slots=True)
class DeckShuffled:
    order: tuple[str, ...] | None  #: top card first; secret


@dataclass(frozen=True, slots=True)
class CardsDealt:
    seat: int
    cards: tuple[str, ...] | None  #: private to the seat
    count: int


@dataclass(frozen=True, slots=True)
class PositionSet:
    """A scenario's position, placed after the deal (P15): everything but the hands and the deck."""

    figures: tuple[str, ...]  #: each seat's tile
    crystals: tuple[tuple[int, int | None], ...]  #: (seat, crystals); amounts private
    scales: tuple[int, ...]  #: each seat's golden scales
    markers: tuple[tuple[str, int, int], ...]  #: (building, space, seat)
    obelisk: tuple[int, ...]  #: owners of the filled obelisk spaces, bottom up
    dragons: tuple[tuple[str, str | None], ...]  #: (dragon, tile or None for outside the city)
    discard: tuple[str, ...]  #: the discard pile
    supply: int  #: golden scales left in the supply
    rebuilt: tuple[str, ...] = ()  #: buildings rebuilt already (no markers on them)


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int
    number: int


@dataclass(frozen=True, slots=True)
class FigureMoved:
    seat: int
    to: str


@dataclass(frozen=True, slots=True)
class FigureFlown:
    seat: int
    card: str
    to: str


@dataclass(frozen=True, slots=True)
class StepsGained:
    seat: int
    card: str
    steps: int


@dataclass(frozen=True, slots=True)
class DragonFlown:
    seat: int
    card: str
    dragon: str
    to: str | None


@dataclass(frozen=True, slots=True)
class DragonMoved:
    seat: int
    card: str
    dragon: str
    to: str


@dataclass(frozen=True, slots=True)
class ContributionPhaseBegan:
    seat: int


@dataclass(frozen=True, slots=True)
class ContributionMade:
    seat: int
    building: str
    space: int
    colour: str
    cards: tuple[str, ...]
    hoax: tuple[tuple[str, tuple[str, ...]], ...]  #: (Hoax card, recoloured cards)


@dataclass(frozen=True, slots=True)
class Rewarded:
    """Crystals and scales paid to a seat; scales come from the supply while it lasts (R8)."""

    seat: int
    reason: str  #: dragons, majority, construction, neighbourhood
    source: str  #: the building that pays
    crystals: int | None  #: private to the seat
    scales: int
    cards: int  #: how many cards follow in a CardsDrawn event


@dataclass(frozen=True, slots=True)
class BuildingCompleted:
    building: str
    majority: int
    contributors: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ScalesScored:
    crystals: tuple[tuple[int, int | None], ...]  #: (seat, crystals); amounts private
    returned: tuple[int, ...]  #: seats that returned all their scales
    supply: int  #: the supply afterwards


@dataclass(frozen=True, slots=True)
class OfferingMade:
    seat: int
    space: int
    cost: int
    pillar: str | None
    via: str  #: courtyard or golden_shrine


@dataclass(frozen=True, slots=True)
class ActionUsed:
    seat: int
    building: str
    to: str | None


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    number: int  #: 1 for the first reshuffle of the game
    order: tuple[str, ...] | None  #: the new deck, top first; secret


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    seat: int
    cards: tuple[str, ...] | None  #: private to the seat
    count: int
    aside: bool  #: kept aside until after the Reset draw (R12)


@dataclass(frozen=True, slots=True)
class AsideJoined:
    seat: int
    cards: tuple[str, ...] | None  #: private to the seat
    count: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    seat: int


@dataclass(frozen=True, slots=True)
class TurnTakenBack:
    """The seat took back its turn so far: the state after event ``to`` holds again (P17)."""

    seat: int
    to: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str  #: offerings, rebuilt, draw or stalemate (R11, P16)
    winners: tuple[int, ...]
    seed: str  #: revealed now, so anyone can audit every shuffle (R15)


Event = (
    GameCreated
    | DeckShuffled
    | CardsDealt
    | PositionSet
    | TurnStarted
    | FigureMoved
    | FigureFlown
    | StepsGained
    | DragonFlown
    | DragonMoved
    | ContributionPhaseBegan
    | ContributionMade
    | Rewarded
    | BuildingCompleted
    | ScalesScored
    | OfferingMade
    | ActionUsed
    | CardsDiscarded
    | DeckReshuffled
    | CardsDrawn
    | AsideJoined
    | TurnEnded
    | TurnTakenBack
    | GameEnded
)
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in Event.__args__}
