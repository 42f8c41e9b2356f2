"""A new game's opening events from options and a seed (R3, R15)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from . import events as ev
from . import rng
from .city import Cell, generate, validate_explicit
from .options import HAND_SIZE, Layout, Options
from .peoples import CANONICAL_DECK


def new_game(
    options: Options,
    seed: bytes,
    *,
    grid: Mapping[str, Cell] | None = None,
    deck: Sequence[str] | None = None,
    first_player: int | None = None,
) -> list[ev.Event]:
    """The events that set a game up. Whatever is not given explicitly comes from the seed:
    the layout (label ``layout``), the deck (``deck``: a shuffle of the canonical order) and the
    first player (``first-player``). Each seat is dealt 8 cards from the top, in seat order."""
    placement = city_of(options, seed, grid)
    if deck is None:
        order = rng.shuffled(seed, "deck", CANONICAL_DECK)
    else:
        order = tuple(deck)
        if sorted(order) != sorted(CANONICAL_DECK):
            raise ValueError("deck must list each of the 80 card ids exactly once")
    first_player_given = first_player
    if first_player is None:
        first_player = rng.choice(seed, "first-player", options.players)
    elif not 0 <= first_player < options.players:
        raise ValueError("first_player must be a seat number")
    explicit = tuple(
        name
        for name, given in (("grid", grid), ("deck", deck), ("first_player", first_player_given))
        if given is not None
    )
    events: list[ev.Event] = [created(options, seed, placement, explicit), ev.DeckShuffled(order)]
    for seat in range(options.players):
        hand = order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(ev.CardsDealt(seat, hand, len(hand)))
    events.append(ev.TurnStarted(first_player, 1))
    return events


def city_of(options: Options, seed: bytes, grid: Mapping[str, Cell] | None) -> dict[str, Cell]:
    """The city: the given grid for the explicit layout (checked), else drawn from the seed."""
    if options.layout is Layout.EXPLICIT:
        if grid is None:
            raise ValueError("an explicit layout needs a grid")
        validate_explicit(options, grid)
        return dict(grid)
    if grid is not None:
        raise ValueError("a grid is given only with the explicit layout")
    return generate(options, seed)


def created(options: Options, seed: bytes, placement: Mapping[str, Cell], explicit: tuple[str, ...]) -> ev.GameCreated:
    return ev.GameCreated(
        players=options.players,
        edition=options.edition.value,
        expansion=options.expansion,
        layout=options.layout.value,
        grid=tuple(sorted((t, r, c) for t, (r, c) in placement.items())),
        commitment=rng.commitment(seed),
        seed=seed.hex(),
        explicit=explicit,
    )
