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
    if options.layout is Layout.EXPLICIT:
        if grid is None:
            raise ValueError("an explicit layout needs a grid")
        validate_explicit(options, grid)
        placement = dict(grid)
    else:
        if grid is not None:
            raise ValueError("a grid is given only with the explicit layout")
        placement = generate(options, seed)
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
    events: list[ev.Event] = [
        ev.GameCreated(
            players=options.players,
            edition=options.edition.value,
            expansion=options.expansion,
            layout=options.layout.value,
            grid=tuple(sorted((t, r, c) for t, (r, c) in placement.items())),
            commitment=rng.commitment(seed),
            seed=seed.hex(),
            explicit=tuple(
                name
                for name, given in (("grid", grid), ("deck", deck), ("first_player", first_player_given))
                if given is not None
            ),
        ),
        ev.DeckShuffled(order),
    ]
    for seat in range(options.players):
        hand = order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(ev.CardsDealt(seat, hand, len(hand)))
    events.append(ev.TurnStarted(first_player, 1))
    return events
