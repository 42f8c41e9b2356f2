"""What a turn costs in the review (issue 40, item 3): nothing when the seat plays the review's
own best plan, something when it ends its turn at once beside a building it could have paid
into."""

from __future__ import annotations

import random

import pytest

from domain import Options, decide, evolve, fold
from domain import commands as cmd
from domain import events as ev
from domain.bots import choose, greedy
from domain.bots.planner import Clock, Planner
from domain.peoples import CANONICAL_DECK
from domain.review import review_game, review_seed
from domain.review.decisions import judge_turn
from domain.scenario import Position, scenario_game

SAMPLES, CANDIDATES = 2, 3  #: few worlds and plans: the claims hold for any number


def opening(seed: int) -> list[ev.Event]:
    """Two seats in the Courtyard with eight cards each and 20 crystals: a short whole game."""
    deck = list(CANONICAL_DECK)
    random.Random(seed).shuffle(deck)
    position = Position(
        hands=(tuple(deck[:8]), tuple(deck[8:16])),
        figures=("courtyard", "courtyard"),
        crystals=(20, 20),
        scales=(0, 0),
        obelisk=(0, 1, 0, 1, 0, 1, 0, 1),
    )
    return scenario_game(Options(2), seed.to_bytes(8, "big"), position)


def dealers(events: list[ev.Event], version: int) -> list[random.Random]:
    """The worlds the review deals for the turn begun at ``version`` (domain/review/review.py)."""
    seed = review_seed(bytes.fromhex(events[0].seed))
    return [random.Random(f"{seed}/turn/{version}/world/{i}") for i in range(SAMPLES)]


def best_plan(state, dealers: list[random.Random], monkeypatch: pytest.MonkeyPatch) -> list[cmd.Command]:  # type: ignore[no-untyped-def]
    """The review's best plan for the turn begun in ``state``, as commands: its first command,
    then the planner's default policy finishing the turn. The policy also tries commands it
    does not play, so every application is recorded and the line is read back from the end."""
    seat = state.turn.seat
    first = judge_turn(state, [cmd.EndTurn(seat)], dealers, CANDIDATES).best
    if isinstance(first, cmd.EndTurn):
        return [first]
    applied: dict[int, tuple[object, cmd.Command, object]] = {}  # id(after) -> (before, command, after)
    apply = greedy.apply

    def recording(world, command):  # type: ignore[no-untyped-def]
        after = apply(world, command)
        applied[id(after)] = (world, command, after)  # (kept: an id is unique while its object lives)
        return after

    start = apply(state, first)
    with monkeypatch.context() as patch:
        patch.setattr(greedy, "apply", recording)
        *_, end = Planner(seat, Clock(float("inf"), lambda: 0.0)).finish_turn(start)
    line: list[cmd.Command] = []
    while end is not start:
        end, command, _ = applied[id(end)]
        line.append(command)
    return [first, *reversed(line)]


def play(events: list[ev.Event], commands: list[cmd.Command]) -> None:
    state = fold(events)
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
            events.append(event)


def test_a_seat_that_plays_the_reviews_best_plan_every_turn_gives_nothing_away(monkeypatch):
    """Seat 0 plays, each turn, the plan the review itself finds best in the worlds it deals
    for that turn; greedy plays seat 1. The review then costs seat 0's turns at 0 and names
    no mistake of it."""
    events, rnd = opening(11), random.Random(11)
    while not (state := fold(events)).finished:
        seat = state.turn.seat
        if seat == 0:
            play(events, best_plan(state, dealers(events, state.version), monkeypatch))
        else:
            play(events, [choose(state, seat, "greedy", rnd)])
    review = review_game(events, samples=SAMPLES, candidates=CANDIDATES)
    mine, greedy_seat = review["seats"]
    assert (mine["decisions"], mine["mistakes"]) == (0, [])
    assert greedy_seat["decisions"] > 0  # the same review does find other play costly


def test_ending_the_turn_at_once_beside_a_building_costs_chances():
    """From the Courtyard with eight cards, a building in reach: ending the turn at once gives
    away chances the review can see, and its better command is not another Reset."""
    events = opening(11)
    state = fold(events)
    seat = state.turn.seat
    judged = judge_turn(state, [cmd.EndTurn(seat)], dealers(events, state.version), CANDIDATES)
    assert not isinstance(judged.best, cmd.EndTurn)
    assert judged.cost > 0
