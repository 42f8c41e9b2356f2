"""The expert bot: the planner's whole-turn search, in several imagined worlds, two commands deep.

The planner deals one world and plays every first command out to the end of the turn with the
default policy. The expert deals ``WORLDS`` worlds, so that a plan that only works for one deal
of the unseen cards (a building's card reward, a reshuffle) is weighed by how often it works; it
then refines the ``REFINE`` best first commands by searching their second command too (each second
command played out by the default policy, the best one kept), so that where the default policy
would have walked or paid poorly after a good first command, the better follow-up counts. It
judges the end of each plan as the planner does (its position, the outlook, less the best-placed
rival's position) plus ``CHANCE`` (``MANY_CHANCE`` in games of three or four) times its chance
of finishing first, a softmax of the seats' positions (sharper in games of three or four), and
``MODEL_CHANCE`` times the same chance as the trained value model judges it
(``value.win_probabilities``; 0, for it made the expert weaker), and plays the first command of
the best plan on average over the worlds. With ``REPLY`` (0: it did not help) the best refined
plans are judged again after the other seats' next turns, each by the default policy; with
``RACE``, in a game of three or four once some seat is one offering from winning, after their
next turns as the planner plays them.

Unlike the planner, it counts the other seats' crystals as the table can (``COUNT``): its worlds
give each the crystals paid to it in public, less what its offerings cost (``Player.counted``),
where the planner's read 0; a rival's lead, and its next offering, then show in the plans' ends.

Its budget is a hard cap by the clock, as the planner's (at ``CAP_SHARE`` of it): past it, the
best first command judged in every world is played (the Reset at worst); ``budget=math.inf``
weighs every plan (a replay).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable

from .. import commands as cmd
from ..state import Game, copy_with
from . import greedy, mcts, planner
from . import value as value_model
from .heuristic import value
from .observation import determinize, observe

WORLDS = 3  #: worlds dealt per decision, each plan judged in all of them
REFINE = 3  #: first commands (the best by their one-command plans) searched two commands deep
#: Weight of the seat's own chance of finishing first (0..1), in heuristic points, as the
#: heuristic sees it: the softmax across the seats of ``heuristic.value`` on the seat's
#: observation, ``TEMPERATURE`` points per e-fold of odds (value.py's provisional link).
#: 40 since session 3 (20 before; docs/bots.md, "The expert").
CHANCE = 40.0
TEMPERATURE = 12.0
#: ``CHANCE`` in games of three or four. 40: at 80 the expert won 34.5% of 600 four-player games
#: against three planners, no more than at 40 (docs/bots.md, "Sixth session").
MANY_CHANCE = 40.0
#: The same in games of three or four: against three rivals a sharper race to first place
#: played better (docs/bots.md, "Fifth session").
MANY_TEMPERATURE = 6.0
#: Weight of the same chance as the trained value model (``value.win_probabilities``) judges it.
#: 0: at 20 it lost far more often than without it (docs/bots.md, "The expert").
MODEL_CHANCE = 0.0
#: Weight of what the other seats' next turns (each by the default policy, in the same worlds)
#: change in the end of the ``REPLIES`` best refined plans: a plan that leaves a rival a
#: building to complete, or a majority to take, is worth what that turn takes from it.
#: 0: at 1.0 it won no more often, for a quarter more CPU (docs/bots.md, "The expert").
REPLY = 0.0
REPLIES = 3
#: In games of three or four, once some seat is one offering from winning (``racing``), the
#: weight of the same replies with each other seat's turn played as the planner plays it (each
#: command its choice from that seat's view of the world, about 8 ms each) instead of by the
#: default policy: the race for the last offering is decided by the rivals' own plans, and a
#: plan that hands one of them the crystals, or the obelisk space, it needs shows there.
#: 1: against three planners it won 37.6% of 400 fresh four-player games, 34.2% without
#: (docs/bots.md, "Seventh session").
RACE = 1.0
#: Whether the worlds give each other seat the crystals the table counted (``Player.counted``:
#: the catalogue's rewards and the scale awards, less offerings' costs, all public) instead of
#: 0, so that a rival's next offering, and its lead, show in the plans' ends.
COUNT = True
#: The search stops at this share of the budget: what comes after the valuation under way when
#: the cap passes (and observing, dealing the worlds) stays inside the budget.
CAP_SHARE = 0.95


class Expert(planner.Planner):
    """One decision's plans: the planner's, with the value model added to each turn's end."""

    def __init__(self, seat: int, clock: planner.Clock, rng: random.Random | None = None) -> None:
        super().__init__(seat, clock)
        self.their_outlooks: dict[int, mcts.Outlook] = {}  #: each other seat's, for their replies
        self.rng = rng or random.Random(0)  #: the planner's worlds when it plays another seat's turn

    def score(self, before_end: Game, discards: tuple[str, ...], final: Game) -> float:
        judged = super().score(before_end, discards, final)
        self.clock.check()
        weight = CHANCE if final.options.players == 2 else MANY_CHANCE
        if weight:
            judged += weight * heuristic_chance(final, self.seat)
        if MODEL_CHANCE:
            judged += MODEL_CHANCE * value_model.win_probabilities(final, self.seat)[self.seat]
        return judged

    def reply_score(self, world: Game, first: cmd.Command, planned: bool = False) -> float:
        """The end of the plan that starts with ``first`` (then the default policy), judged
        after every other seat has played its next turn by the default policy (``planned``:
        as the planner plays it)."""
        after = greedy.apply(world, first)
        if isinstance(first, cmd.EndTurn):
            before_end, discards, final = world, first.discards, after
        else:
            before_end, discards, final = self.finish_turn(after)
        state = final
        for _ in range(state.options.players - 1):
            if state.finished or state.turn is None or state.turn.seat == self.seat:
                break
            seat = state.turn.seat
            if planned:
                state = self.planned_turn(state, seat)
            else:
                outlook = self.their_outlooks.setdefault(seat, planner.CheckedOutlook(self.clock))
                state = self.play_turn(state, seat, outlook)[2]
        return self.score(before_end, discards, state)

    def planned_turn(self, state: Game, seat: int) -> Game:
        """``seat``'s turn in this world as the planner plays it: each command its choice from
        the seat's observation, within what is left of this decision's cap."""
        for _ in range(mcts.MAX_DEPTH):
            if not mcts.my_turn(state, seat):
                break
            self.clock.check()
            left = self.clock.cap - self.clock.now()
            seen = observe(copy_with(state, unseen=()), seat)  # the world, as that seat sees it
            command = planner.choose(seen, seat, self.rng, budget=left, clock=self.clock.now)
            state = greedy.apply(state, command)
        return state

    def deeper_score(self, world: Game, first: cmd.Command) -> float:
        """The best plan that starts with ``first``: each second command, then the default policy."""
        after = greedy.apply(world, first)
        if isinstance(first, cmd.EndTurn) or not mcts.my_turn(after, self.seat):
            return self.plan_score(world, first)
        return max(self.plan_score(after, second) for second in mcts.candidates(after, self.seat))


