"""Scenario games: a game that starts from a given position instead of the opening (P15).

A client developer describes the situation they need (hands, crystals, scales, markers,
figures, dragons, obelisk, whose turn) and plays on from there under the ordinary rules. The
opening events are those of a new game, with the given hands dealt from the top of the deck and
a ``PositionSet`` event placing everything else. What was not given is still drawn from the
seed: the layout (unless explicit) and the order of the rest of the deck. ``GameCreated`` marks
such a game ``scenario``, so views, the index and the audit can say it was not drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import events as ev
from . import rng
from .catalogue import BUILDINGS, COURTYARD
from .city import Cell
from .options import MARKERS_PER_PLAYER, Options
from .peoples import CANONICAL_DECK, Dragon
from .setup import city_of, created


@dataclass(frozen=True, slots=True)
class Position:
    """Where everything stands when the scenario begins. Seats are indexed 0..players-1."""

    hands: tuple[tuple[str, ...], ...]
    figures: tuple[str, ...]
    crystals: tuple[int, ...]
    scales: tuple[int, ...]
    turn: int = 0  #: the seat whose turn begins
    markers: tuple[tuple[str, int, int], ...] = ()  #: (building, space, seat)
    obelisk: tuple[int, ...] = ()  #: owners of the obelisk spaces, bottom up
    dragons: tuple[tuple[str, str | None], ...] = ()  #: (dragon, tile or None for outside)
    discard: tuple[str, ...] = ()
    scale_supply: int | None = None  #: None: the starting supply less the scales held
    rebuilt: tuple[str, ...] = ()  #: buildings already rebuilt, their markers back with their owners


def scenario_game(
    options: Options, seed: bytes, position: Position, grid: Mapping[str, Cell] | None = None
) -> list[ev.Event]:
    """The opening events of a scenario; ``ValueError`` names what is impossible."""
    placement = city_of(options, seed, grid)
    supply = _check(options, position, placement)
    given = [card for hand in position.hands for card in hand]
    rest = [card for card in CANONICAL_DECK if card not in set(given) | set(position.discard)]
    order = tuple(given) + rng.shuffled(seed, "deck", tuple(rest))
    explicit = ("scenario", "deck", "first_player", *(("grid",) if grid is not None else ()))
    events: list[ev.Event] = [created(options, seed, placement, explicit), ev.DeckShuffled(order)]
    events += [ev.CardsDealt(seat, hand, len(hand)) for seat, hand in enumerate(position.hands)]
    events.append(
        ev.PositionSet(
            figures=position.figures,
            crystals=tuple(enumerate(position.crystals)),
            scales=position.scales,
            markers=tuple(sorted(position.markers)),
            obelisk=position.obelisk,
            dragons=tuple(sorted((d, t) for d, t in _dragons(position).items())),
            discard=position.discard,
            supply=supply,
            rebuilt=tuple(sorted(position.rebuilt)),
        )
    )
    events.append(ev.TurnStarted(position.turn, 1))
    return events


def position_of(opening: Sequence[ev.Event]) -> Position:
    """The position a scenario's opening events were made from (the audit makes them again)."""
    hands = {e.seat: e.cards or () for e in opening if isinstance(e, ev.CardsDealt)}
    placed = next(e for e in opening if isinstance(e, ev.PositionSet))
    turn = next(e for e in opening if isinstance(e, ev.TurnStarted))
    return Position(
        hands=tuple(hands[s] for s in sorted(hands)),
        figures=placed.figures,
        crystals=tuple(c or 0 for _, c in placed.crystals),
        scales=placed.scales,
        turn=turn.seat,
        markers=placed.markers,
        obelisk=placed.obelisk,
        dragons=placed.dragons,
        discard=placed.discard,
        scale_supply=placed.supply,
        rebuilt=placed.rebuilt,
    )


def _dragons(position: Position) -> dict[str, str | None]:
    placed: dict[str, str | None] = dict.fromkeys(d.value for d in Dragon)
    placed.update(dict(position.dragons))
    return placed


def _check(options: Options, p: Position, placement: Mapping[str, Cell]) -> int:
    """Refuse an impossible position; returns the scale supply."""
    n = options.players
    for name, values in (("hands", p.hands), ("figures", p.figures), ("crystals", p.crystals), ("scales", p.scales)):
        if len(values) != n:
            raise ValueError(f"{name} must have one entry per seat ({n})")
    cards = [card for hand in p.hands for card in hand] + list(p.discard)
    unknown = sorted(set(cards) - set(CANONICAL_DECK))
    if unknown:
        raise ValueError(f"unknown cards: {', '.join(unknown)}")
    if len(cards) != len(set(cards)):
        raise ValueError("a card may be in one hand or the discard pile, once")
    if not 0 <= p.turn < n:
        raise ValueError(f"turn must be a seat number below {n}")
    for tile in p.figures:
        if tile not in placement:
            raise ValueError(f"a figure stands on {tile}, which is not in this city")
    if min(p.crystals) < 0 or min(p.scales) < 0:
        raise ValueError("crystals and scales cannot be negative")
    spaces: set[tuple[str, int]] = set()
    used = [0] * n
    for building, space, seat in p.markers:
        if building not in placement or building == COURTYARD:
            raise ValueError(f"a marker is on {building}, which is not a building of this city")
        if not 0 <= space < len(BUILDINGS[building].spaces):
            raise ValueError(f"{building} has no space {space}")
        if not 0 <= seat < n:
            raise ValueError(f"a marker belongs to seat {seat}, which does not exist")
        if (building, space) in spaces:
            raise ValueError(f"two markers on {building} space {space}")
        spaces.add((building, space))
        used[seat] += 1
    for building in p.rebuilt:
        if building not in placement or building == COURTYARD:
            raise ValueError(f"{building} is rebuilt, but it is not a building of this city")
        if any(b == building for b, _, _ in p.markers):
            raise ValueError(f"{building} is rebuilt: its markers went back to their owners, so none is on it")
    if len(set(p.rebuilt)) != len(p.rebuilt):
        raise ValueError("a building is named twice among the rebuilt")
    if len(p.obelisk) >= len(options.obelisk):
        raise ValueError("the obelisk would be full: the game would be over")
    for seat in p.obelisk:
        if not 0 <= seat < n:
            raise ValueError(f"an obelisk space belongs to seat {seat}, which does not exist")
        used[seat] += 1
    if max(used) > MARKERS_PER_PLAYER:
        raise ValueError(f"a seat has only {MARKERS_PER_PLAYER} markers")
    for dragon, where in p.dragons:
        if dragon not in {d.value for d in Dragon}:
            raise ValueError(f"no dragon {dragon}")
        if where is not None and where not in placement:
            raise ValueError(f"the {dragon} dragon is on {where}, which is not in this city")
    supply = options.scale_supply - sum(p.scales) if p.scale_supply is None else p.scale_supply
    if supply < 0:
        raise ValueError("the players hold more scales than the supply has; give scale_supply")
    return supply
