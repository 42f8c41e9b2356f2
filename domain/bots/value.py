"""Who is winning: each seat's probability of finishing first, as one seat sees the position.

The one question the review (and the ``expert`` bot) asks of a position. It is judged on
``observe(state, seat)``: hidden cards stay unknown, so a review never leaks what the judging seat
could not see. A finished game answers with certainty: each winner shares first place equally.

The judge is a small network trained on self-play (``bluemoon-train-value``, docs/bots.md "The
value model"): each seat's row of ``features`` gets a score ``v . tanh(W x + b) + u . x``, the
same weights for every seat, and the chances are the scores' softmax across the seats.
``MODEL_VERSION`` names the weights; a review records it, so that a recomputation can tell
whether it used the same ones.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..state import Game
from .features import NAMES, seat_features
from .observation import observe

MODEL_PATH = Path(__file__).with_name("value_model.json")


class ValueModel:
    """The weights of a model file. numpy scores a position's rows at once: ~7 µs against
    ~200 µs for Python loops over the 16 hidden units (docs/bots.md)."""

    def __init__(self, document: dict[str, Any]) -> None:
        if tuple(document["features"]) != NAMES:
            raise ValueError("the model was trained on other features than domain/bots/features.py computes")
        self.version: str = document["version"]
        shape = (len(document["hidden_bias"]), len(NAMES))
        self.hidden_weights = np.array(document["hidden_weights"], dtype=np.float64).reshape(shape).T
        self.hidden_bias = np.array(document["hidden_bias"], dtype=np.float64)
        self.hidden_out = np.array(document["hidden_out"], dtype=np.float64)
        self.linear = np.array(document["linear"], dtype=np.float64)

    def scores(self, rows: list[list[float]]) -> list[float]:
        """Each row's score: ``v . tanh(W x + b) + u . x``."""
        x = np.array(rows, dtype=np.float64)
        hidden = np.tanh(x @ self.hidden_weights + self.hidden_bias)
        result: list[float] = (hidden @ self.hidden_out + x @ self.linear).tolist()
        return result

    def chances(self, observation: Game, seat: int) -> tuple[float, ...]:
        """The softmax of the seats' scores in ``seat``'s observation of an unfinished game."""
        scores = self.scores(seat_features(observation, seat))
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        return tuple(w / total for w in weights)


def load(path: Path = MODEL_PATH) -> ValueModel:
    return ValueModel(json.loads(path.read_text()))


MODEL = load()
MODEL_VERSION = MODEL.version


def win_probabilities(state: Game, seat: int) -> tuple[float, ...]:
    """Each seat's chance of finishing first, summing to 1, from ``seat``'s point of view."""
    if state.result is not None:
        winners = state.result.winners
        return tuple(1.0 / len(winners) if s in winners else 0.0 for s in range(state.options.players))
    return MODEL.chances(observe(state, seat), seat)
