"""The review of a finished game (issue 40, items 3 and 4): the same numbers however often and
wherever it is computed, refused before the end, and costs, chances and lucks that mean what
they say."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections import Counter
from contextlib import redirect_stdout
from dataclasses import replace

import pytest

from cli.review import main as review_command
from domain import Options, decide, evolve, fold, new_game
from domain import events as ev
from domain.bots import choose
from domain.bots.observation import observe
from domain.bots.value import MODEL_VERSION
from domain.commands import Move, TakeBack
from domain.review import NotReviewable, review_game, review_seed
from domain.review.decisions import judge_turn
from domain.review.luck import drawn_instead
from domain.review.replay import replay
from domain.review.review import METHOD
from events.serialization import payload
from tests.support.review_games import short_opening


def play(opening: list[ev.Event], level: str, seed: int) -> list[ev.Event]:
    """Bots play ``opening`` on to the end."""
    events, state, rnd = list(opening), fold(opening), random.Random(seed)
    while not state.finished:
        for e in decide(state, choose(state, state.turn.seat, level, rnd)):
            state = evolve(state, e)
            events.append(e)
    return events


def short_game(seed: int = 5) -> list[ev.Event]:
    """Two greedy bots from a position four offerings each into the game, with 20 crystals:
    a whole game (moves, contributions, draws, offerings, the end) in about 90 events."""
    return play(short_opening(seed), "greedy", seed)


@pytest.fixture(scope="module")
def game() -> list[ev.Event]:
    return short_game()


@pytest.fixture(scope="module")
def reviewed(game) -> dict:
    return review_game(game, samples=1)


def turn_at(events: list[ev.Event], version: int) -> int:
    return fold(events[:version]).turn.number


def log_of(events: list[ev.Event], clock: set[int] = frozenset()) -> dict:
    """The document ``GET /games/{game}/log`` serves for these events; the commands decided at
    the versions in ``clock`` were played by the clock (their actor ``deadline:pass``)."""
    decided_at = {}
    for d in replay(events).decisions if clock else ():
        for version in range(d.version + 1, len(events) + 1):
            decided_at[version] = d.version
    docs = [
        {
            "seq": i + 1,
            "type": type(e).__name__,
            "data": payload(e),
            "actor": "deadline:pass" if decided_at.get(i + 1) in clock else "player",
            "meta": {"version": decided_at[i + 1]} if i + 1 in decided_at else {},
        }
        for i, e in enumerate(events)
    ]
    return json.loads(json.dumps({"game": "g", "seed": events[0].seed, "events": docs}))


def test_a_review_is_the_same_computed_twice_and_through_the_command(game, reviewed, tmp_path):
    assert review_game(game, samples=1) == reviewed
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log_of(game)))
    out = io.StringIO()
    with redirect_stdout(out):
        assert review_command([str(path), "--samples", "1"]) == 0
    assert json.loads(out.getvalue()) == reviewed
    seed = bytes.fromhex(game[0].seed)
    assert reviewed["seed"] == review_seed(seed, MODEL_VERSION) != review_seed(seed, "another-model")
    assert (reviewed["model"], reviewed["version"], reviewed["samples"]) == (MODEL_VERSION, len(game), 1)
    assert reviewed["method"] == METHOD == 2  # a Reset's discards costed: tests/unit/test_review_turn_costs.py


def test_an_unfinished_game_is_refused_for_its_seed_is_not_revealed(game, tmp_path):
    events = game
    with pytest.raises(NotReviewable, match="not ended"):
        review_game(events[:-1])
    redacted = [replace(events[0], seed=None), *events[1:]]
    with pytest.raises(NotReviewable, match="seed"):
        review_game(redacted)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log_of(events[:-1])))
    assert review_command([str(path)]) == 2


def test_a_tampered_log_is_refused_not_reviewed(game):
    events = game
    at = next(i for i, e in enumerate(events) if isinstance(e, ev.FigureMoved))
    tampered = [*events[:at], replace(events[at], to="nowhere"), *events[at + 1 :]]
    with pytest.raises(NotReviewable, match=f"event {at + 1}"):
        review_game(tampered)


def test_chances_costs_and_lucks_mean_what_they_say(game, reviewed):
    events, review = game, reviewed
    players = len(review["seats"])
    by_version: dict[int, list[float]] = {}
    for seat in review["seats"]:
        assert [p["version"] for p in seat["curve"]] == list(range(1, len(events) + 1))
        for point in seat["curve"]:
            assert 0.0 <= point["chance"] <= 1.0
            by_version.setdefault(point["version"], []).append(point["chance"])
        assert seat["decisions"] >= 0
        costs = [m["cost"] for m in seat["mistakes"]]
        assert all(c > 0 for c in costs) and costs == sorted(costs, reverse=True) and len(costs) <= 3
        turns = [turn_at(events, m["version"]) for m in seat["mistakes"]]
        assert len(set(turns)) == len(turns)  # one a turn
        assert seat["luck"] == pytest.approx(sum(d["luck"] for d in seat["draws"]), abs=1e-3)
    winners = events[-1].winners
    assert by_version[len(events)] == [1.0 if s in winners else 0.0 for s in range(players)]
    assert sum(by_version[len(events)]) == 1.0


def test_a_turn_is_costed_whole_and_never_below_zero(game):
    """Each turn is judged once, as a plan: its cost is never negative, and some turns have a
    better plan than the one played."""
    found = replay(game)
    turns: dict[tuple[int, int], list] = {}
    for d in found.decisions:
        turns.setdefault((d.seat, d.state.turn.number), []).append(d)
    costly = 0
    for played in turns.values():
        dealers = [random.Random(f"{played[0].version}/{i}") for i in range(4)]
        judged = judge_turn(played[0].state, [d.command for d in played], dealers, limit=3)
        assert judged.cost >= 0
        costly += judged.cost > 0
    assert costly > 0


def test_random_seats_give_away_more_than_planner_seats():
    """From one seeded position, the random bot's turns cost more than the planner's, and the
    planner's totals stay under 0.5 (costed per command they read 1.3 to 5.9)."""
    planner = review_game(play(short_opening(7), "planner", 7), samples=4, candidates=4)
    rnd = review_game(play(short_opening(7), "random", 7), samples=4, candidates=4)
    planner_costs = [s["decisions"] for s in planner["seats"]]
    random_costs = [s["decisions"] for s in rnd["seats"]]
    assert max(planner_costs) < 0.5
    assert min(random_costs) > max(planner_costs)


