"""Real `rq worker` processes on the real Redis: bots play on their own, and a worker killed
with SIGKILL mid-turn leads, after RQ's retry, to exactly one move for that turn."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import redis
from rq import Queue

from domain import Options
from domain.options import Layout
from domain.peoples import CANONICAL_DECK
from service.bootstrap import build
from service.games import SeatSpec
from tests.unit.test_jobs import assert_each_bot_command_applied_once_at_its_version
from workers.queueing import RQTurns


@pytest.fixture
def queue_name():
    return f"test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def service(redis_url, queue_name):
    client = redis.Redis.from_url(redis_url)
    yield build(client=client, on_turn=RQTurns(client, queue=queue_name)).service
    client.close()


class Workers:
    """Start and stop `rq worker` processes as an operator would."""

    def __init__(self, url: str, queue: str) -> None:
        self.url, self.queue, self.procs = url, queue, []

    def start(self, **env: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rq.cli", "worker", "--with-scheduler", "--url", self.url, "--quiet", self.queue],
            env={**os.environ, "REDIS_URL": self.url, **env}, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker and its work-horse, no goodbye
        proc.wait()

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def workers(redis_url, queue_name):
    w = Workers(redis_url, queue_name)
    yield w
    w.stop_all()


def wait_until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_one_human_and_three_bots_reach_the_humans_turn_by_themselves(service, workers):
    created = service.create(
        Options(4), [SeatSpec("human"), SeatSpec("bot", level="greedy"), SeatSpec("bot", level="random"), SeatSpec("bot", level="greedy")],
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
    assert state.result.reason.value in ("offerings", "rebuilt", "draw")
    assert_each_bot_command_applied_once_at_its_version(service, created.game)


def test_a_worker_killed_mid_turn_leads_to_exactly_one_move_after_the_retry(service, workers, redis_url, queue_name):
    # Seat 1, a greedy bot, starts with eight red cards next to the Earth Temple: it walks there
    # and contributes several times, so its turn takes several commands.
    reds = ["red-3a", "red-3b", "red-3c", "red-2a", "red-2b", "red-2c", "red-1a", "red-1b"]
    rest = [c for c in CANONICAL_DECK if c not in reds]
    deck = rest[:8] + reds + rest[8:]
    grid_state = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")])  # any standard grid
    grid = dict(service.state(grid_state.game).city.placement)
    created = service.create(
        Options(2, layout=Layout.EXPLICIT), [SeatSpec("human"), SeatSpec("bot", level="greedy")],
        grid=grid, deck=deck, first_player=1,
    )
    slow = workers.start(BOT_STEP_DELAY="1.5")

    def bot_has_moved():
        return [s for s in service.store.read(created.game) if s.actor == "bot:greedy"]

    wait_until(bot_has_moved, 30, "the bot's first command")
    assert not [s for s in service.store.read(created.game) if s.type == "TurnEnded"], "still mid-turn"
    workers.kill(slow)
    mid_turn = service.store.version(created.game)

    client = redis.Redis.from_url(redis_url)
    queue = Queue(queue_name, connection=client)
    workers.start()
    # RQ notices an abandoned job once its heartbeat lapses (about a minute); run the same
    # maintenance step now with the clock moved past that point.
    wait_until(lambda: queue.started_job_registry.get_job_ids(), 5, "the abandoned job in the registry")
    queue.started_job_registry.cleanup(timestamp=time.time() + 3600)
    state = wait_until(lambda: (s := service.state(created.game)).turn.seat == 0 and s, 60, "the retried turn to end")
    stored = service.store.read(created.game)
    assert [s.type for s in stored].count("TurnEnded") == 1
    assert service.store.version(created.game) > mid_turn
    assert_each_bot_command_applied_once_at_its_version(service, created.game)
    assert state.turn.number == 2
    client.close()
