"""Bots: pure functions of a seat's observation and a seeded generator.

A bot never sees another hand, the deck order or the seed: it is handed ``observe(state,
seat)`` and imagines the rest (``observation.determinize``). Levels: ``random``, ``greedy``,
``mcts``, ``planner``, ``expert``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..commands import Command
from ..state import Game
from . import expert, greedy, mcts, planner, random_bot
from .observation import observe

Bot = Callable[..., Command]
LEVELS: dict[str, Bot] = {
    "random": random_bot.choose,
    "greedy": greedy.choose,
    "mcts": mcts.choose,
    "planner": planner.choose,
    "expert": expert.choose,
}
DEFAULT_BUDGET = 0.2  #: seconds per decision for mcts
PLANNER_BUDGET = 0.5  #: the planner's and the expert's hard cap per decision


def choose(
    state_or_observation: Game,
    seat: int,
    level: str,
    rng: random.Random,
    budget: float | None = None,
    iterations: int | None = None,
    clock: Callable[[], float] | None = None,
) -> Command:
    """The bot's command for ``seat``. Pass the full state or an observation: the bot only
    ever looks at the observation. ``budget``/``iterations`` bound the mcts search (default
    ``DEFAULT_BUDGET``); ``budget`` caps the planner's and the expert's (default ``PLANNER_BUDGET``); any
    ``iterations`` lifts the cap, so that it weighs every plan and a replay chooses the same again.
    ``clock`` is what their cap reads (the wall clock unless given: a bench on a shared machine
    caps CPU time with ``time.process_time``)."""
    observation = observe(state_or_observation, seat)
    if level == "mcts":
        return mcts.choose(
            observation, seat, rng, budget=DEFAULT_BUDGET if budget is None else budget, iterations=iterations
        )
    if level in ("planner", "expert"):
        search = planner.choose if level == "planner" else expert.choose
        if iterations is not None:  # an exact replay: every plan, whatever the clock says
            return search(observation, seat, rng, budget=math.inf)
        cap = PLANNER_BUDGET if budget is None else budget
        return search(observation, seat, rng, budget=cap, **({"clock": clock} if clock else {}))
    return LEVELS[level](observation, seat, rng)


__all__ = ["LEVELS", "choose", "observe"]
