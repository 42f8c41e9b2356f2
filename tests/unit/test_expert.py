"""The expert level: legal in every edition, never past its budget, the same again in a replay,
and steered by the value model's chance of finishing first."""

from __future__ import annotations

import random

import pytest

from domain import Edition, decide
from domain import commands as cmd
from domain.bots import LEVELS, PLANNER_BUDGET, choose, expert, greedy, mcts
from domain.bots.observation import observe
from domain.state import copy_with
from tests.support.bot_states import SETTINGS, SteppingClock, a_state_with_many_plans, states
from workers.turn_jobs import BUDGETS


@pytest.mark.slow
@pytest.mark.parametrize("edition, expansion", SETTINGS)
def test_every_expert_decision_is_legal_in_every_edition(edition, expansion):
    """Six turns a setting, some 30 decisions at up to 0.5 s each (the whole-game robustness
    tests play the expert too, uncapped)."""
    asked = 0
    for state in states(2, edition, expansion, seed=1, turns=6):
        decide(state, choose(state, state.turn.seat, "expert", random.Random(asked)))  # raises if refused
        asked += 1
    assert asked > 6


def test_the_expert_stops_at_its_budget_even_in_the_middle_of_a_plan():
    state, seat = a_state_with_many_plans()
    budget = 0.5
    clock = SteppingClock(tick=0.01)
    command = expert.choose(observe(state, seat), seat, random.Random(0), budget=budget, clock=clock)
    cap = clock.readings[1] + expert.CAP_SHARE * budget  # its first reading starts the decision
    over = [t for t in clock.readings if t > cap]
    assert over == [over[0]]  # read once past the cap, and then no more work
    decide(state, command)
    slow = SteppingClock(tick=1.0)  # past the cap at the first valuation
    command = expert.choose(observe(state, seat), seat, random.Random(0), budget=budget, clock=slow)
    assert isinstance(command, cmd.EndTurn) and len(slow.readings) <= 4
    decide(state, command)


def test_an_uncapped_expert_chooses_the_same_again_and_weighs_every_plan(monkeypatch):
    state, seat = a_state_with_many_plans()
    first = choose(state, seat, "expert", random.Random(7), iterations=1)
    assert choose(state, seat, "expert", random.Random(7), iterations=1) == first
    refined = []
    monkeypatch.setattr(expert.Expert, "deeper_score", lambda self, w, c: refined.append(c) or 0.0)
    choose(state, seat, "expert", random.Random(7), iterations=1)
    assert len(refined) == expert.WORLDS * expert.REFINE  # the refinement ran in every world


def test_the_expert_plays_for_its_chance_of_finishing_first(monkeypatch):
    """With the value model saying that only ending the turn at once wins, and its weight
    overwhelming, the expert ends its turn where the planner would not (the model's weight is
    0 by default: docs/bots.md)."""
    state, seat = a_state_with_many_plans()
    assert not isinstance(choose(state, seat, "planner", random.Random(0), iterations=1), cmd.EndTurn)
    ended_at_once = greedy.apply(state, cmd.EndTurn(seat, greedy.discards(state, seat))).version

    def odds(final, judged_seat):
        only_reset = final.turn is not None and final.turn.seat != seat and final.version == ended_at_once
        return tuple(float(only_reset and s == judged_seat) for s in range(final.options.players))

    monkeypatch.setattr(expert.value_model, "win_probabilities", odds)
    monkeypatch.setattr(expert, "MODEL_CHANCE", 10_000.0)
    monkeypatch.setattr(expert, "REPLY", 0.0)  # the odds above read the end of the expert's own turn
    assert isinstance(choose(state, seat, "expert", random.Random(0), iterations=1), cmd.EndTurn)


def test_the_worker_records_the_experts_cap_in_its_commands_meta():
    assert set(BUDGETS) == set(LEVELS) and BUDGETS["expert"] == PLANNER_BUDGET


def test_the_expert_judges_its_best_plans_after_the_others_next_turns(monkeypatch):
    """The refined plans' ends are judged again once every other seat has played its next
    turn by the default policy, in the same worlds: the state judged is the expert's next turn."""
    state, seat = a_state_with_many_plans()
    judged_after_replies = []
    reply_score = expert.Expert.reply_score

    def recording(self, world, first):
        score = self.score
        self.score = lambda before_end, discards, final: (
            judged_after_replies.append(final) or score(before_end, discards, final)
        )
        try:
            return reply_score(self, world, first)
        finally:
            del self.score

    monkeypatch.setattr(expert.Expert, "reply_score", recording)
    monkeypatch.setattr(expert, "REPLY", 1.0)  # 0 by default: docs/bots.md
    choose(state, seat, "expert", random.Random(7), iterations=1)
    assert len(judged_after_replies) == expert.WORLDS * min(expert.REFINE, expert.REPLIES)
    assert all(final.turn.seat == seat and final.turn.number == state.turn.number + 2 for final in judged_after_replies)


def a_four_player_race():
    """The first position of a four-player game in which some seat is one offering from winning
    and the seat to play has more first commands than the expert refines."""
    return next(
        s
        for s in states(4, Edition.CMON, False, seed=3, turns=400)
        if expert.racing(s) and len(mcts.candidates(s, s.turn.seat)) > expert.REFINE
    )


def test_in_the_race_the_replies_are_each_other_seats_turn_as_the_planner_plays_it_from_its_own_view(monkeypatch):
    """``RACE``: once some seat of a game of four is one offering from winning, each other seat's
    next turn in each world is the planner's choices, each from that seat's observation of the
    world (the expert's hand hidden from it), every other seat in turn; before the race, and in
    games of two, none."""
    asked = []
    real = expert.planner.choose

    def recording(observation, chooser, rng, **caps):
        asked.append((chooser, set(observation.players[seat].hand)))
        return real(observation, chooser, rng, **caps)

    monkeypatch.setattr(expert.planner, "choose", recording)
    monkeypatch.setattr(expert, "RACE", 1.0)
    state = a_four_player_race()
    seat = state.turn.seat
    choose(state, seat, "expert", random.Random(7), iterations=1)
    assert {chooser for chooser, _ in asked} == {0, 1, 2, 3} - {seat}
    assert all(hand == {"?"} for _, hand in asked)

    for state, seat in (a_state_with_many_plans(), *((s, s.turn.seat) for s in [_before_the_race()])):
        asked.clear()
        choose(state, seat, "expert", random.Random(7), iterations=1)
        assert asked == []


def _before_the_race():
    return next(s for s in states(4, Edition.CMON, False, seed=3, turns=400) if s.turn.number == 40)


def test_the_experts_worlds_give_other_seats_the_crystals_the_table_counted_never_their_hidden_total(
    monkeypatch,
):
    state, seat = a_state_with_many_plans()
    rival = (seat + 1) % state.options.players
    players = list(state.players)
    players[rival] = copy_with(players[rival], crystals=99, counted=7)  # 99 hidden, 7 counted in public
    state = copy_with(state, players=tuple(players))
    dealt = []
    real = expert.determinize
    monkeypatch.setattr(expert, "determinize", lambda seen, rng: dealt.append(real(seen, rng)) or dealt[-1])
    choose(state, seat, "expert", random.Random(3), iterations=1)
    assert len(dealt) == expert.WORLDS
    assert {world.players[rival].crystals for world in dealt} == {7}
    assert {world.players[seat].crystals for world in dealt} == {state.players[seat].crystals}
    monkeypatch.setattr(expert, "COUNT", False)
    dealt.clear()
    choose(state, seat, "expert", random.Random(3), iterations=1)
    assert {world.players[rival].crystals for world in dealt} == {0}
