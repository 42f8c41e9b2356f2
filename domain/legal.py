"""Every legal command for a seat: one source for the API, the bots and the tests.

Candidates are generated from the state; card choices are deduplicated by kind (cards of the
same colour and value are interchangeable), and contributions are the minimal payments of
``payment.minimal_payments``. ``decide`` accepts each of them (a property test checks it).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache

from . import commands as cmd
from .catalogue import BUILDINGS, COURTYARD
from .decide import DRAGON_MOVE_STEPS, PILLAR_EXTRA, can_offer, can_take_back
from .payment import payments_by_cards
from .peoples import CARDS, DRAGON_OF, Colour
from .state import Game, Phase

ACTION_BUILDINGS = ("main_hall", "hospital", "golden_shrine")


@lru_cache(maxsize=256)
def _one_per_kind(cards: tuple[str, ...]) -> tuple[str, ...]:
    """One representative id per kind, the smallest, in a stable order."""
    seen: dict[tuple[Colour, int], str] = {}
    for cid in sorted(cards):
        seen.setdefault(CARDS[cid].kind, cid)
    return tuple(seen.values())


def legal_commands(state: Game, seat: int, take_back: bool = False) -> Iterator[cmd.Command]:
    """The legal commands for ``seat`` now; nothing when it is not that seat's turn. The
    take-back (P17) is listed only when asked for: it is for people, and a bot that drew it
    at random could walk in circles."""
    turn = state.turn
    if state.finished or turn is None or turn.seat != seat:
        return
    hand = tuple(sorted(state.players[seat].hand))  # sorted once: the caches below key on it
    kinds = _one_per_kind(hand)
    if turn.phase is Phase.MOVEMENT:
        yield from _movement(state, seat, kinds)
    if not turn.relocated:
        yield from _contributions(state, seat, hand)
        yield from _offers(state, seat, kinds)
        yield from _actions(state, seat)
    yield from _end_turns(seat, hand)
    if take_back and can_take_back(state, seat):
        yield cmd.TakeBack(seat)


def _movement(state: Game, seat: int, kinds: tuple[str, ...]) -> Iterator[cmd.Command]:
    assert state.turn is not None
    here = state.players[seat].position
    tiles = state.city.tiles
    if state.turn.steps > 0:
        yield from _moves(seat, state.city.neighbours[here])
    for cid in kinds:
        card = CARDS[cid]
        if card.colour is Colour.GREY and card.value == 1:
            yield from _with_card(cmd.FlyFigure, seat, cid, tuple(to for to in tiles if to != here))
        elif card.colour is Colour.GREY and card.value == 2:
            yield cmd.GainSteps(seat, cid)
        elif card.colour in DRAGON_OF and card.value in (1, 2):
            at = state.dragons[DRAGON_OF[card.colour]]
            if card.value == 1:
                targets: tuple[str | None, ...] = (*tiles, None)
                yield from _with_card(cmd.FlyDragon, seat, cid, tuple(to for to in targets if to != at))
            elif at is not None:
                yield from _with_card(cmd.MoveDragon, seat, cid, state.city.within(at, DRAGON_MOVE_STEPS))


# Commands are frozen values, so the legal set shares them between calls: a turn asks for the
# same destinations and discards again and again, and building each command anew was most of
# what legal_commands spent outside the payment search. The caches stay small: what they keep
# is walked by every full garbage collection (4 of them took 0.11-0.16 s of a 0.8 s bench
# run with caches of 4,096 entries, 0.04-0.06 s with these).


@lru_cache(maxsize=1024)
def _moves(seat: int, destinations: tuple[str, ...]) -> tuple[cmd.Move, ...]:
    return tuple(cmd.Move(seat, to) for to in destinations)


@lru_cache(maxsize=1024)
def _with_card(
    command: type[cmd.FlyFigure | cmd.FlyDragon | cmd.MoveDragon],
    seat: int,
    card: str,
    destinations: tuple[str | None, ...],
) -> tuple[cmd.Command, ...]:
    """A card's power used towards each destination (the card is one of its kind)."""
    return tuple(command(seat, card, to) for to in destinations)  # type: ignore[arg-type]


def _contributions(state: Game, seat: int, hand: tuple[str, ...]) -> Iterator[cmd.Command]:
    """Every minimal payment of every open space where the figure stands (``hand`` sorted)."""
    player = state.players[seat]
    site = state.sites.get(player.position)
    if site is None or site.reconstructed or player.markers <= 0:
        return
    building = site.building
    for index, space in enumerate(BUILDINGS[building].spaces):
        if site.markers[index] is not None:
            continue
        colours = [space.colour] if space.colour is not None else list(Colour)
        for colour in colours:
            named = None if space.colour else colour.value  # a colour is named on any-colour spaces
            yield from cmd.contributions(seat, building, index, named, *payments_by_cards(hand, colour, space.value))


def offers_and_actions(state: Game, seat: int) -> Iterator[cmd.Command]:
    """The legal offerings and building actions alone (bots judge these apart)."""
    assert state.turn is not None
    if state.turn.relocated or state.turn.seat != seat or state.finished:
        return
    yield from _offers(state, seat, _one_per_kind(state.players[seat].hand))
    yield from _actions(state, seat)


def _offers(state: Game, seat: int, kinds: tuple[str, ...]) -> Iterator[cmd.Command]:
    assert state.turn is not None
    player = state.players[seat]
    if player.position != COURTYARD or not can_offer(state, seat):
        return
    if not state.turn.offered:
        yield cmd.Offer(seat)
    elif state.turn.courtyard_offerings:
        space = state.next_obelisk_space()
        assert space is not None
        for cid in kinds:
            card = CARDS[cid]
            if (
                card.colour is Colour.YELLOW
                and card.value in PILLAR_EXTRA
                and player.crystals >= state.options.obelisk[space] + PILLAR_EXTRA[card.value]
            ):
                yield cmd.Offer(seat, cid)


def _actions(state: Game, seat: int) -> Iterator[cmd.Command]:
    assert state.turn is not None
    here = state.players[seat].position
    if state.turn.action_used or here not in ACTION_BUILDINGS:
        return
    if here == "main_hall":
        yield from (cmd.UseAction(seat, to) for to in state.city.tiles if to != here)
    elif here == "hospital" or can_offer(state, seat):
        yield cmd.UseAction(seat)


@lru_cache(maxsize=256)
def _end_turns(seat: int, hand: tuple[str, ...]) -> tuple[cmd.EndTurn, ...]:
    """The Reset without a discard, then with each choice of discards (``hand`` sorted)."""
    return (_end_turn(seat, ()), *(_end_turn(seat, d) for d in _discard_choices(hand)))


@cache
def _end_turn(seat: int, discards: tuple[str, ...]) -> cmd.EndTurn:
    """One shared EndTurn per seat and discards: at most 4 x 3,240 of them."""
    return cmd.EndTurn(seat, discards)


def _discard_choices(hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """1 or 2 cards to discard, one choice per combination of kinds (``hand`` sorted)."""
    by_kind: dict[tuple[Colour, int], list[str]] = {}
    for cid in hand:
        by_kind.setdefault(CARDS[cid].kind, []).append(cid)
    groups = list(by_kind.values())
    choices: list[tuple[str, ...]] = [(g[0],) for g in groups]
    for i, first in enumerate(groups):
        if len(first) > 1:
            choices.append((first[0], first[1]))
        choices += [(first[0], second[0]) for second in groups[i + 1 :]]
    return tuple(choices)
