"""Bots see only their seat's view: hidden information never changes their choices."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from domain import Options, decide, evolve, fold, new_game
from domain.bots import choose, observe
from domain.bots.observation import determinize
from domain.peoples import CARDS


def a_midgame(seed: int = 5):
    rnd = random.Random(seed)
    state = fold(new_game(Options(3), b"bots"))
    while state.turn.number < 9:
        for e in decide(state, choose(state, state.turn.seat, "greedy", rnd)):
            state = evolve(state, e)
    return state


def hidden_changed(state, seat: int):
    """The same game but for what ``seat`` cannot see: another hand and the deck reshuffled."""
    other = (seat + 1) % state.options.players
    pool = list(state.players[other].hand) + list(state.deck)
    random.Random(99).shuffle(pool)
    n = len(state.players[other].hand)
    players = list(state.players)
    players[other] = replace(players[other], hand=tuple(pool[:n]), crystals=players[other].crystals + 7)
    return replace(state, players=tuple(players), deck=tuple(pool[n:]), seed="ff" * 32)


def test_the_observation_ignores_hidden_information():
    state = a_midgame()
    seat = state.turn.seat
    changed = hidden_changed(state, seat)
    assert changed != state and changed.players[(seat + 1) % 3].hand != state.players[(seat + 1) % 3].hand
    assert observe(changed, seat) == observe(state, seat)
    assert observe(state, seat).seed != state.seed


@pytest.mark.parametrize("level", ["random", "greedy", "mcts", "planner", "expert"])
def test_a_bots_choices_depend_only_on_its_own_view(level):
    state = a_midgame()
    seat = state.turn.seat
    changed = hidden_changed(state, seat)
    for trial in range(8 if level not in ("mcts", "expert") else 3):
        a = choose(state, seat, level, random.Random(trial), iterations=40)
        b = choose(changed, seat, level, random.Random(trial), iterations=40)
        assert a == b
        decide(state, a)  # raises if the rules refuse it


def test_a_determinized_world_is_consistent_with_the_observation():
    state = a_midgame()
    seat = state.turn.seat
    world = determinize(observe(state, seat), random.Random(1))
    cards = list(world.deck) + list(world.discard) + [c for p in world.players for c in p.hand + p.aside]
    assert len(cards) == 80 and set(cards) == set(CARDS)
    assert world.players[seat].hand == state.players[seat].hand
    assert [len(p.hand) for p in world.players] == [len(p.hand) for p in state.players]


@pytest.mark.parametrize("level", ["random", "greedy", "mcts", "planner", "expert"])
def test_every_bot_choice_is_accepted_by_the_rules(level):
    rnd = random.Random(2)
    state = fold(new_game(Options(2, expansion=True), b"legal-bots"))

    for _ in range(40 if level != "mcts" else 12):
        if state.finished:
            break
        command = choose(state, state.turn.seat, level, rnd, iterations=20)
        for e in decide(state, command):
            state = evolve(state, e)


def test_mcts_outlook_counts_only_the_cards_kept():
    """Next turn's promise is valued with the hand left after this turn: a card spent (or
    discarded) now cannot pay for next turn's contribution as well."""
    from domain.bots.mcts import Outlook

    state = a_midgame()
    seat = state.turn.seat
    me = state.players[seat]
    broke = replace(state, players=tuple(replace(p, crystals=0) if p.seat == seat else p for p in state.players))
    outlook = Outlook()
    with_hand = outlook.potential(broke, seat, (), broke)
    without_hand = outlook.potential(broke, seat, me.hand, broke)
    assert with_hand > 0
    assert without_hand == 0  # no cards and no crystals: nothing to contribute or offer
    assert outlook.potential(broke, seat, me.hand[:2], broke) <= with_hand + 1e-9  # float sums


def test_mcts_default_policy_walks_to_where_its_cards_pay():
    """A simulated turn that starts with steps left walks to a tile where the hand can
    contribute, instead of ending where it stands (which made standing still look as good)."""
    from domain.bots.mcts import Outlook, _finish_turn
    from domain.catalogue import BUILDINGS

    state = fold(new_game(Options(2), b"walk"))
    seat = state.turn.seat
    here = state.players[seat].position
    near = next(
        b
        for b, d in state.city.distances[here].items()
        if d == 2 and b in state.sites and all(s.colour for s in BUILDINGS[b].spaces)
    )
    wanted = {s.colour for s in BUILDINGS[near].spaces}
    hand = tuple(c for c in sorted(CARDS) if CARDS[c].colour in wanted and CARDS[c].value == 3)
    players = tuple(replace(p, hand=hand) if p.seat == seat else p for p in state.players)
    state = replace(state, players=players)

    before_end, _, _ = _finish_turn(state, seat, Outlook())
    me = before_end.players[seat]
    assert state.city.distances[here][me.position] >= 1
    assert me.markers < 10 or me.crystals > 0  # it contributed where it went


def test_two_greedy_bots_in_a_standoff_end_in_a_stalemate():
    """With this seed both greedy bots reach five offerings and 9 crystals with the last building
    one space from done; whoever completes it hands the other the sixth offering, so neither
    does. They walked and drew for thousands of turns; ruling P16 ends the game 10 rounds after
    the last contribution, shared, as both have as many offerings and crystals."""
    rnd = random.Random(5)
    state = fold(new_game(Options(2), (5).to_bytes(32, "big")))
    built_at = 0
    while not state.finished:
        assert state.turn.number < 200, "the game did not end"
        for e in decide(state, choose(state, state.turn.seat, "greedy", rnd)):
            state = evolve(state, e)
            built_at = state.turn.number if type(e).__name__ in ("ContributionMade", "OfferingMade") else built_at
    assert state.result.reason.value == "stalemate" and state.result.winners == (0, 1)
    assert [p.offerings for p in state.players] == [5, 5] and state.turn.number - built_at == 20


def _stalemate_moves():
    """Seed 5's greedy standoff (see above), recorded as the audit reads a log: the opening,
    then each command with the events it decided and the version it was decided at."""
    from domain.audit import Move

    rnd = random.Random(5)
    opening = new_game(Options(2), (5).to_bytes(32, "big"))
    state, moves = fold(opening), [Move(None, tuple(opening), 1)]
    while not state.finished:
        command = choose(state, state.turn.seat, "greedy", rnd)
        events = tuple(decide(state, command))
        moves.append(Move(command, events, state.version + 1, state.version))
        state = fold(events, state)
    return moves


def test_a_stalemate_is_audited_by_the_rules_the_game_was_created_under():
    """The log of a game ended by P16 verifies; the same log claiming rules 1 (before P16)
    fails at its GameEnded, which under those rules its last command does not decide."""
    from dataclasses import replace as copy

    from domain.audit import Move, audit
    from domain.events import GameCreated

    moves = _stalemate_moves()
    events = [e for m in moves for e in m.events]
    assert all(c.ok for c in audit(events, moves)), [c for c in audit(events, moves) if not c.ok]
    created = copy(events[0], rules=1)
    assert isinstance(created, GameCreated)
    old = [Move(None, (created, *moves[0].events[1:]), 1), *moves[1:]]
    judged = {c.name: c for c in audit([created, *events[1:]], old)}
    assert not judged["rejudged"].ok and f"event {len(events)}:" in judged["rejudged"].detail  # GameEnded
