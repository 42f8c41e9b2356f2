"""Bots: pure functions of a seat's observation and a seeded generator.

A bot never sees another hand, the deck order or the seed: it is handed ``observe(state,
seat)`` and imagines the rest (``observation.determinize``). Levels: ``random``, ``greedy``,
``mcts``.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from ..commands import Command
from ..state import Game
from . import greedy, random_bot
from .observation import observe

Bot = Callable[[Game, int, random.Random], Command]
LEVELS: dict[str, Bot] = {"random": random_bot.choose, "greedy": greedy.choose}


def choose(state_or_observation: Game, seat: int, level: str, rng: random.Random) -> Command:
    """The bot's command for ``seat``. Pass the full state or an observation: the bot only
    ever looks at the observation."""
    return LEVELS[level](observe(state_or_observation, seat), seat, rng)


__all__ = ["LEVELS", "choose", "observe"]
