"""Who is winning: each seat's probability of finishing first, as one seat sees the position.

The one question the review (and the ``expert`` bot) asks of a position. It is judged on
``observe(state, seat)``: hidden cards stay unknown, so a review never leaks what the judging seat
could not see. A finished game answers with certainty: each winner shares first place equally.

``MODEL_VERSION`` names the judgement; a review records it, so that a recomputation can tell
whether it used the same one.
"""

from __future__ import annotations

import math

from ..state import Game
from .heuristic import value
from .observation import observe

MODEL_VERSION = "heuristic-softmax-1"
TEMPERATURE = 12.0  #: heuristic points per e-fold of odds (a provisional link, to be fitted)


def win_probabilities(state: Game, seat: int) -> tuple[float, ...]:
    """Each seat's chance of finishing first, summing to 1, from ``seat``'s point of view."""
    seats = range(state.options.players)
    if state.result is not None:
        winners = state.result.winners
        return tuple(1.0 / len(winners) if s in winners else 0.0 for s in seats)
    seen = observe(state, seat)
    scores = [value(seen, s) / TEMPERATURE for s in seats]
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    total = sum(weights)
    return tuple(w / total for w in weights)