def heuristic_chance(state: Game, seat: int) -> float:
    """``seat``'s chance of finishing first as a softmax of the seats' ``heuristic.value`` on its
    observation (others' crystals as the world was dealt them, counted or 0, plus what the plan
    paid them): a win counts as certain, unlike a lead in points."""
    seen = observe(state, seat)
    if seen.result is not None:
        return 1.0 / len(seen.result.winners) if seat in seen.result.winners else 0.0
    temperature = TEMPERATURE if seen.options.players == 2 else MANY_TEMPERATURE
    scores = [value(seen, s) / temperature for s in range(seen.options.players)]
    top = max(scores)
    weights = [math.exp(x - top) for x in scores]
    return weights[seat] / sum(weights)


def racing(state: Game) -> bool:
    """Some seat is one offering from winning."""
    return any(p.offerings >= state.options.offerings_to_win - 1 for p in state.players)


def counted(observation: Game, seat: int) -> Game:
    """The observation with each other seat's crystals as the table counted them (``COUNT``)."""
    if not COUNT:
        return observation
    players = tuple(p if p.seat == seat else copy_with(p, crystals=max(0, p.counted)) for p in observation.players)
    return copy_with(observation, players=players)


def _mean(score: Callable[[Game, cmd.Command], float], worlds: list[Game], command: cmd.Command) -> float:
    return sum(score(world, command) for world in worlds) / len(worlds)


def choose(
    observation: Game,
    seat: int,
    rng: random.Random,
    budget: float = 0.5,
    clock: Callable[[], float] = time.perf_counter,
) -> cmd.Command:
    """The first command of the best plan on average over ``WORLDS`` worlds, within ``budget``."""
    race = RACE if observation.options.players > 2 and racing(observation) else 0.0
    their_rng = random.Random(rng.random()) if race else None  # without the race, the same draws as before
    expert = Expert(seat, planner.Clock(CAP_SHARE * budget, clock), their_rng)
    observation = counted(observation, seat)
    worlds = [determinize(observation, rng) for _ in range(WORLDS)]
    options = mcts.candidates(worlds[0], seat)  # the seat's own hand and the table: the same in every world
    reset = next(c for c in options if isinstance(c, cmd.EndTurn))
    if len(options) == 1:
        return reset
    options.sort(key=lambda c: not isinstance(c, cmd.EndTurn))  # the Reset's plan first
    judged: list[tuple[float, cmd.Command]] = []
    for command in options:
        if not expert.clock.may_start():
            break
        try:
            judged.append((_mean(expert.plan_score, worlds, command), command))
        except planner.OutOfTime:
            break
    if not judged:
        return reset
    judged.sort(key=lambda sc: -sc[0])
    best = judged[0][1]
    if len(judged) < len(options):
        return best  # out of time already: no refinement
    refined: list[tuple[float, cmd.Command]] = []
    for _, command in judged[:REFINE]:
        if not expert.clock.may_start():
            return best
        try:
            refined.append((_mean(expert.deeper_score, worlds, command), command))
        except planner.OutOfTime:
            return best
    refined.sort(key=lambda sc: -sc[0])
    best = refined[0][1]
    weight = race or REPLY
    if not weight:
        return best
    replies = functools.partial(expert.reply_score, planned=True) if race else expert.reply_score
    plain = {command: score for score, command in judged}
    replied: list[tuple[float, cmd.Command]] = []
    for score, command in refined[:REPLIES]:
        if not expert.clock.may_start():
            return best
        try:
            taken = _mean(replies, worlds, command) - plain[command]
        except planner.OutOfTime:
            return best
        replied.append((score + weight * taken, command))
    return max(replied, key=lambda sc: sc[0])[1]
