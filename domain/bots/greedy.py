"""The greedy bot: pick the tile whose best contributions (or offerings) are worth most,
walk there, pay greedily, then discard the weakest cards. Explainable: every choice is the
largest gain of ``heuristic.value`` one step (or one tile) ahead."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import NamedTuple

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


class Plan(NamedTuple):
    """A short plan's total gain, the command that starts it (None when nothing gains), and
    whether any command looked at drew a card: only such a plan depends on the dealt deck."""

    gain: float
    first: cmd.Command | None
    drew: bool


#: Leaves of a two-step plan judged so far (the judgement, and whether the last step drew a
#: card), by the two contributions that reach them.
Leaves = dict[frozenset[cmd.Command], tuple[float, bool]]


def plan(
    state: Game,
    seat: int,
    depth: int,
    judge: Judge = value,
    base: float | None = None,
    came_by: tuple[cmd.Command, Leaves] | None = None,
) -> Plan:
    """The best plan of up to ``depth`` contribution-phase commands from ``state``: a short
    look-ahead, so that a marker placed now counts when the next one completes. ``base`` is
    ``judge(state, seat)`` when the caller has it already; ``came_by``, at the last step of a
    two-step plan, the command that led to ``state`` and the leaves judged so far (``_leaf``)."""
    if depth == 0 or state.finished:
        return Plan(0.0, None, False)
    if base is None:
        base = judge(state, seat)
    best, first, drew = 0.0, None, False
    leaves: Leaves = {}
    paid: set[tuple[int, tuple[str, ...]]] = set()  #: (space, cards) of the contributions judged
    for c in candidates(state, seat):
        if isinstance(c, cmd.UseAction) and c.to is not None:
            continue  # the Main Hall's move is judged by the tile plan, not here
        if isinstance(c, cmd.Contribute):
            if (c.space, c.cards) in paid:
                continue  # the same cards as another colour of an any-colour space: no state keeps the colour
            paid.add((c.space, c.cards))
        if depth == 1:  # nothing follows: the gain is the judgement's alone
            judged, drawn = _leaf(state, seat, c, judge, came_by)
            gain = judged - base
            drew = drew or drawn
        else:
            after = apply(state, c)
            judged = judge(after, seat)
            deeper = plan(after, seat, depth - 1, judge, judged, (c, leaves) if depth == 2 else None)
            gain = judged - base + deeper.gain
            drew = drew or deeper.drew or after.deck is not state.deck
        if gain > best:
            best, first = gain, c
    return Plan(best, first, drew)


def _leaf(
    state: Game, seat: int, c: cmd.Command, judge: Judge, came_by: tuple[cmd.Command, Leaves] | None
) -> tuple[float, bool]:
    """``judge`` after ``c``, and whether ``c`` drew a card. Two contributions (at the figure's
    building, both) lead to the same state in either order but for the discard pile's order,
    which no judge reads: the leaf they reach is judged once (about a third of a plan's leaves)."""
    key: frozenset[cmd.Command] = frozenset()
    leaves: Leaves = {}
    if came_by is not None and isinstance(c, cmd.Contribute) and isinstance(came_by[0], cmd.Contribute):
        key, leaves = frozenset((came_by[0], c)), came_by[1]
    if key not in leaves:
        after = apply(state, c)
        leaves[key] = (judge(after, seat), after.deck is not state.deck)
    return leaves[key]


def best_action(state: Game, seat: int, judge: Judge = value) -> tuple[float, cmd.Command | None]:
    """The contribution-phase command that starts the best short plan, if any gains."""
    return plan(state, seat, 2, judge)[:2]


def plan_value(state: Game, seat: int, depth: int, judge: Judge = value, base: float | None = None) -> float:
    """The best total gain of up to ``depth`` contribution-phase commands from ``state``."""
    return plan(state, seat, depth, judge, base).gain


def at_tile(state: Game, seat: int, tile: str) -> Game:
    """``state`` with ``seat``'s figure on ``tile``."""
    return copy_with(state, players=tuple(copy_with(p, position=tile) if p.seat == seat else p for p in state.players))


def tile_value(state: Game, seat: int, tile: str, depth: int = 2, judge: Judge = value) -> float:
    """What contributing (or offering) at ``tile`` this turn could gain."""
    return plan(at_tile(state, seat, tile), seat, depth, judge).gain


#: The tile plans of greedy's last Move step, beside the observation they were judged from
#: (less what no plan looks at: ``_unplaced``). One slot: the steps of a turn follow each other.
_last_plans: tuple[Game, dict[str, Plan]] | None = None


def tile_plans(observation: Game, world: Game, seat: int) -> dict[str, Plan]:
    """greedy's plan at every tile, as if its figure stood there. The Move steps of a turn
    differ in where the figure stands and the steps left, which no plan looks at, and in how
    ``determinize`` dealt the unseen cards, which only a plan that drew a card looks at (the
    deck is the only way to them): the other plans of the previous step are kept, not judged
    again. That is most of a greedy turn's second Move step."""
    global _last_plans
    seen = _unplaced(observation, seat)
    last = _last_plans
    kept = last[1] if last is not None and last[0] == seen else {}
    plans = {}
    for tile in world.city.tiles:
        found = kept.get(tile)
        plans[tile] = found if found is not None and not found.drew else plan(at_tile(world, seat, tile), seat, 2)
    _last_plans = (seen, plans)
    return plans


def _unplaced(observation: Game, seat: int) -> Game:
    """The observation less what no tile plan looks at: the figure's tile, the steps left and
    the version."""
    assert observation.turn is not None
    return copy_with(at_tile(observation, seat, ""), turn=copy_with(observation.turn, steps=0), version=0)


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
        plans = tile_plans(observation, world, seat)

        def worth(tile: str) -> float:
            return reach_worth(plans[tile].gain, distances[tile], turn.steps, flit is not None)

        target = max(world.city.tiles, key=lambda t: (worth(t), t == here, -distances[t]))
        if worth(target) > 0 and target != here:
            if distances[target] > turn.steps and flit:
                return cmd.FlyFigure(seat, flit, target)
            if turn.steps > 0:
                return cmd.Move(seat, step_towards(world, here, target))
        action = plans[here].first  # best_action(world, seat): the plan here is the same look-ahead
    else:
        _, action = best_action(world, seat)
    if action is not None and not turn.relocated:
        return action
    return cmd.EndTurn(seat, discards(world, seat))
