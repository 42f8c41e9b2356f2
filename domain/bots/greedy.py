"""The greedy bot: pick the tile whose best contributions (or offerings) are worth most,
walk there, pay greedily, then discard the weakest cards. Explainable: every choice is the
largest gain of ``heuristic.value`` one step (or one tile) ahead."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from .. import commands as cmd
from ..catalogue import BUILDINGS
from ..decide import decide_and_apply
from ..legal import offers_and_actions
from ..payment import minimal_payments
from ..peoples import CARDS, Colour
from ..state import Game, Phase, copy_with
from .heuristic import value
from .observation import determinize

Judge = Callable[[Game, int], float]  #: how good a state is for a seat; greedy's is ``value``

FLIGHT_COST = 1.5  #: a Flit 1 spent to fly is a card not spent on a contribution


def apply(state: Game, command: cmd.Command) -> Game:
    return decide_and_apply(state, command)[1]


def candidates(state: Game, seat: int) -> Iterator[cmd.Command]:
    """Contribution-phase commands worth judging: per open space and colour the payment
    (without Hoax tricks) that spends the least card value; offerings; building actions. None
    after a Main Hall move: only the Reset is left then (R13)."""
    if state.turn is not None and state.turn.relocated:
        return
    player = state.players[seat]
    site = state.sites.get(player.position)
    if site is not None and not site.reconstructed and player.markers > 0:
        for index, space in enumerate(BUILDINGS[site.building].spaces):
            if site.markers[index] is not None:
                continue
            for colour in [space.colour] if space.colour else list(Colour):
                payments = minimal_payments(player.hand, colour, space.value, hoax=False)
                if payments:
                    cards, _ = min(payments, key=lambda p: (sum(CARDS[c].value for c in p[0]), p[0]))
                    yield cmd.Contribute(seat, site.building, index, cards, None if space.colour else colour.value)
    yield from offers_and_actions(state, seat)


def best_action(state: Game, seat: int, judge: Judge = value) -> tuple[float, cmd.Command | None]:
    """The contribution-phase command that starts the best short plan, if any gains."""
    base = judge(state, seat)
    best: tuple[float, cmd.Command | None] = (0.0, None)
    for c in candidates(state, seat):
        if isinstance(c, cmd.UseAction) and c.to is not None:
            continue  # the Main Hall's move is judged by the tile plan, not here
        after = apply(state, c)
        judged = judge(after, seat)
        gain = judged - base + plan_value(after, seat, 1, judge, judged)
        if gain > best[0]:
            best = (gain, c)
    return best


def plan_value(state: Game, seat: int, depth: int, judge: Judge = value, base: float | None = None) -> float:
    """The best total gain of up to ``depth`` contribution-phase commands from ``state``: a
    short look-ahead, so that a marker placed now counts when the next one completes.
    ``base`` is ``judge(state, seat)`` when the caller has it already."""
    if depth == 0 or state.finished:
        return 0.0
    if base is None:
        base = judge(state, seat)
    best = 0.0
    for c in candidates(state, seat):
        if isinstance(c, cmd.UseAction) and c.to is not None:
            continue
        after = apply(state, c)
        judged = judge(after, seat)
        best = max(best, judged - base + plan_value(after, seat, depth - 1, judge, judged))
    return best


def tile_value(state: Game, seat: int, tile: str, depth: int = 2, judge: Judge = value) -> float:
    """What contributing (or offering) at ``tile`` this turn could gain."""
    here = copy_with(state, players=tuple(copy_with(p, position=tile) if p.seat == seat else p for p in state.players))
    return plan_value(here, seat, depth, judge)


def discards(state: Game, seat: int) -> tuple[str, ...]:
    """Up to two 1s, of peoples that pay nothing near and have no power worth keeping."""
    hand = sorted(state.players[seat].hand, key=lambda c: (CARDS[c].value, c))
    keep = {Colour.GREY, Colour.GREEN, Colour.YELLOW}
    weak = [c for c in hand if CARDS[c].value == 1 and CARDS[c].colour not in keep]
    return tuple(sorted(weak[:2]))


LATER = 0.7  #: a plan that needs another turn to reach is worth this fraction per turn away


def reach_worth(gain: float, distance: int, steps: int, flit: bool) -> float:
    """A tile's gain as seen from ``distance`` away with ``steps`` left: whole if walkable
    now, less a Flit 1 if one can fly there, else discounted per turn of walking (two steps)."""
    away = max(0, distance - steps)
    if away and flit:
        return gain - FLIGHT_COST
    turns_away = -(-away // 2)  # two steps a turn, rounded up
    return gain * LATER**turns_away


def step_towards(world: Game, here: str, target: str) -> str:
    return next(
        n
        for n in world.city.neighbours[here]
        if world.city.distances[n][target] == world.city.distances[here][target] - 1
    )


def choose(observation: Game, seat: int, rng: random.Random) -> cmd.Command:
    world = determinize(observation, rng)
    turn = world.turn
    assert turn is not None
    player = world.players[seat]
    here = player.position
    flit = next((c for c in sorted(player.hand) if CARDS[c].colour is Colour.GREY and CARDS[c].value == 1), None)
    # with no step left and no Flit to fly, no tile's worth could make it move: skip judging them
    if turn.phase is Phase.MOVEMENT and not turn.relocated and (turn.steps > 0 or flit is not None):
        distances = world.city.distances[here]
        gains = {tile: tile_value(world, seat, tile) for tile in world.city.tiles}

        def worth(tile: str) -> float:
            return reach_worth(gains[tile], distances[tile], turn.steps, flit is not None)

        target = max(world.city.tiles, key=lambda t: (worth(t), t == here, -distances[t]))
        if worth(target) > 0 and target != here:
            if distances[target] > turn.steps and flit:
                return cmd.FlyFigure(seat, flit, target)
            if turn.steps > 0:
                return cmd.Move(seat, step_towards(world, here, target))
    _, action = best_action(world, seat)
    if action is not None and not turn.relocated:
        return action
    return cmd.EndTurn(seat, discards(world, seat))
