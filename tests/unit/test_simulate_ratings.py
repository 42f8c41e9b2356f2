"""`bluemoon-simulate --ratings`: the levels' ratings are openskill's own numbers for the games'
finishing orders, a chained run continues from the earlier file, and only finished games with
each level in one seat count. Tiny greedy-vs-random games, in this process (``--workers 1``)."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest
from openskill.models import PlackettLuce

from cli import bluemoon_simulate as simulate
from cli.bluemoon_simulate import GameResult, LevelRating, rate_games


def _simulate(argv: list[str], played: list[GameResult]) -> None:
    """Run the command as the shell would, keeping the games it played."""

    play = simulate.play_one

    def play_and_keep(job: tuple[int, tuple[str, ...], str, bool, float, int | None, int]) -> GameResult:
        played.append(play(job))
        return played[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulate, "play_one", play_and_keep)
        assert simulate.main(argv) == 0


@pytest.fixture(scope="module")
def chained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Two games rated into one file, then two more (seeds 2 and 3) chained onto it."""
    folder = tmp_path_factory.mktemp("ratings")
    first, second = folder / "first.json", folder / "second.json"
    tiny = ["--players", "2", "--levels", "greedy,random", "--workers", "1"]
    argv_first = ["--games", "2", *tiny, "--ratings", str(first)]
    argv_second = ["--games", "2", "--seed", "2", *tiny, "--ratings", str(second), "--ratings-from", str(first)]
    games_first: list[GameResult] = []
    games_second: list[GameResult] = []
    _simulate(argv_first, games_first)
    _simulate(argv_second, games_second)
    return {
        "first": json.loads(first.read_text()),
        "second": json.loads(second.read_text()),
        "argv": (argv_first, argv_second),
        "games": (games_first, games_second),
    }


def _openskill_over(games: list[GameResult]) -> dict[str, tuple[float, float, int]]:
    """The oracle: the library itself, fed each finished game's places in seed order."""
    model = PlackettLuce()
    ratings = {level: model.rating() for level in ("greedy", "random")}
    counted = dict.fromkeys(ratings, 0)
    for game in sorted(games, key=lambda g: g.seed):
        if not game.finished:
            continue
        assert all(game.places[w] == 1 for w in game.winners)
        updated = model.rate([[ratings[level]] for level in game.levels], ranks=list(game.places))
        for level, [rating] in zip(game.levels, updated):
            ratings[level] = rating
            counted[level] += 1
    return {level: (r.mu, r.sigma, counted[level]) for level, r in ratings.items()}


def _written(data: dict[str, Any]) -> dict[str, tuple[float, float, int]]:
    return {level: (r["mu"], r["sigma"], int(r["games"])) for level, r in data["levels"].items()}


def test_the_ratings_written_are_openskills_own_numbers(chained):
    games, _ = chained["games"]
    assert [g.seed for g in sorted(games, key=lambda g: g.seed)] == [0, 1]
    assert any(g.finished for g in games)
    assert chained["first"]["model"] == "openskill PlackettLuce, defaults"
    assert _written(chained["first"]) == _openskill_over(games)
    assert chained["first"]["levels"]["greedy"]["mu"] != 25.0


def test_a_chained_run_continues_from_the_earlier_file(chained):
    first, second = chained["games"]
    assert _written(chained["second"]) == _openskill_over(first + second)
    assert chained["second"]["runs"] == [shlex.join(["bluemoon-simulate", *argv]) for argv in chained["argv"]]


def test_unfinished_games_are_not_rated(tmp_path):
    path = tmp_path / "ratings.json"
    played: list[GameResult] = []
    _simulate(["--games", "2", "--workers", "1", "--max-turns", "1", "--ratings", str(path)], played)
    assert played and not any(g.finished for g in played)
    start = PlackettLuce().rating()
    assert _written(json.loads(path.read_text())) == {
        "greedy": (start.mu, start.sigma, 0),
        "random": (start.mu, start.sigma, 0),
    }


def _game(seed: int, levels: tuple[str, ...], finished: bool, places: tuple[int, ...]) -> GameResult:
    return GameResult(seed, levels, (), 30, finished, "offerings", {}, {}, 0, places)


def test_games_are_rated_in_seed_order_whatever_order_they_come_back_in():
    """A pool of workers hands games back as they end; the same games must give the same ratings."""
    games = [_game(0, ("greedy", "random"), True, (1, 2)), _game(1, ("random", "greedy"), True, (1, 2))]
    games += [_game(2, ("greedy", "random"), True, (1, 1)), _game(3, ("random", "greedy"), True, (2, 1))]
    shuffled: dict[str, LevelRating] = {}
    assert rate_games(shuffled, [games[2], games[0], games[3], games[1]]) == (4, 0)
    assert {level: (r.mu, r.sigma, r.games) for level, r in shuffled.items()} == _openskill_over(games)


def test_games_with_a_level_in_several_seats_are_skipped_and_unfinished_ones_ignored():
    ratings = {"greedy": LevelRating(30.0, 5.0, 7)}
    games = [_game(0, ("random", "random"), True, (1, 2)), _game(1, ("greedy", "random"), False, ())]
    assert rate_games(ratings, games) == (0, 1)
    assert ratings == {"greedy": LevelRating(30.0, 5.0, 7)}


def test_a_forgotten_level_is_rated_afresh_from_the_games_that_follow(chained, tmp_path):
    """``--forget random``: the chained file's random starts at openskill's prior again and is
    rated against greedy's earlier rating, which stays as it was."""
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps(chained["first"]))
    out = tmp_path / "out.json"
    tiny = ["--players", "2", "--levels", "greedy,random", "--workers", "1"]
    argv = ["--games", "2", "--seed", "2", *tiny, "--ratings", str(out), "--ratings-from", str(earlier)]
    played: list[GameResult] = []
    _simulate([*argv, "--forget", "random"], played)
    written = json.loads(out.read_text())["levels"]
    assert written["random"]["games"] == sum(g.finished for g in played)  # its earlier games forgotten
    assert written["greedy"] == chained["first"]["levels"]["greedy"]  # held as it stood
    model = PlackettLuce()
    greedy, random_level = chained["first"]["levels"]["greedy"], model.rating()
    for game in sorted(played, key=lambda g: g.seed):
        if game.finished:
            teams = {"greedy": [model.rating(mu=greedy["mu"], sigma=greedy["sigma"])], "random": [random_level]}
            updated = model.rate([teams[level] for level in game.levels], ranks=list(game.places))
            random_level = updated[game.levels.index("random")][0]
    assert (written["random"]["mu"], written["random"]["sigma"]) == (random_level.mu, random_level.sigma)
    with pytest.raises(SystemExit):
        simulate.main(["--games", "1", *tiny, "--forget", "random"])  # nothing to forget from