def test_a_command_taken_back_is_not_reviewed():
    events = short_opening()
    state = fold(events)
    seat = state.turn.seat
    to = sorted(state.city.neighbours[state.players[seat].position])[0]
    for command in (Move(seat, to), TakeBack(seat)):
        for e in decide(state, command):
            state = evolve(state, e)
            events.append(e)
    events = play(events, "greedy", 5)
    game = replay(events)
    assert [(d.version, d.command, d.undone) for d in game.decisions[:2]] == [
        (len(short_opening()), Move(seat, to), True),
        (len(short_opening()) + 1, TakeBack(seat), False),
    ]
    assert not any(d.undone for d in game.decisions[2:])
    mistakes = review_game(events, samples=1)["seats"][seat]["mistakes"]
    assert all(m["version"] != len(short_opening()) for m in mistakes)


def test_an_alternative_draw_swaps_cards_between_the_hand_and_the_unseen_and_loses_none(game):
    for draw in replay(game).draws:
        seen = observe(draw.after, draw.seat)
        cards = Counter(seen.unseen) + Counter(seen.players[draw.seat].hand + seen.players[draw.seat].aside)
        # one of the drawn cards kept, one taken from the deck: the overlap is where a swap goes wrong
        instead = (draw.cards[-1], *(c for c in draw.before.deck if c not in draw.cards))[: len(draw.cards)]
        world = drawn_instead(seen, draw, instead)
        mine = world.players[draw.seat]
        assert Counter(world.unseen) + Counter(mine.hand + mine.aside) == cards
        assert set(instead) <= set(mine.aside if draw.aside else mine.hand)
        assert not set(instead) & set(world.unseen)


def test_commands_the_clock_played_for_a_seat_are_not_its_decisions(game, reviewed, tmp_path):
    by_the_clock = {d.version for d in replay(game).decisions if d.seat == 0}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log_of(game, by_the_clock)))
    out = io.StringIO()
    with redirect_stdout(out):
        assert review_command([str(path), "--samples", "1"]) == 0
    seats = json.loads(out.getvalue())["seats"]
    assert (seats[0]["decisions"], seats[0]["mistakes"]) == (0, [])
    assert reviewed["seats"][0]["decisions"] > 0
    assert seats[1] == reviewed["seats"][1]


@pytest.mark.slow
def test_the_command_in_another_process_gives_a_whole_games_review_again(tmp_path):
    """A whole two-player game between greedy bots (about 440 events) reviewed in this process
    and by ``bluemoon-review`` in another one with another hash seed (set and dict orders
    differ): several seconds."""
    events = play(list(new_game(Options(2), (3).to_bytes(8, "big"))), "greedy", 3)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log_of(events)))
    done = subprocess.run(
        [sys.executable, "-m", "cli.review", str(path), "--samples", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == review_game(events, samples=1)
