"""What a turn's decisions cost: the best whole-turn plan's chance of winning minus the turn
as played.

Judged per turn, not per command: the steps of one turn are one plan, and costing each step
against plans that a default policy finishes summed correlated errors (a bot's totals read
1.3 to 5.9). At the turn's start, worlds are dealt from the seat's observation
(``determinize``); the candidates are the planner's whole-turn plans (each first command of
``mcts.candidates`` finished by its default policy) and the turn as played, its commands
replayed in each world (the seat's own hand is known, so they stay legal). Every plan is judged
by the value model just before the Reset's draw, so the draw belongs to luck. The best plan is
chosen in one half of the worlds and costed in the other, independent half, so that the max
over noisy candidates is not biased upward: cost = max(0, best − played) there. A turn played
exactly as the plan chosen costs 0.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from .. import commands as cmd
from ..bots import greedy, mcts
from ..bots.observation import determinize, observe
from ..bots.planner import Clock, Planner
from ..bots.value import win_probabilities
from ..errors import CommandError
from ..state import Game

Option = TypeVar("Option", bound=cmd.Command)  #: a kind of command the options are (a Reset's: EndTurn)
PLAYED = "played"  #: the key of the turn as played among the plans


@dataclass(frozen=True)
class Judged:
    """A turn's verdict: its cost, and the first command of the best plan (the played turn's
    first command when it is best)."""

    cost: float
    best: cmd.Command


def judge_turn(state: Game, played: Sequence[cmd.Command], dealers: Sequence[random.Random], limit: int) -> Judged:
    """Cost of the turn ``played`` (its commands in order) begun in ``state``: the first half
    of ``dealers`` deal the worlds the best plan is chosen in, the second half those it is
    costed in (the first world also screens the candidates past ``limit``)."""
    seat = played[0].seat
    choosing, costing = halves(state, seat, dealers)
    planner = Planner(seat, Clock(math.inf, time.perf_counter))
    options = mcts.candidates(choosing[0], seat)
    return verdict(
        choosing, costing, played[0], options, limit, lambda world: _played(world, played), partial(_plan, planner)
    )


def halves(state: Game, seat: int, dealers: Sequence[random.Random]) -> tuple[list[Game], list[Game]]:
    """Worlds dealt from ``seat``'s observation of ``state``: the first half's to choose the
    best in, the second half's to cost it in (the first half again if there is only one)."""
    observation = observe(state, seat)
    worlds = [determinize(observation, dealer) for dealer in dealers]
    half = max(1, len(worlds) // 2)
    return worlds[:half], worlds[half:] or worlds[:half]


def verdict(
    choosing: Sequence[Game],
    costing: Sequence[Game],
    played: cmd.Command,
    options: Sequence[Option],
    limit: int,
    as_played: Callable[[Game], float | None],
    instead: Callable[[Game, Option], float | None],
) -> Judged:
    """The best of ``options`` (screened to ``limit`` by ``instead`` in the first choosing world)
    and the decision as played (``PLAYED``, judged by ``as_played``; a world where it is not
    legal is left out), chosen by their mean chances in ``choosing`` (the one played on a tie)
    and costed against each other in ``costing``, never below 0; ``played``: its command."""
    if len(options) > limit:
        screened = {c: instead(choosing[0], c) or 0.0 for c in options}
        options = sorted(options, key=lambda c: -screened[c])[:limit]

    def chances(worlds: Sequence[Game]) -> dict[object, float]:
        found: dict[object, list[float]] = {}
        for world in worlds:
            mine = as_played(world)
            if mine is None:
                continue  # not legal in this world: not comparable there
            found.setdefault(PLAYED, []).append(mine)
            for c in options:
                found.setdefault(c, []).append(instead(world, c) or 0.0)
        return {k: sum(v) / len(v) for k, v in found.items()}

    chosen = chances(choosing)
    if len(chosen) <= 1:
        return Judged(0.0, played)
    best = max(chosen, key=lambda k: (chosen[k], k == PLAYED))
    if best == PLAYED:
        return Judged(0.0, played)
    costed = chances(costing)
    if PLAYED not in costed:
        return Judged(0.0, played)
    assert isinstance(best, cmd.Command)
    return Judged(max(0.0, costed[best] - costed[PLAYED]), best)


def _chance(seat: int, before_draw: Game) -> float:
    return win_probabilities(before_draw, seat)[seat]


def _plan(planner: Planner, world: Game, first: cmd.Command) -> float | None:
    """The seat's chance before its draw once ``first`` is played and its turn finished by the
    default policy."""
    if isinstance(first, cmd.EndTurn):
        return _chance(planner.seat, world)
    try:
        before_end, _, _ = planner.finish_turn(greedy.apply(world, first))
    except CommandError:
        return None
    return _chance(planner.seat, before_end)


def _played(world: Game, played: Sequence[cmd.Command]) -> float | None:
    """The seat's chance before its draw with the turn replayed as played in ``world``."""
    seat = played[0].seat
    try:
        for command in played:
            if isinstance(command, cmd.EndTurn):
                break
            world = greedy.apply(world, command)
            if not mcts.my_turn(world, seat):
                break
    except CommandError:
        return None
    return _chance(seat, world)
