"""The planner bot: plans its whole turn in one imagined world instead of sampling many.

Within its own turn a seat's future hardly depends on what it cannot see: its hand is its
own, and only a completed building's card reward or a reshuffle draws from hidden cards. So
where ``mcts`` spends its budget sampling worlds, the planner deals one world
(``determinize``), and for every command it could play now plays the rest of the turn with
``mcts``'s default policy (walk to the best tile in reach, contribute greedily, the Reset).
It scores the end of each turn as ``mcts`` does (its position plus next turn's outlook) less
a share of what the best-placed rival gained in public, and plays the first command of the
best plan. A plan takes milliseconds, so a decision usually takes tens of milliseconds.
``budget`` is a hard cap by the clock: every valuation checks it, and once it has passed the
best plan found so far is played (the Reset if none was finished).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from .. import commands as cmd
from ..state import Game
from . import greedy, mcts
from .heuristic import value
from .observation import determinize

#: No new plan starts after this fraction of the budget; a plan under way stops at the cap.
SAFETY = 0.8
#: Weight of the best-placed rival's public position (crystals won this turn, offerings,
#: scales, shares of unfinished buildings): a turn that hands a rival a majority is worth less.
RIVALS = 1.5


class OutOfTime(Exception):
    """The decision's budget has run out in the middle of a plan."""


class Clock:
    """The decision's cap, checked at every valuation so that no plan can overrun it."""

    def __init__(self, budget: float, now: Callable[[], float]) -> None:
        self.now = now
        start = now()
        self.cap, self.last_start = start + budget, start + SAFETY * budget

    def check(self) -> None:
        if self.now() > self.cap:
            raise OutOfTime

    def may_start(self) -> bool:
        return self.now() <= self.last_start


class Planner:
    """One decision's plans: the valuations all go through ``judge``, which keeps the clock."""

    def __init__(self, seat: int, clock: Clock) -> None:
        self.seat, self.clock = seat, clock
        self.outlook = CheckedOutlook(clock)

    def judge(self, state: Game, seat: int) -> float:
        self.clock.check()
        return mcts.judge(state, seat)

    def finish_turn(self, state: Game) -> tuple[Game, tuple[str, ...], Game]:
        """``mcts``'s default policy with the clock kept: walk to the best tile in reach,
        contribute greedily there, then the Reset."""
        return self.play_turn(state, self.seat, self.outlook)

    def play_turn(self, state: Game, seat: int, outlook: mcts.Outlook) -> tuple[Game, tuple[str, ...], Game]:
        """``seat``'s turn by the default policy (any seat's: the expert plays the others' too)."""
        state = mcts.walk_to_best(state, seat, outlook)
        for _ in range(mcts.MAX_DEPTH):
            if not mcts.my_turn(state, seat):
                return state, (), state
            _, action = greedy.best_action(state, seat, self.judge)
            if action is None or state.turn.relocated:  # type: ignore[union-attr]
                break
            state = greedy.apply(state, action)
        if not mcts.my_turn(state, seat):
            return state, (), state
        discards = greedy.discards(state, seat)
        return state, discards, greedy.apply(state, cmd.EndTurn(seat, discards))

    def score(self, before_end: Game, discards: tuple[str, ...], final: Game) -> float:
        """``mcts``'s end-of-turn score less ``RIVALS`` times the best rival's position."""
        mine = mcts.turn_score(before_end, discards, final, self.seat, self.outlook)
        return mine - RIVALS * rivals(final, self.seat)

    def plan_score(self, world: Game, first: cmd.Command) -> float:
        """The end-of-turn score of playing ``first`` and then the default policy."""
        after = greedy.apply(world, first)
        if isinstance(first, cmd.EndTurn):
            return self.score(world, first.discards, after)
        return self.score(*self.finish_turn(after))


class CheckedOutlook(mcts.Outlook):
    """``mcts.Outlook`` whose every new tile valuation first checks the clock."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def gain(self, state: Game, seat: int, tile: str) -> float:
        self.clock.check()
        return super().gain(state, seat, tile)


def rivals(state: Game, seat: int) -> float:
    """The best public position among the other seats (their crystals read 0 to a bot, so
    only what they gained during this turn counts)."""
    return max((value(state, s, 0.0) for s in range(state.options.players) if s != seat), default=0.0)


def choose(
    observation: Game,
    seat: int,
    rng: random.Random,
    budget: float = 0.5,
    clock: Callable[[], float] = time.perf_counter,
) -> cmd.Command:
    """The first command of the best whole-turn plan found within ``budget`` seconds."""
    planner = Planner(seat, Clock(budget, clock))
    world = determinize(observation, rng)
    options = mcts.candidates(world, seat)
    reset = next(c for c in options if isinstance(c, cmd.EndTurn))
    if len(options) == 1:
        return reset
    options.sort(key=lambda c: not isinstance(c, cmd.EndTurn))  # the Reset's plan first
    best: tuple[float, cmd.Command] = (float("-inf"), reset)
    for command in options:
        if not planner.clock.may_start():
            break
        try:
            score = planner.plan_score(world, command)
        except OutOfTime:
            break
        if score > best[0]:
            best = (score, command)
    return best[1]
