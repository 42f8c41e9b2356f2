"""The whole service (`bluemoon`) through faults of its parts: Redis down for 10 s, the
embedded redis-server killed, a child that keeps failing."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis

from cli.bluemoon import Child, supervise
from events.embedded import EmbeddedRedis, free_port
from tests.e2e.conftest import against_greedy, call
from tests.support.workers import assert_each_bot_command_applied_once_at_its_version, gone, wait_until


def raw(base: str, path: str) -> tuple[int, dict[str, str], dict]:
    """GET ``path``: status, headers and JSON body, whatever the status."""
    try:
        with urllib.request.urlopen(base + path, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def _end_turn(base: str, game: str, token: str, version: int, key: str) -> tuple[int, dict]:
    """The seat's Reset with no discards, at ``version``, under the idempotency key ``key``."""
    return call(
        base,
        "POST",
        f"/games/{game}/commands",
        {"type": "end_turn", "discards": []},
        token=token,
        headers={"If-Match": f'"{version}"', "Idempotency-Key": key},
    )


class Reader:
    """Reads a game from Redis directly, as an auditor would."""

    def __init__(self, url: str) -> None:
        from application.wiring import build

        self.service = build(url).service


@pytest.fixture
def redis_server(tmp_path):
    """Starts the test's own Redis (again, on the same port and files, after an outage); each
    one is stopped at the end, whatever the test did, so that a failure leaves none running."""
    started: list[EmbeddedRedis] = []
    port = free_port()

    def start() -> EmbeddedRedis:
        started.append(EmbeddedRedis(tmp_path / "outage-redis", port=port))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.mark.slow
@pytest.mark.own_store  # a Redis of its own, to take away and bring back
def test_a_10_s_redis_outage_answers_503_then_everything_recovers_with_nothing_lost_or_doubled(
    start_service, redis_server
):
    """Slow: it stops Redis for 10 s and waits for the service to heal."""
    server = redis_server()
    port = server.port
    base = start_service(REDIS_URL=server.url, BOT_STEP_DELAY="1")
    created = against_greedy(base)
    game, token = created["game"], created["seats"][0]["token"]
    status, played = _end_turn(base, game, token, created["version"], "ana-1")
    assert status == 200
    acknowledged = played["version"]
    reader = Reader(server.url)
    wait_until(lambda: reader.service.store.version(game) > acknowledged, 30, "the bot's first command")
    time.sleep(1.2)  # past the append-only file's one-second fsync

    server.stop()
    try:
        redis.Redis(port=port, socket_connect_timeout=1).ping()
        raise AssertionError("Redis still answers")
    except redis.ConnectionError:
        pass  # the outage is real
    down_at = time.monotonic()
    status, headers, body = raw(base, f"/games/{game}")
    assert status == 503 and headers["Content-Type"] == "application/problem+json", body
    assert int(headers["Retry-After"]) > 0 and body["code"] == "unavailable"
    status, headers, body = raw(base, "/readyz")
    assert status == 503 and headers["Content-Type"] == "application/problem+json"
    time.sleep(max(0.0, 10 - (time.monotonic() - down_at)))

    server = redis_server()  # Redis returns, its append-only file replayed
    back_at = time.monotonic()
    wait_until(lambda: raw(base, "/readyz")[0] == 200, 30, "/readyz to recover")
    view = wait_until(
        lambda: (v := raw(base, f"/games/{game}"))[0] == 200 and v[2]["turn"]["seat"] == 0 and v[2],
        30,
        "the bot's turn to be played after the outage",
    )
    assert time.monotonic() - back_at < 30
    reader = Reader(server.url)
    stored = reader.service.store.read(game)
    assert len(stored) >= acknowledged  # nothing acknowledged was lost
    assert [s.actor for s in stored if s.type == "TurnEnded"] == ["0", "bot:greedy"]  # nor doubled
    assert_each_bot_command_applied_once_at_its_version(reader.service, game)
    status, again = _end_turn(base, game, token, view["version"], "ana-2")
    assert status == 200 and again["view"]["turn"]["seat"] == 1


