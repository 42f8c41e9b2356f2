"""The MCTS bot: information-set Monte Carlo tree search over the bot's own turn.

Each iteration samples a world consistent with the bot's observation (``determinize``), walks
the tree of its own commands this turn choosing by UCB1 among those legal in that world,
adds one node, finishes the turn with a quick default policy (contribute greedily where it
stands, then the Reset), and scores the end of the turn with ``heuristic.value`` plus the
promise of the tiles within reach next turn. The most visited first command is played.
Budget: wall-clock seconds, or a fixed number of iterations (reproducible).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from .. import commands as cmd
from ..catalogue import BUILDINGS, COURTYARD
from ..legal import offers_and_actions
from ..payment import minimal_payments
from ..peoples import CARDS, DRAGON_OF, Colour
from ..state import Game, Phase
from . import greedy
from .heuristic import value
from .observation import determinize

EXPLORE = 3.0       #: UCB1 exploration constant, in heuristic value units
BIAS = 4.0          #: weight of the progressive bias (the immediate score) in selection
MAX_DEPTH = 12      #: commands in one simulated turn before the Reset is forced
POTENTIAL = 0.7     #: weight of where the figure is heading (one turn later, as greedy discounts)


@dataclass
class Node:
    visits: int = 0
    total: float = 0.0
    available: int = 0
    prior: float = 0.0  #: the command's immediate score, relative to the best sibling
    children: dict[cmd.Command, "Node"] = field(default_factory=dict)
    priors: dict[cmd.Command, float] | None = None

    def ucb(self, parent_available: int) -> float:
        """UCB1 plus a progressive bias towards commands that look good at once."""
        explore = EXPLORE * math.sqrt(math.log(max(parent_available, 1)) / self.visits)
        return self.total / self.visits + explore + BIAS * self.prior / (self.visits + 1)


def _hoax_payments(state: Game, seat: int) -> list[cmd.Command]:
    """Per open space, the cheapest payment that plays a Hoax (greedy never does)."""
    player = state.players[seat]
    site = state.sites.get(player.position)
    found: list[cmd.Command] = []
    if site is None or site.reconstructed or player.markers <= 0:
        return found
    if not any(CARDS[c].colour is Colour.WHITE and CARDS[c].value < 3 for c in player.hand):
        return found
    for index, space in enumerate(BUILDINGS[site.building].spaces):
        if site.markers[index] is not None:
            continue
        for colour in [space.colour] if space.colour else list(Colour):
            options = [p for p in minimal_payments(player.hand, colour, space.value) if p[1]]
            if options:
                cards, hoax = min(options, key=lambda p: (sum(CARDS[c].value for c in p[0]) + len(p[1]), p[0]))
                found.append(cmd.Contribute(seat, site.building, index, cards, None if space.colour else colour.value, hoax))
    return found


def candidates(state: Game, seat: int) -> list[cmd.Command]:
    """The commands worth searching: every kind of move, pruned to sensible variants."""
    turn = state.turn
    assert turn is not None
    player = state.players[seat]
    here = player.position
    found: list[cmd.Command] = []
    if turn.phase is Phase.MOVEMENT and not turn.relocated:
        if turn.steps > 0:
            found += [cmd.Move(seat, t) for t in state.city.neighbours[here]]
        near = [t for t, d in state.city.distances[here].items() if d <= 2]
        seen_kinds: set[tuple[Colour, int]] = set()
        for cid in sorted(player.hand):
            card = CARDS[cid]
            if card.kind in seen_kinds:
                continue
            seen_kinds.add(card.kind)
            if card.colour is Colour.GREY and card.value == 1:
                far = [t for t, d in state.city.distances[here].items() if d > turn.steps]
                found += [cmd.FlyFigure(seat, cid, t) for t in far]
            elif card.colour is Colour.GREY and card.value == 2:
                found.append(cmd.GainSteps(seat, cid))
            elif card.colour in DRAGON_OF and card.value in (1, 2):
                at = state.dragons[DRAGON_OF[card.colour]]
                if card.value == 1:
                    found += [cmd.FlyDragon(seat, cid, t) for t in near if t != at and t != COURTYARD]
                elif at is not None:
                    reach = set(state.city.within(at, 3))
                    found += [cmd.MoveDragon(seat, cid, t) for t in near if t in reach and t != COURTYARD]
    if not turn.relocated:
        found += list(greedy.candidates(state, seat)) + _hoax_payments(state, seat)
        found += [c for c in offers_and_actions(state, seat) if c not in found]
    found.append(cmd.EndTurn(seat, greedy.discards(state, seat)))
    return found


def tile_gains(observation: Game, seat: int, rng: random.Random) -> dict[str, float]:
    """What greedy contributing (or offering) at each tile could gain with the current hand:
    computed once per decision, it tells the leaves where the figure should be heading."""
    world = determinize(observation, rng)
    return {tile: greedy.tile_value(world, seat, tile) for tile in world.city.tiles}


def potential(state: Game, seat: int, gains: dict[str, float]) -> float:
    """The best tile's gain, discounted by the turns needed to reach it from where the turn
    ended (two steps a turn)."""
    here = state.players[seat].position
    best = 0.0
    for tile, gain in gains.items():
        if gain > best:
            turns = -(-max(0, state.city.distances[here][tile] - 2) // 2)
            best = max(best, gain * greedy.LATER ** turns)
    return best


def _finish_turn(state: Game, seat: int) -> Game:
    """The default policy: contribute greedily where the figure stands, then the Reset."""
    for _ in range(MAX_DEPTH):
        if state.finished or state.turn is None or state.turn.seat != seat:
            return state
        _, action = greedy.best_action(state, seat)
        command = action if action is not None and not state.turn.relocated else cmd.EndTurn(seat, greedy.discards(state, seat))
        state = greedy.apply(state, command)
    return greedy.apply(state, cmd.EndTurn(seat, ())) if not state.finished and state.turn.seat == seat else state  # type: ignore[union-attr]


def _priors(state: Game, seat: int, legal: list[cmd.Command], gains: dict[str, float]) -> dict[cmd.Command, float]:
    """Each command's score right after it, minus the best one's (so the best is 0)."""
    scores = {c: _score(greedy.apply(state, c), seat, gains) for c in legal}
    top = max(scores.values())
    return {c: v - top for c, v in scores.items()}


def _score(state: Game, seat: int, gains: dict[str, float]) -> float:
    """My position at the end of the turn, plus where my figure is heading."""
    return value(state, seat) + (0.0 if state.finished else POTENTIAL * potential(state, seat, gains))


def choose(observation: Game, seat: int, rng: random.Random, budget: float = 0.2, iterations: int | None = None) -> cmd.Command:
    """Search for ``budget`` seconds (or exactly ``iterations`` iterations)."""
    root = Node()
    deadline = time.perf_counter() + budget
    gains = tile_gains(observation, seat, rng)
    done = 0
    while (done < iterations) if iterations is not None else (done == 0 or time.perf_counter() < deadline):
        done += 1
        state = determinize(observation, rng)
        node = root
        path = [root]
        for _ in range(MAX_DEPTH):
            if state.finished or state.turn is None or state.turn.seat != seat:
                break
            legal = candidates(state, seat)
            if node.priors is None:
                node.priors = _priors(state, seat, legal, gains)
            for c in legal:
                if c in node.children:
                    node.children[c].available += 1
            untried = [c for c in legal if c not in node.children]
            if untried:
                command = max(untried, key=lambda c: node.priors.get(c, -1e9))  # type: ignore[union-attr]
                child = Node(available=1, prior=node.priors.get(command, -10.0))
                node.children[command] = child
                state = greedy.apply(state, command)
                path.append(child)
                break
            options = [(node.children[c], c) for c in legal]
            child, command = max(options, key=lambda nc: nc[0].ucb(nc[0].available))
            state = greedy.apply(state, command)
            node = child
            path.append(child)
        state = _finish_turn(state, seat)
        reward = _score(state, seat, gains)
        for n in path:
            n.visits += 1
            n.total += reward
    best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total / max(kv[1].visits, 1)))
    return best[0]
