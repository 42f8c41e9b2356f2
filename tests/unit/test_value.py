"""The value model's contract: probabilities of finishing first, judged on what the seat sees;
the shipped model as trained (its version, its calibration against the heuristic's) and its
training reproducible."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest

from cli import train_value
from domain.bots.features import NAMES, OWN, seat_features
from domain.bots.observation import determinize, observe
from domain.bots.value import MODEL_PATH, MODEL_VERSION, ValueModel, win_probabilities
from domain.evolve import fold
from domain.options import Options
from domain.setup import new_game
from domain.state import EndReason, Result, copy_with

#: Seeds far from every recipe's in docs/bots.md: games no shipped model was trained or measured on.
UNSEEN = 5_000_000


@pytest.fixture(scope="module")
def unseen_game():
    """A quick game on an unseen seed: three greedy seats, the expansion."""
    return train_value.play(train_value.Job(UNSEEN, ("greedy",) * 3, "cmon", True, 400))


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


def test_a_finished_game_is_certain_and_winners_share_first_place():
    state = fold(new_game(Options(3), random.Random(3).randbytes(32)))
    over = copy_with(state, result=Result(EndReason.OFFERINGS, (0, 2)))
    assert win_probabilities(over, 1) == (0.5, 0.0, 0.5)


def test_the_shipped_model_is_the_one_its_version_names():
    document = json.loads(MODEL_PATH.read_text())
    assert document["version"] == MODEL_VERSION and MODEL_PATH == train_value.DEFAULT_OUT
    weights = {k: document[k] for k in ("features", "hidden_weights", "hidden_bias", "hidden_out", "linear")}
    digest = hashlib.sha256(json.dumps(weights, sort_keys=True).encode()).hexdigest()[:10]
    assert f"mlp{len(document['hidden_bias'])}-{digest}" == MODEL_VERSION
    assert document["recipe"]["training_seeds"][1] < UNSEEN and document["recipe"]["held_out_seeds"][1] < UNSEEN
    assert document["training"]["seed"] == 0 and document["command"].startswith("bluemoon-train-value")
    assert MODEL_PATH.stat().st_size < 200_000


def test_a_model_of_other_features_is_refused():
    document = json.loads(MODEL_PATH.read_text())
    with pytest.raises(ValueError, match="other features"):
        ValueModel({**document, "features": document["features"][:-1]})


def test_the_same_position_gets_the_same_chances(unseen_game):
    state = next(train_value.sampled_positions(unseen_game, 0.5, random.Random(1)))
    first = [win_probabilities(state, seat) for seat in range(state.options.players)]
    assert [win_probabilities(state, seat) for seat in range(state.options.players)] == first
    assert len({round(sum(c), 12) for c in first}) == 1


def test_a_seat_knows_its_own_crystals_and_cards_only(unseen_game):
    state = next(train_value.sampled_positions(unseen_game, 0.5, random.Random(1)))
    rows = seat_features(observe(state, 1), 1)
    assert len(rows) == state.options.players and all(len(row) == len(NAMES) for row in rows)
    private = [OWN.index(name) for name in ("viewer", "crystals", "card_points", "can_offer")]
    for seat, row in enumerate(rows):
        if seat != 1:
            assert all(row[i] == 0.0 for i in private)
    assert rows[1][OWN.index("viewer")] == 1.0


@pytest.mark.slow
def test_the_shipped_model_is_better_calibrated_than_the_heuristic_on_unseen_games():
    """Slow (about 10 s): it plays 18 games of the recipe's mix (2-4 players, both editions,
    the expansion; greedy and planner), enough positions for the two Brier scores to differ by
    more than the noise."""
    document = json.loads(MODEL_PATH.read_text())
    games = [train_value.play(job) for job in train_value.recipe(UNSEEN, 18)]
    data = train_value.dataset(games, 0.5, seed=0)
    result = train_value.calibration(train_value.net_from_document(document), document["baseline_temperature"], data)
    assert result["games"] == 18 and result["positions"] > 600
    assert result["model"]["brier"] < result["baseline"]["brier"]


def test_training_is_deterministic_given_its_seed(unseen_game):
    data = train_value.dataset([unseen_game], 0.3, seed=0)
    first, again = (train_value.fit(data, hidden=4, seed=11, epochs=3) for _ in range(2))
    other = train_value.fit(data, hidden=4, seed=12, epochs=3)
    for name in ("w", "b", "v", "u"):
        assert np.array_equal(getattr(first, name), getattr(again, name))
    assert not np.array_equal(first.w, other.w)
    assert train_value.fit_temperature(data) == train_value.fit_temperature(data)
