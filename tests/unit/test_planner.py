"""The planner level: legal in every edition from many states, and never past its budget."""

from __future__ import annotations

import random

import pytest

from domain import Edition, decide
from domain import commands as cmd
from domain.bots import choose, planner
from domain.bots.observation import observe
from tests.support.bot_states import SETTINGS, SteppingClock, a_state_with_many_plans, states


def assert_planner_legal_throughout(players: int, edition: Edition, expansion: bool, seed: int, turns: int) -> int:
    asked = 0
    for state in states(players, edition, expansion, seed, turns):
        command = choose(state, state.turn.seat, "planner", random.Random(asked))
        decide(state, command)  # raises if the rules refuse it
        asked += 1
    return asked


@pytest.mark.parametrize("edition, expansion", SETTINGS)
def test_every_planner_decision_is_legal_in_every_edition(edition, expansion):
    assert assert_planner_legal_throughout(2, edition, expansion, seed=1, turns=30) > 30


@pytest.mark.slow
@pytest.mark.parametrize("edition, expansion", SETTINGS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_planner_decision_is_legal_over_many_games(edition, expansion, players):
    """Two whole games a setting (18 in all): random's long games with big hands make each
    decision costly, and the whole-game robustness tests play the planner too."""
    for seed in range(2):
        assert_planner_legal_throughout(players, edition, expansion, seed=100 + seed, turns=400)


def test_the_planner_stops_at_its_budget_even_in_the_middle_of_a_plan():
    """Every valuation reads the clock; once the cap has passed, the plan under way is
    dropped and the best finished one (here: none, so the Reset) is played."""
    state, seat = a_state_with_many_plans()
    budget = 0.5
    clock = SteppingClock(tick=0.01)
    command = planner.choose(observe(state, seat), seat, random.Random(0), budget=budget, clock=clock)
    cap = clock.readings[1] + budget  # its first reading starts the decision
    over = [t for t in clock.readings if t > cap]
    assert over == [over[0]]  # read once past the cap, and then no more work
    decide(state, command)
    slow = SteppingClock(tick=1.0)  # past the cap at the first valuation
    command = planner.choose(observe(state, seat), seat, random.Random(0), budget=budget, clock=slow)
    assert isinstance(command, cmd.EndTurn) and len(slow.readings) <= 4
    decide(state, command)
