"""The MCTS bot: information-set Monte Carlo tree search over the bot's own turn.

Each iteration samples a world consistent with the bot's observation (``determinize``), walks
the tree of its own commands this turn choosing by UCB1 among those legal in that world,
adds one node, finishes the turn with a quick default policy (walk to the best tile still in
reach, contribute greedily there, then the Reset), and scores the end of the turn with
``judge`` (``heuristic.value``, cards in hand weighed lower) plus its ``Outlook``: what the
cards it kept could gain next turn on the tiles it can then reach. So it plans two turns where
greedy plans one, and weighs what greedy never plays (dragons, Hoax payments, Flit 2, Pillar
offerings). The most visited first command is played.
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
from ..state import Game, Phase, Turn, copy_with
from . import greedy
from .heuristic import value
from .observation import determinize

EXPLORE = 3.0  #: UCB1 exploration constant, in heuristic value units
BIAS = 4.0  #: weight of the progressive bias (the immediate score) in selection
MAX_DEPTH = 12  #: commands in one simulated turn before the Reset is forced
POTENTIAL = 0.7  #: weight of where the figure is heading (one turn later, as greedy discounts)
LOOK_AHEAD = 1  #: commands greedy looks ahead when valuing a tile for next turn
#: Cards in hand per point of value. Lower than greedy's 0.25: hands grow to 20-40 cards, so
#: turning cards into crystals now beats keeping them (measured: docs/bots.md).
CARD_VALUE = 0.1


def judge(state: Game, seat: int) -> float:
    """The search's yardstick: ``heuristic.value`` with cards at ``CARD_VALUE``."""
    return value(state, seat, CARD_VALUE)


@dataclass
class Node:
    visits: int = 0
    total: float = 0.0
    available: int = 0
    prior: float = 0.0  #: the command's immediate score, relative to the best sibling
    children: dict[cmd.Command, Node] = field(default_factory=dict)
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
                found.append(
                    cmd.Contribute(seat, site.building, index, cards, None if space.colour else colour.value, hoax)
                )
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


class Outlook:
    """What the cards kept at the end of a searched turn could gain next turn: greedy's
    value of each tile, seen from where the figure stopped (``greedy.reach_worth``). It is
    computed with the hand left after this turn's payments, so that a card spent now is not
    counted again as next turn's promise. Tile values are cached for one decision by the
    tile, the hand, the markers left and the site's markers (or, at the Courtyard, the
    crystals and the obelisk); where dragons stand is deliberately not part of the key."""

    def __init__(self) -> None:
        self.gains: dict[tuple[object, ...], float] = {}

    def gain(self, state: Game, seat: int, tile: str) -> float:
        p = state.players[seat]
        site = state.sites.get(tile)
        # The dragons are left out of the key on purpose: with them, the outlook's scales made
        # the search chase dragon moves, and it lost far more often (measured: docs/bots.md).
        key = (tile, p.hand, p.markers, site.markers if site else (p.crystals, state.obelisk))
        if key not in self.gains:
            self.gains[key] = greedy.tile_value(state, seat, tile, LOOK_AHEAD, judge)
        return self.gains[key]

    def potential(self, before_end: Game, seat: int, discards: tuple[str, ...], final: Game) -> float:
        """The best tile's worth next turn, for the hand kept after ``discards``."""
        if final.finished:
            return 0.0
        kept = tuple(c for c in before_end.players[seat].hand if c not in discards)
        players = tuple(copy_with(p, hand=kept) if p.seat == seat else p for p in final.players)
        turn = Turn(seat=seat)
        next_turn = copy_with(final, players=players, turn=turn)
        flit = any(CARDS[c].colour is Colour.GREY and CARDS[c].value == 1 for c in kept)
        here = final.players[seat].position
        return max(
            (
                greedy.reach_worth(self.gain(next_turn, seat, tile), d, turn.steps, flit)
                for tile, d in final.city.distances[here].items()
            ),
            default=0.0,
        )


def my_turn(state: Game, seat: int) -> bool:
    """Whether ``seat`` is still to play in ``state`` (the game goes on, the turn is its own)."""
    return not state.finished and state.turn is not None and state.turn.seat == seat


