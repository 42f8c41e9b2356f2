"""Positions and a clock for the whole-turn search bots' tests (the planner's and the expert's)."""

from __future__ import annotations

import random

from domain import Edition, Options, decide, evolve, fold, new_game
from domain.bots import choose

SETTINGS = [(Edition.CLASSIC, False), (Edition.CMON, False), (Edition.CMON, True)]


def states(players: int, edition: Edition, expansion: bool, seed: int, turns: int):
    """The states of one game whose seats are played by random and greedy bots in turn, so
    that a bot is asked about positions it would not have steered into itself."""
    rnd = random.Random(seed)
    state = fold(new_game(Options(players, edition, expansion), rnd.randbytes(32)))
    while not state.finished and state.turn.number <= turns:
        yield state
        level = ("random", "greedy")[(state.turn.number // players) % 2]
        for event in decide(state, choose(state, state.turn.seat, level, rnd)):
            state = evolve(state, event)


def a_state_with_many_plans():
    state = next(s for s in states(2, Edition.CMON, True, seed=3, turns=20) if s.turn.number == 6)
    return state, state.turn.seat


class SteppingClock:
    """A clock that moves ``tick`` seconds every time it is read, and remembers the readings."""

    def __init__(self, tick: float) -> None:
        self.tick, self.readings = tick, [0.0]

    def __call__(self) -> float:
        self.readings.append(self.readings[-1] + self.tick)
        return self.readings[-1]
