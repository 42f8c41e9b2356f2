"""Bots: pure functions of a seat's observation and a seeded generator.

A bot never sees another hand, the deck order or the seed: it is handed ``observe(state,
seat)`` and imagines the rest (``observation.determinize``). Levels: ``random``, ``greedy``,
``mcts``, ``planner``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..commands import Command
from ..state import Game
from . import greedy, mcts, planner, random_bot
from .observation import observe

Bot = Callable[..., Command]
LEVELS: dict[str, Bot] = {
    "random": random_bot.choose,
    "greedy": greedy.choose,
    "mcts": mcts.choose,
    "planner": planner.choose,
}
DEFAULT_BUDGET = 0.2  #: seconds per decision for mcts (the planner's hard cap is the same budget)


def choose(
    state_or_observation: Game,
    seat: int,
    level: str,
    rng: random.Random,
    budget: float = DEFAULT_BUDGET,
    iterations: int | None = None,
) -> Command:
    """The bot's command for ``seat``. Pass the full state or an observation: the bot only
    ever looks at the observation. ``budget``/``iterations`` bound the mcts search; ``budget``
    caps the planner's (it ignores ``iterations``: it usually ends far sooner)."""
    observation = observe(state_or_observation, seat)
    if level == "mcts":
        return mcts.choose(observation, seat, rng, budget=budget, iterations=iterations)
    if level == "planner":
        return planner.choose(observation, seat, rng, budget=budget)
    return LEVELS[level](observation, seat, rng)


__all__ = ["LEVELS", "choose", "observe"]