def walk_to_best(state: Game, seat: int, outlook: Outlook) -> Game:
    """Walk to the tile within the steps left that promises most (the outlook's cached
    gains), so that a first step is judged by where it leads, not by standing still."""
    turn = state.turn
    if not my_turn(state, seat):
        return state
    assert turn is not None
    if turn.phase is not Phase.MOVEMENT or turn.relocated or turn.steps <= 0:
        return state
    here = state.players[seat].position
    distances = state.city.distances[here]
    reach = [t for t, d in distances.items() if d <= turn.steps]
    target = max(reach, key=lambda t: (outlook.gain(state, seat, t), t == here, -distances[t]))
    while here != target:
        here = greedy.step_towards(state, here, target)
        state = greedy.apply(state, cmd.Move(seat, here))
    return state


def _finish_turn(state: Game, seat: int, outlook: Outlook) -> tuple[Game, tuple[str, ...], Game]:
    """The default policy: walk to the best tile in reach, contribute greedily there, then
    the Reset. Returns the state before the Reset, the cards discarded, and the state after it."""
    state = walk_to_best(state, seat, outlook)
    for _ in range(MAX_DEPTH):
        if not my_turn(state, seat):
            return state, (), state
        _, action = greedy.best_action(state, seat, judge)
        if action is None or state.turn.relocated:  # type: ignore[union-attr]
            break
        state = greedy.apply(state, action)
    if not my_turn(state, seat):
        return state, (), state
    discards = greedy.discards(state, seat)
    return state, discards, greedy.apply(state, cmd.EndTurn(seat, discards))


def _priors(state: Game, seat: int, legal: list[cmd.Command], outlook: Outlook) -> dict[cmd.Command, float]:
    """Each command's score right after it, minus the best one's (so the best is 0)."""
    scores: dict[cmd.Command, float] = {}
    for c in legal:
        after = greedy.apply(state, c)
        if isinstance(c, cmd.EndTurn):
            scores[c] = turn_score(state, c.discards, after, seat, outlook)
        else:
            scores[c] = turn_score(after, (), after, seat, outlook)
    top = max(scores.values())
    return {c: v - top for c, v in scores.items()}


def turn_score(before_end: Game, discards: tuple[str, ...], final: Game, seat: int, outlook: Outlook) -> float:
    """My position at the end of the turn, plus where my figure can head with what I kept."""
    return judge(final, seat) + POTENTIAL * outlook.potential(before_end, seat, discards, final)


def choose(
    observation: Game, seat: int, rng: random.Random, budget: float = 0.2, iterations: int | None = None
) -> cmd.Command:
    """Search for ``budget`` seconds (or exactly ``iterations`` iterations)."""
    root = Node()
    first = candidates(observation, seat)
    if len(first) == 1:
        return first[0]  # nothing to weigh: the Reset with greedy's discards
    deadline = time.perf_counter() + budget
    outlook = Outlook()
    done = 0
    while (done < iterations) if iterations is not None else (done == 0 or time.perf_counter() < deadline):
        done += 1
        state = determinize(observation, rng)
        node = root
        path = [root]
        ended: tuple[Game, tuple[str, ...], Game] | None = None
        for _ in range(MAX_DEPTH):
            if not my_turn(state, seat):
                break
            legal = candidates(state, seat)
            if node.priors is None:
                node.priors = _priors(state, seat, legal, outlook)
            for c in legal:
                if c in node.children:
                    node.children[c].available += 1
            untried = [c for c in legal if c not in node.children]
            if untried:
                command = max(untried, key=lambda c: node.priors.get(c, -1e9))  # type: ignore[union-attr]
                child = Node(available=1, prior=node.priors.get(command, -10.0))
                node.children[command] = child
                node = child
            else:
                node, command = max(((node.children[c], c) for c in legal), key=lambda nc: nc[0].ucb(nc[0].available))
            path.append(node)
            after = greedy.apply(state, command)
            if isinstance(command, cmd.EndTurn):
                ended = (state, command.discards, after)
            state = after
            if untried:
                break
        if ended is None:
            ended = _finish_turn(state, seat, outlook)
        reward = turn_score(*ended, seat, outlook)
        for n in path:
            n.visits += 1
            n.total += reward
    best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total / max(kv[1].visits, 1)))
    return best[0]
