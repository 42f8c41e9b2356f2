"""greedy's shortcuts must not change a plan: the tile plans it keeps from one Move step to the
next (greedy.tile_plans), the leaves it judges once (greedy._leaf) and the colours of one payment
it judges once."""

from __future__ import annotations

import random

import pytest

from domain import Edition, Options, fold, new_game
from domain.bots import greedy, mcts, observe
from domain.bots.heuristic import value
from domain.bots.observation import determinize
from domain.commands import Contribute, UseAction
from domain.decide import decide_and_apply
from domain.state import Phase, copy_with

GAMES = [Options(2), Options(3, expansion=True), Options(4, edition=Edition.CLASSIC)]


def judged_afresh(world, seat):
    return {tile: greedy.plan(greedy.at_tile(world, seat, tile), seat, 2) for tile in world.city.tiles}


@pytest.mark.parametrize("options", GAMES, ids=lambda o: f"{o.players}p-{o.edition.value}-{o.expansion}")
def test_kept_plans_are_the_plans_judged_afresh(options):
    """Every Move step of greedy games: each tile's plan, kept or not, equals a fresh judgement
    in this step's world, dealt anew (a kept plan that drew a card would not)."""
    game = fold(new_game(options, b"plans"))
    steps = kept = 0
    while game.turn.number <= 12 * options.players and not game.finished:
        seat = game.turn.seat
        observation = observe(game, seat)
        rng = f"{game.version}:{seat}"
        if game.turn.phase is Phase.MOVEMENT and game.turn.steps > 0:
            world = determinize(observation, random.Random(rng))
            before = greedy._last_plans
            plans = greedy.tile_plans(observation, world, seat)
            assert plans == judged_afresh(world, seat)
            assert plans[game.players[seat].position][:2] == greedy.best_action(world, seat)
            steps += 1
            kept += before is not None and any(plans[t] is before[1].get(t) for t in plans)
            greedy._last_plans = before  # choose below sees what it would have seen
        game = decide_and_apply(game, greedy.choose(observation, seat, random.Random(rng)))[1]
    assert steps > 2 * options.players and kept > 0


def test_the_second_move_step_judges_again_only_tiles_whose_plan_drew(monkeypatch):
    game = fold(new_game(Options(2), b"plans", first_player=0))
    seat = 0
    first = greedy.choose(observe(game, seat), seat, random.Random(1))
    assert game.turn.steps == 2 and type(first).__name__ == "Move"
    drew = [t for t, p in greedy._last_plans[1].items() if p.drew]
    game = decide_and_apply(game, first)[1]
    judged = []
    real = greedy.plan
    monkeypatch.setattr(
        greedy, "plan", lambda state, seat, depth, *a: judged.append(depth) or real(state, seat, depth, *a)
    )
    greedy.choose(observe(game, seat), seat, random.Random(2))
    assert judged.count(2) == len(drew) < len(game.city.tiles)


def plain(state, seat, depth, judge):
    """greedy's look-ahead as first written: every plan applied and judged to its end."""
    if depth == 0 or state.finished:
        return 0.0, None
    base, best = judge(state, seat), (0.0, None)
    for c in greedy.candidates(state, seat):
        if isinstance(c, UseAction) and c.to is not None:
            continue
        after = greedy.apply(state, c)
        gain = judge(after, seat) - base + plain(after, seat, depth - 1, judge)[0]
        if gain > best[0]:
            best = (gain, c)
    return best


@pytest.mark.parametrize("options", GAMES, ids=lambda o: f"{o.players}p-{o.edition.value}-{o.expansion}")
def test_a_plan_is_the_plain_look_ahead_with_either_judge(options):
    """plan judges a leaf that two contributions reach in either order once; the plan must be
    the one every leaf judged would give, at every tile, for greedy's judge and mcts's."""
    game = fold(new_game(options, b"leaves"))
    rng = random.Random(3)
    while game.turn.number <= 6 * options.players:
        seat = game.turn.seat
        if game.turn.phase is Phase.MOVEMENT and game.turn.steps == 2:
            world = determinize(observe(game, seat), rng)
            for tile in world.city.tiles:
                here = greedy.at_tile(world, seat, tile)
                for judge in (value, mcts.judge):
                    assert greedy.plan(here, seat, 2, judge)[:2] == plain(here, seat, 2, judge)
        game = decide_and_apply(game, greedy.choose(observe(game, seat), seat, rng))[1]


def test_the_same_cards_on_an_any_colour_space_are_judged_once_whatever_the_colour(monkeypatch):
    """Khind (green) cards pay the Royal Palace's any-colour spaces as any colour, the same
    cards each time: the state after keeps no colour, so plan judges one of them."""
    game = fold(new_game(Options(2), b"colours", first_player=0))
    players = list(game.players)
    players[0] = copy_with(players[0], position="royal_palace", hand=("green-1a", "green-2a", "green-3a", "green-3b"))
    here = copy_with(game, players=tuple(players))
    contributions = [c for c in greedy.candidates(here, 0) if isinstance(c, Contribute)]
    assert len({c.colour for c in contributions}) > 1
    applied = []
    real = greedy.apply
    monkeypatch.setattr(greedy, "apply", lambda state, c: applied.append(c) or real(state, c))
    greedy.plan(here, 0, 1)
    assert sorted((c.space, c.cards) for c in applied) == sorted({(c.space, c.cards) for c in contributions})
