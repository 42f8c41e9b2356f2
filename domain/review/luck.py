"""What a draw gave: the seat's chance with the cards it drew, minus its mean chance over the
cards it could have drawn.

Judged from the drawing seat's observation: the cards it could have drawn are any of those it
could not see just before the draw (the deck as it stood, and the cards in others' hands, which
it could not tell from the deck). ``samples`` alternative draws of as many cards are dealt from
that pool; each replaces the drawn cards in the seat's hand (or aside), the drawn ones going back
among the unseen.
"""

from __future__ import annotations

import random

from ..bots.observation import observe
from ..bots.value import win_probabilities
from ..state import Game, copy_with
from .replay import Draw


def draw_luck(draw: Draw, rng: random.Random, samples: int) -> float:
    """The value of the cards drawn minus the mean value of ``samples`` alternative draws."""
    seat = draw.seat
    pool = observe(draw.before, seat).unseen
    seen = observe(draw.after, seat)
    actual = win_probabilities(seen, seat)[seat]
    if len(pool) <= len(draw.cards):
        return 0.0  # the seat drew every card it could have: nothing else was possible
    alternatives = [_with_drawn(seen, draw, tuple(rng.sample(pool, len(draw.cards)))) for _ in range(samples)]
    expected = sum(win_probabilities(world, seat)[seat] for world in alternatives) / samples
    return actual - expected


def _with_drawn(seen: Game, draw: Draw, cards: tuple[str, ...]) -> Game:
    """``seen`` (an observation) had the seat drawn ``cards`` instead."""
    instead = dict(zip(draw.cards, cards, strict=True))
    player = seen.players[draw.seat]
    if draw.aside:
        player = copy_with(player, aside=tuple(instead.get(c, c) for c in player.aside))
    else:
        player = copy_with(player, hand=tuple(instead.get(c, c) for c in player.hand))
    taken = set(cards)
    unseen = tuple(sorted([c for c in seen.unseen if c not in taken] + list(draw.cards)))
    players = tuple(player if p.seat == draw.seat else p for p in seen.players)
    return copy_with(seen, players=players, unseen=unseen)
