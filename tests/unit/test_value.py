"""The value model's contract: probabilities of finishing first, judged on what the seat sees."""

from __future__ import annotations

import random

import pytest

from domain.bots.observation import determinize, observe
from domain.bots.value import win_probabilities
from domain.evolve import fold
from domain.options import Options
from domain.setup import new_game
from domain.state import copy_with


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_chances_sum_to_one_and_do_not_depend_on_what_the_seat_cannot_see(players):
    state = fold(new_game(Options(players), random.Random(players).randbytes(32)))
    chances = win_probabilities(state, 0)
    assert len(chances) == players and sum(chances) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in chances)
    dealt = determinize(observe(state, 0), random.Random(7))  # the others' hands dealt anew
    other_world = copy_with(dealt, unseen=(), seed=state.seed)
    assert other_world.players[1].hand != state.players[1].hand
    assert win_probabilities(other_world, 0) == chances
