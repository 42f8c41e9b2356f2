"""The short whole games the review's tests play: two seats in the Courtyard with eight cards
each, 20 crystals and four offerings each already made, so a game (moves, contributions, draws,
offerings, the end) takes about 90 events."""

from __future__ import annotations

import random

from domain import Options
from domain import events as ev
from domain.peoples import CANONICAL_DECK
from domain.scenario import Position, scenario_game


def short_opening(seed: int = 5) -> list[ev.Event]:
    """The opening events of such a game, the deck shuffled by ``seed``."""
    deck = list(CANONICAL_DECK)
    random.Random(seed).shuffle(deck)
    position = Position(
        hands=(tuple(deck[:8]), tuple(deck[8:16])),
        figures=("courtyard", "courtyard"),
        crystals=(20, 20),
        scales=(0, 0),
        obelisk=(0, 1, 0, 1, 0, 1, 0, 1),
    )
    return scenario_game(Options(2), seed.to_bytes(8, "big"), position)
