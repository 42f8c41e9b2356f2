"""No bot may stall a game: every level plays whole games in every edition and setting, a
bot after a Main Hall move only ends its turn, and a refusal survives pickling (RQ, pools)."""

from __future__ import annotations

import pickle
import random

import pytest

from domain import (
    Edition,
    IllegalCommand,
    Options,
    decide,
    evolve,
    fold,
    legal_commands,
    new_game,
)
from domain import commands as cmd
from domain.bots import LEVELS, choose, greedy
from tests.situations import arrange, explicit_game, play

MAX_TURNS = 400


def after_a_main_hall_move():
    g = explicit_game(3, expansion=True)
    g = arrange(g, 0, position="main_hall", crystals=9, hand=("red-1a", "red-3a", "red-3b", "red-2a", "blue-3a"))
    g, _ = play(g, cmd.Contribute(0, "main_hall", 0, ("red-1a",), colour="red"), cmd.UseAction(0, "earth_temple"))
    assert g.turn.relocated  # at the Earth Temple with red cards that could pay it, were it allowed
    return g


@pytest.mark.parametrize("level", ["random", "greedy", "mcts", "planner", "expert"])
def test_after_a_main_hall_move_every_bot_ends_its_turn_instead_of_raising(level):
    g = after_a_main_hall_move()
    assert list(greedy.candidates(g, 0)) == []  # only the Reset is left (R13)
    chosen = choose(g, 0, level, random.Random(1), iterations=30)
    assert isinstance(chosen, cmd.EndTurn) and chosen in legal_commands(g, 0)


@pytest.mark.parametrize("edition, expansion", [(Edition.CLASSIC, False), (Edition.CMON, False), (Edition.CMON, True)])
@pytest.mark.parametrize("players", [2, 3, 4])  # the expansion exists for the CMON edition only
def test_every_bot_level_plays_a_whole_game_without_an_exception(edition, expansion, players):
    levels = sorted(LEVELS)
    rnd = random.Random(f"{edition.value}-{expansion}-{players}")
    state = fold(new_game(Options(players, edition, expansion), rnd.randbytes(32)))
    while not state.finished and state.turn.number <= MAX_TURNS:
        seat = state.turn.seat
        level = levels[(seat + state.turn.number) % len(levels)]
        command = choose(state, seat, level, rnd, iterations=12)
        for event in decide(state, command):  # a refused command raises here
            state = evolve(state, event)
    assert state.finished or state.turn.number > MAX_TURNS


def test_a_refusal_survives_pickling_with_its_code_detail_and_field():
    error = IllegalCommand("relocated", "after the Main Hall's move only the Reset is left", "type")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.code, copy.detail, copy.field, str(copy)) == (
        IllegalCommand,
        "relocated",
        "after the Main Hall's move only the Reset is left",
        "type",
        str(error),
    )