@pytest.mark.slow
@pytest.mark.own_store  # a Redis of its own, to take away and bring back
def test_web_workers_started_again_while_redis_is_down_boot_and_answer_503(start_service, redis_server):
    """Slow: gunicorn starts a worker again whenever one dies. One started while Redis is down
    must boot and answer 503 problems: a worker that fails to load the app makes gunicorn stop
    altogether (its port refuses connections, and bluemoon, restarting it into the same outage,
    gives up after --give-up tries)."""
    server = redis_server()
    base = start_service(REDIS_URL=server.url)
    status, created = call(base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert status == 201
    time.sleep(1.2)  # past the append-only file's one-second fsync
    master = next(p for p in _children(start_service.started[-1].pid) if "gunicorn" in _cmdline(Path(f"/proc/{p}")))
    killed = _children(master)
    assert len(killed) == 2
    assert len(list(Path(f"/proc/{master}/task").iterdir())) == 1  # no control socket's thread

    server.stop()
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    booted = wait_until(
        lambda: len(fresh := set(_children(master)) - set(killed)) == 2 and fresh, 30, "gunicorn to start two workers"
    )
    status, headers, body = wait_until(
        lambda: (answer := raw(base, f"/games/{created['game']}"))[0] == 503 and answer, 30, "a 503 from a new worker"
    )
    assert headers["Content-Type"] == "application/problem+json" and body["code"] == "unavailable"
    assert raw(base, "/readyz")[0] == 503
    assert _children(start_service.started[-1].pid).count(master) == 1  # the same gunicorn, never stopped
    assert set(_children(master)) == booted  # and its new workers stayed up

    redis_server()  # Redis returns
    wait_until(lambda: raw(base, "/readyz")[0] == 200, 30, "/readyz to recover")
    status, _, view = raw(base, f"/games/{created['game']}")
    assert status == 200 and view["version"] == created["version"]


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.slow
@pytest.mark.own_store  # the embedded Redis, which the supervisor restarts
def test_bluemoon_restarts_a_killed_embedded_redis_server_and_its_games_survive(start_service, tmp_path):
    """Slow: it kills the embedded redis-server and waits for the supervisor's restart."""
    base = start_service()
    status, created = call(base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    game = created["game"]
    time.sleep(1.2)  # past the append-only file's one-second fsync
    port = (tmp_path / "redis-0" / "embedded.port").read_text().strip()
    pid = next(
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit()
        and _cmdline(p).startswith("/")
        and "redis-server" in _cmdline(p)
        and f":{port}" in _cmdline(p)
    )
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: gone(pid), 30, "redis-server to die")
    wait_until(lambda: raw(base, "/readyz")[0] == 200, 20, "Redis to be restarted by bluemoon")
    status, _, view = raw(base, f"/games/{game}")
    assert status == 200 and view["version"] == created["version"]


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.slow
def test_the_supervisor_restarts_with_back_off_and_gives_up_with_status_1(caplog):
    """Slow: it waits out the supervisor's back-off between restarts."""
    failing = Child("failing", [sys.executable, "-c", "raise SystemExit(3)"])
    with caplog.at_level(logging.INFO, logger="bluemoon.run"):
        started = time.monotonic()
        assert supervise([failing], dict(os.environ), give_up=3, stopping=[]) == 1
    restarts = [r.getMessage() for r in caplog.records if "restarting in" in r.getMessage()]
    assert all(m.startswith("failing exited with status 3") for m in restarts)
    assert [m.rsplit("restarting in ", 1)[1] for m in restarts] == ["0.5 s", "1.0 s", "2.0 s"]
    assert "giving up" in caplog.records[-1].getMessage()
    assert time.monotonic() - started >= 3.5  # 0.5 + 1 + 2 s of back-off
