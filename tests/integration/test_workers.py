"""Real worker processes (`bluemoon-worker`: RQ's worker and the outbox dispatcher) on the
real Redis: bots play on their own; a worker and its work-horse killed with SIGKILL mid-turn
cost one lease, after which the turn resumes and is played exactly once; a hand-off that
fails after the append, or a dispatcher that dies after its claim, loses nothing."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from application.background.handoff import CallbackHandoff
from application.background.rq_handoff import RQHandoff
from application.games.game_service import SeatSpec
from application.wiring import build
from domain import Options
from domain.options import Layout
from domain.peoples import CANONICAL_DECK
from events.outbox import Outbox
from tests.support.workers import Workers, assert_each_bot_command_applied_once_at_its_version, gone, wait_until


@pytest.fixture
def queue_name():
    return f"test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def service(redis_url, queue_name):
    client = redis.Redis.from_url(redis_url)
    yield build(client=client, handoff=RQHandoff(client, queue=queue_name)).service
    client.close()


@pytest.fixture
def workers(redis_url, queue_name):
    w = Workers(redis_url, queue_name)
    yield w
    w.stop_all()


def test_one_human_and_three_bots_reach_the_humans_turn_by_themselves(service, workers):
    created = service.create(
        Options(4),
        [
            SeatSpec("human"),
            SeatSpec("bot", level="greedy"),
            SeatSpec("bot", level="random"),
            SeatSpec("bot", level="greedy"),
        ],
        first_player=1,
    )
    workers.start()
    state = wait_until(lambda: (s := service.state(created.game)).turn.seat == 0 and s, 60, "the human's turn")
    assert state.turn.number == 4
    actors = [s.actor for s in service.store.read(created.game) if s.type == "TurnEnded"]
    assert actors == ["bot:greedy", "bot:random", "bot:greedy"]


def test_a_game_of_four_bots_plays_to_its_end(service, workers):
    created = service.create(Options(4), [SeatSpec("bot", level="greedy") for _ in range(4)])
    workers.start()
    workers.start()
    state = wait_until(lambda: (s := service.state(created.game)).finished and s, 400, "the end of the game")
    assert state.result.reason.value in ("offerings", "rebuilt", "draw", "stalemate")  # P16 ends bot standoffs
    assert_each_bot_command_applied_once_at_its_version(service, created.game)


def slow_bot_game(service) -> str:
    """Seat 1, a greedy bot, starts with eight red cards next to the Earth Temple: it walks there
    and contributes several times, so its turn takes several commands."""
    reds = ["red-3a", "red-3b", "red-3c", "red-2a", "red-2b", "red-2c", "red-1a", "red-1b"]
    rest = [c for c in CANONICAL_DECK if c not in reds]
    deck = rest[:8] + reds + rest[8:]
    grid_state = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")])  # any standard grid
    grid = dict(service.state(grid_state.game).city.placement)
    return service.create(
        Options(2, layout=Layout.EXPLICIT),
        [SeatSpec("human"), SeatSpec("bot", level="greedy")],
        grid=grid,
        deck=deck,
        first_player=1,
    ).game


@pytest.mark.slow
def test_a_worker_and_its_horse_killed_mid_turn_cost_one_lease_then_the_turn_is_played_once(service, workers):
    """Slow: the killed job's 10 s lease must run out."""
    game = slow_bot_game(service)
    slow = workers.start(BOT_STEP_DELAY="1.5")

    def bot_has_moved():
        return [s for s in service.store.read(game) if s.actor == "bot:greedy"]

    wait_until(bot_has_moved, 30, "the bot's first command")
    assert not [s for s in service.store.read(game) if s.type == "TurnEnded"], "still mid-turn"
    horse = workers.kill_with_horse(slow)
    killed_at, mid_turn = time.monotonic(), service.store.version(game)
    time.sleep(2)
    assert service.store.version(game) == mid_turn and gone(horse)
    workers.start()  # what bluemoon's supervisor does when a worker exits
    state = wait_until(lambda: (s := service.state(game)).turn.seat == 0 and s, 30, "the turn to resume and end")
    assert time.monotonic() - killed_at < 30
    assert [s.type for s in service.store.read(game)].count("TurnEnded") == 1
    assert service.store.version(game) > mid_turn
    assert_each_bot_command_applied_once_at_its_version(service, game)
    assert state.turn.number == 2


class FailingHandOff:
    """A turn queue whose enqueue fails, as if RQ's Redis call broke right after the append."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, ticket) -> None:
        self.calls += 1
        raise ConnectionError("enqueue failed after the append")


@pytest.mark.slow
def test_a_hand_off_that_fails_after_the_append_still_gets_the_bot_turn_played_once(redis_url, workers):
    """Slow: the failed hand-off's 10 s lease must run out."""
    client = redis.Redis.from_url(redis_url)
    failing = FailingHandOff()
    service = build(client=client, handoff=CallbackHandoff(failing)).service
    created = service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0)
    assert failing.calls == 1  # the fault happened: the append stood, the enqueue did not
    assert service.store.outbox_entry(created.game) is not None
    workers.start()
    state = wait_until(lambda: (s := service.state(created.game)).turn.seat == 1 and s, 30, "the bot's turn")
    assert state.turn.number == 2
    assert [s.actor for s in service.store.read(created.game) if s.type == "TurnEnded"] == ["bot:greedy"]
    assert_each_bot_command_applied_once_at_its_version(service, created.game)
    client.close()


@pytest.mark.slow
def test_a_dispatcher_that_dies_between_its_claim_and_the_enqueue_loses_nothing(redis_url, workers):
    """Slow: the dead dispatcher's 10 s lease must run out."""
    client = redis.Redis.from_url(redis_url)
    service = build(client=client).service  # appends write the outbox; nobody hands on
    created = service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0)
    claims = Outbox(client).claim(created.game)  # a dispatcher claims the turn ... and dies here
    assert [c.name for c in claims] == [created.game] and Outbox(client).claim(created.game) == []  # leased
    workers.start()
    state = wait_until(lambda: (s := service.state(created.game)).turn.seat == 1 and s, 30, "the bot's turn")
    assert [s.actor for s in service.store.read(created.game) if s.type == "TurnEnded"] == ["bot:greedy"]
    assert_each_bot_command_applied_once_at_its_version(service, created.game)
    assert state.turn.number == 2
    client.close()
