"""Each seat's crystals as the table counts them (``Player.counted``): the true total in a
game from the drawn opening, computed from nothing another seat cannot see."""

from __future__ import annotations

import random

import pytest

from domain import Edition, Options, decide, evolve, fold, new_game
from domain import events as ev
from domain.bots import choose
from domain.views import redact


@pytest.mark.parametrize("players,edition,expansion", [(2, Edition.CLASSIC, False), (4, Edition.CMON, True)])
def test_the_count_is_every_seats_crystals_and_uses_only_public_parts(players, edition, expansion):
    paid = set()
    for seed in range(6):
        rnd = random.Random(seed)
        game = fold(new_game(Options(players, edition, expansion), seed.to_bytes(8, "big")))
        while not game.finished and game.turn.number <= 300:
            command = choose(game, game.turn.seat, "greedy", rnd)  # greedy offers; random play seldom does
            for e in decide(game, command):
                if isinstance(e, (ev.Rewarded, ev.ScalesScored, ev.OfferingMade)):
                    paid.add(type(e).__name__)
                    stranger = next(s for s in range(players) if getattr(e, "seat", None) != s)
                    seen = evolve(game, redact(e, stranger))  # as another seat folds it
                    game = evolve(game, e)
                    assert [p.counted for p in seen.players] == [p.counted for p in game.players]
                else:
                    game = evolve(game, e)
                assert [p.counted for p in game.players] == [p.crystals for p in game.players]
    assert paid == {"Rewarded", "ScalesScored", "OfferingMade"}, "the games paid and spent crystals"
