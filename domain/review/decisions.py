"""What a decision cost: the best command's chance of winning minus the played one's.

Judged as the seat could have judged it: on ``samples`` worlds dealt from its observation at
that moment (``determinize``), the same worlds for every command, so that the difference is the
command's and not the worlds'. Most commands are mid-turn, so each candidate's turn is finished
with the bots' default policy (the planner's: walk to the best tile in reach, contribute
greedily, the Reset) before the value model judges the position at the end of the turn. The
candidates are ``mcts.candidates`` (every kind of move, pruned to sensible variants) and the
command played; past ``limit`` candidates, one more world of its own screens them, and only the
``limit`` with the best chances there are judged, plus the one played. So the command judged
best, judged as if played, costs exactly 0: it is judged among the same commands.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from .. import commands as cmd
from ..bots import greedy, mcts
from ..bots.observation import determinize, observe
from ..bots.planner import Clock, Planner
from ..bots.value import win_probabilities
from ..state import Game


@dataclass(frozen=True)
class Judged:
    """A decision's verdict: its cost, and the best command (the played one when it is best)."""

    cost: float
    best: cmd.Command


def judge_decision(state: Game, played: cmd.Command, dealers: Sequence[random.Random], limit: int) -> Judged:
    """Cost of ``played`` in ``state``: the first of ``dealers`` deals the world that screens
    the candidates, each of the others a world they are judged in."""
    seat = played.seat
    observation = observe(state, seat)
    screen, *worlds = [determinize(observation, dealer) for dealer in dealers]
    options = mcts.candidates(screen, seat)
    planner = Planner(seat, Clock(math.inf, time.perf_counter))
    if len(options) > limit:
        screened = {c: _chance(planner, screen, c) for c in options}
        options = sorted(options, key=lambda c: -screened[c])[:limit]
    if played not in options:
        options.append(played)
    if len(options) == 1:
        return Judged(0.0, played)  # nothing else to play: nothing to judge
    chances = {c: sum(_chance(planner, w, c) for w in worlds) / len(worlds) for c in options}
    best = max(options, key=lambda c: (chances[c], c == played))
    return Judged(chances[best] - chances[played], best)


def _chance(planner: Planner, world: Game, command: cmd.Command) -> float:
    """The seat's chance of winning once ``command`` is played and its turn finished."""
    after = greedy.apply(world, command)
    final = after if isinstance(command, cmd.EndTurn) else planner.finish_turn(after)[2]
    return win_probabilities(final, planner.seat)[planner.seat]
