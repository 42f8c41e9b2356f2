"""What a draw gave: the seat's chance with the cards it drew, minus its mean chance over the
cards it could have drawn.

The cards it could have drawn are those of the deck as it stood just before the draw: the game
is over and its seed revealed, so the deck's contents are known, and only their order was luck.
(The seat's unseen pool would be the wrong yardstick: it holds others' hands too, which are
better than the deck, for players keep good cards and discard weak ones, so every draw would
look unlucky.) ``samples`` alternative draws of as many cards are dealt from that deck; each
replaces the drawn cards in the seat's hand (or aside), the drawn ones going back among the
unseen. Chances are judged on the drawing seat's observation, as the curve's are.
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
    pool = draw.before.deck
    seen = observe(draw.after, seat)
    actual = win_probabilities(seen, seat)[seat]
    if len(pool) <= len(draw.cards):
        return 0.0  # the seat drew the whole deck: nothing else was possible
    alternatives = [drawn_instead(seen, draw, tuple(rng.sample(pool, len(draw.cards)))) for _ in range(samples)]
    expected = sum(win_probabilities(world, seat)[seat] for world in alternatives) / samples
    return actual - expected


def drawn_instead(seen: Game, draw: Draw, cards: tuple[str, ...]) -> Game:
    """``seen`` (an observation) had the seat drawn ``cards`` instead."""
    instead = dict(zip(draw.cards, cards, strict=True))
    player = seen.players[draw.seat]
    if draw.aside:
        player = copy_with(player, aside=tuple(instead.get(c, c) for c in player.aside))
    else:
        player = copy_with(player, hand=tuple(instead.get(c, c) for c in player.hand))
    taken = set(cards)
    unseen = tuple(sorted([c for c in seen.unseen if c not in taken] + [c for c in draw.cards if c not in taken]))
    players = tuple(player if p.seat == draw.seat else p for p in seen.players)
    return copy_with(seen, players=players, unseen=unseen)
