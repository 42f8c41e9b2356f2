"""greedy is the yardstick of the bot ratings and the strength benchmarks: making it faster
must not change a single choice. Whole greedy games on fixed seeds, hashed event by event,
against the hashes recorded before its look-ahead and the heuristic were sped up (slow: a few
seconds a game)."""

from __future__ import annotations

import hashlib
import random

import pytest

from domain import Options, decide, evolve, fold, new_game
from domain.bots import greedy, observe

RECORDED = [
    (2, False, 11, "4b4d2de8a0252ec4c5a732576656178c28a29e9d6de8b3c773eb7aa886af078f"),
    (3, True, 12, "9ee16ccd8238bb19d7fc2813ffab8751b92fbc70108d169e6d374f76d8f17939"),
]


@pytest.mark.slow
@pytest.mark.parametrize("players, expansion, seed, recorded", RECORDED)
def test_greedy_plays_the_same_game_as_before(players, expansion, seed, recorded):
    game = fold(new_game(Options(players, expansion=expansion), seed.to_bytes(8, "big")))
    digest = hashlib.sha256()
    while not game.finished:
        seat = game.turn.seat
        command = greedy.choose(observe(game, seat), seat, random.Random(f"{seed}:{game.version}"))
        for event in decide(game, command):
            digest.update(repr(event).encode())
            game = evolve(game, event)
    assert digest.hexdigest() == recorded
