"""`bluemoon-simulate` gives each level its own budget unless ``--budget`` names one: the
planner's cap is 0.5 s, mcts's search 0.2 s (a single default of 0.2 used to cap the planner
too). The bots are replaced by recorders; nothing is played beyond a turn."""

from __future__ import annotations

import random

import pytest

from cli import bluemoon_simulate as simulate
from domain.bots import PLANNER_BUDGET, expert, greedy, mcts, planner
from domain.commands import Command
from domain.state import Game


def _budgets(argv: list[str]) -> list[float]:
    """The budgets the planner, the expert and mcts were given while the command ran."""
    seen: list[float] = []

    def recorder(observation: Game, seat: int, rng: random.Random, budget: float, **_: object) -> Command:
        seen.append(budget)
        return greedy.choose(observation, seat, rng)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(planner, "choose", recorder)
        patch.setattr(mcts, "choose", recorder)
        patch.setattr(expert, "choose", recorder)
        assert simulate.main(["--games", "1", "--players", "2", "--workers", "1", "--max-turns", "2", *argv]) == 0
    return seen


def test_the_planner_keeps_its_own_cap_when_no_budget_is_given() -> None:
    assert set(_budgets(["--levels", "planner,greedy"])) == {PLANNER_BUDGET}


def test_the_expert_keeps_the_planners_cap_when_no_budget_is_given() -> None:
    assert set(_budgets(["--levels", "expert,greedy"])) == {PLANNER_BUDGET}


def test_mcts_keeps_its_own_budget_when_none_is_given() -> None:
    assert set(_budgets(["--levels", "mcts,greedy"])) == {0.2}


def test_a_given_budget_applies_to_both() -> None:
    assert set(_budgets(["--levels", "planner,mcts", "--budget", "0.05"])) == {0.05}
