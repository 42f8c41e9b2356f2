"""What a turn costs in the review (issue 40, item 3): nothing when the seat plays the review's
own best plan and discards, something when it ends its turn at once beside a building it could
have paid into, or throws its best cards away at the Reset."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from domain import commands as cmd
from domain import decide, evolve, fold
from domain import events as ev
from domain.bots import choose, greedy
from domain.bots.planner import Clock, Planner
from domain.peoples import CARDS
from domain.review import review_game, review_seed
from domain.review.decisions import judge_turn
from domain.review.discards import choices, judge_discards
from domain.state import Game
from tests.support.review_games import short_opening

SAMPLES, CANDIDATES = 2, 3  #: few worlds and plans: the claims hold for any number


def dealers(events: list[ev.Event], version: int, what: str = "turn") -> list[random.Random]:
    """The worlds the review deals for the turn begun at ``version``, or for the Reset played
    there (``what="discards"``): domain/review/review.py's."""
    seed = review_seed(bytes.fromhex(events[0].seed))
    return [random.Random(f"{seed}/{what}/{version}/world/{i}") for i in range(SAMPLES)]


def best_plan(state: Game, dealers: list[random.Random], monkeypatch: pytest.MonkeyPatch) -> list[cmd.Command]:
    """The review's best plan for the turn begun in ``state``, as commands: its first command,
    then the planner's default policy finishing the turn. The policy also tries commands it
    does not play, so every application is recorded and the line is read back from the end."""
    seat = state.turn.seat
    first = judge_turn(state, [cmd.EndTurn(seat)], dealers, CANDIDATES).best
    if isinstance(first, cmd.EndTurn):
        return [first]
    applied: dict[int, tuple[Game, cmd.Command, Game]] = {}  # id(after) -> (before, command, after)
    apply = greedy.apply

    def recording(world: Game, command: cmd.Command) -> Game:
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


def best_reset(events: list[ev.Event], state: Game) -> cmd.EndTurn:
    """The Reset the review finds best in ``state``, in the worlds it deals for it."""
    found = judge_discards(state, cmd.EndTurn(state.turn.seat), dealers(events, state.version, "discards"), CANDIDATES)
    assert isinstance(found.best, cmd.EndTurn)
    return found.best


def worst_reset(events: list[ev.Event], state: Game) -> cmd.EndTurn:
    """A Reset that throws away the hand's two most valuable cards."""
    hand = sorted(state.players[state.turn.seat].hand, key=lambda c: (CARDS[c].value, c))
    return cmd.EndTurn(state.turn.seat, tuple(hand[-2:]))


def played_by_plan(reset: Callable[[list[ev.Event], Game], cmd.EndTurn], monkeypatch: pytest.MonkeyPatch) -> dict:
    """Seat 0 plays, each turn, the plan the review itself finds best in the worlds it deals
    for that turn, then the Reset ``reset`` chooses; greedy plays seat 1. The game's review."""
    events, rnd = short_opening(11), random.Random(11)
    while not (state := fold(events)).finished:
        seat = state.turn.seat
        if seat == 0:
            plan = best_plan(state, dealers(events, state.version), monkeypatch)
            play(events, [c for c in plan if not isinstance(c, cmd.EndTurn)])
            if not (state := fold(events)).finished and state.turn.seat == 0:
                play(events, [reset(events, state)])
        else:
            play(events, [choose(state, seat, "greedy", rnd)])
    return review_game(events, samples=SAMPLES, candidates=CANDIDATES)


def test_a_seat_that_plays_the_reviews_best_plan_and_discards_every_turn_gives_nothing_away(monkeypatch):
    """The review costs the turns of a seat that plays its best plans and Resets at 0, and names
    no mistake of it; it does find the greedy seat's play costly."""
    mine, greedy_seat = played_by_plan(best_reset, monkeypatch)["seats"]
    assert (mine["decisions"], mine["mistakes"]) == (0, [])
    assert greedy_seat["decisions"] > 0


def test_a_seat_that_throws_its_best_cards_away_at_each_reset_is_costed_for_it(monkeypatch):
    """The same seat, the same best plans, but each Reset discards the two most valuable cards:
    those Resets cost chances, and a Reset is named among its mistakes with a better Reset."""
    mine, _ = played_by_plan(worst_reset, monkeypatch)["seats"]
    assert mine["decisions"] > 0
    resets = [m for m in mine["mistakes"] if m["played"]["type"] == "end_turn" and len(m["played"]["discards"]) == 2]
    assert resets and all(m["better"]["type"] == "end_turn" for m in resets)


def test_the_discards_a_reset_may_choose_are_each_kind_once():
    """None, each kind of card, each pair of kinds (two of one kind too): interchangeable cards
    are one choice."""
    hand = ("red-3a", "red-3b", "blue-1a")
    kinds = sorted(tuple(sorted(CARDS[c].kind for c in d)) for d in choices(hand))
    red, blue = CARDS["red-3a"].kind, CARDS["blue-1a"].kind
    assert kinds == sorted([(), (red,), (blue,), (red, red), tuple(sorted((red, blue)))])


def test_ending_the_turn_at_once_beside_a_building_costs_chances():
    """From the Courtyard with eight cards, a building in reach: ending the turn at once gives
    away chances the review can see, and its better command is not another Reset."""
    events = short_opening(11)
    state = fold(events)
    seat = state.turn.seat
    judged = judge_turn(state, [cmd.EndTurn(seat)], dealers(events, state.version), CANDIDATES)
    assert not isinstance(judged.best, cmd.EndTurn)
    assert judged.cost > 0
