"""The planner bot: plans its whole turn in one imagined world instead of sampling many.

Within its own turn a seat's future hardly depends on what it cannot see: its hand is its
own, and only a completed building's card reward or a reshuffle draws from hidden cards. So
where ``mcts`` spends its budget sampling worlds, the planner deals one world
(``determinize``), and for every command it could play now plays the rest of the turn with
``mcts``'s default policy (walk to the best tile in reach, contribute greedily, the Reset)
and scores the end of the turn as ``mcts`` does (position plus next turn's outlook). It plays
the first command of the best plan. Every plan is a few milliseconds, so a decision usually
takes tens of milliseconds; ``budget`` is a hard cap by the clock: once it has passed, the
best plan found so far is played.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from .. import commands as cmd
from ..state import Game
from . import greedy, mcts
from .observation import determinize

#: Stop starting new plans at this fraction of the budget: a plan takes milliseconds, so the
#: decision ends well inside the cap.
SAFETY = 0.8


def _plan_score(world: Game, seat: int, first: cmd.Command, outlook: mcts.Outlook) -> float:
    """The end-of-turn score of playing ``first`` and then the default policy."""
    after = greedy.apply(world, first)
    if isinstance(first, cmd.EndTurn):
        return mcts._score(world, first.discards, after, seat, outlook)
    return mcts._score(*mcts._finish_turn(after, seat, outlook), seat, outlook)


def choose(
    observation: Game,
    seat: int,
    rng: random.Random,
    budget: float = 0.5,
    clock: Callable[[], float] = time.perf_counter,
) -> cmd.Command:
    """The first command of the best whole-turn plan found within ``budget`` seconds."""
    deadline = clock() + SAFETY * budget
    world = determinize(observation, rng)
    options = mcts.candidates(world, seat)
    if len(options) == 1:
        return options[0]
    outlook = mcts.Outlook()
    # The Reset first: whatever the clock allows, a legal answer is always at hand.
    options.sort(key=lambda c: not isinstance(c, cmd.EndTurn))
    best: tuple[float, cmd.Command] | None = None
    for command in options:
        if best is not None and clock() > deadline:
            break
        score = _plan_score(world, seat, command, outlook)
        if best is None or score > best[0]:
            best = (score, command)
    assert best is not None
    return best[1]
