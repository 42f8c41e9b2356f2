"""What the Reset's discards cost: the best 0-2 cards to discard against those discarded.

The turn's plan is judged just before the Reset's draw (``decisions``), so what a seat throws
away to draw anew is a decision of its own: in the position the turn reached, worlds are dealt
from the seat's observation, and each choice of discards (none, each kind of card in the hand,
each pair of kinds) is played in each world, its draw taken from that world's deck, and judged
by the value model after the draw. Every choice draws from the same deck in a world, so they
differ by what they keep and how many cards they draw, not by the luck of the draw; that luck
is judged apart (``luck``). Chosen in one half of the worlds and costed in the other, as turns are.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from .. import commands as cmd
from ..bots import greedy
from ..bots.value import win_probabilities
from ..decide import MAX_DISCARDS
from ..errors import CommandError
from ..peoples import CARDS
from ..state import Game
from .decisions import Judged, halves, verdict


def judge_discards(state: Game, played: cmd.EndTurn, dealers: Sequence[random.Random], limit: int) -> Judged:
    """Cost of the Reset ``played`` in ``state``: the best discards against those played, the
    first world screening the choices past ``limit``."""
    seat = played.seat
    choosing, costing = halves(state, seat, dealers)
    mine = _kinds(played.discards)
    options = [cmd.EndTurn(seat, d) for d in choices(state.players[seat].hand) if _kinds(d) != mine]
    return verdict(choosing, costing, played, options, limit, lambda world: _after_draw(world, played), _after_draw)


def choices(hand: Sequence[str]) -> list[tuple[str, ...]]:
    """Every way to discard up to MAX_DISCARDS cards of ``hand`` that differs in effect: cards of
    one kind are interchangeable, so one card stands for its kind (two for a pair of it)."""
    found: dict[tuple[object, ...], tuple[str, ...]] = {}
    for size in range(MAX_DISCARDS + 1):
        for chosen in combinations(sorted(hand), size):
            found.setdefault(_kinds(chosen), chosen)
    return list(found.values())


def _kinds(cards: Sequence[str]) -> tuple[object, ...]:
    return tuple(sorted((CARDS[c].kind for c in cards), key=str))


def _after_draw(world: Game, reset: cmd.EndTurn) -> float | None:
    """The seat's chance once ``reset`` is played in ``world`` and its cards drawn."""
    try:
        return win_probabilities(greedy.apply(world, reset), reset.seat)[reset.seat]
    except CommandError:
        return None
