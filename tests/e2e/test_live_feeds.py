"""The live feeds on the real server (gunicorn with the Procfile's settings, real Redis): long
polls that wait their whole wait, SSE streams that live their whole lifetime and resume,
and hundreds of concurrent watchers while the game goes on."""

from __future__ import annotations

import asyncio
import threading
import time
from urllib.parse import urlsplit

import pytest

from bench.watch import Watcher, WatcherPool
from service.live import LIFETIME_JITTER
from tests.e2e.conftest import call


def two_humans(base: str) -> tuple[str, list[str], int]:
    status, created = call(
        base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    )
    assert status == 201
    return created["game"], [s["token"] for s in created["seats"]], created["version"]


def end_turn(base: str, game: str, tokens: list[str], version: int) -> int:
    """The player to move ends the turn; returns the new version."""
    status, view = call(base, "GET", f"/games/{game}")
    seat = view["turn"]["seat"]
    status, result = call(
        base,
        "POST",
        f"/games/{game}/commands",
        {"type": "end_turn", "discards": []},
        token=tokens[seat],
        headers={"If-Match": f'"{version}"', "Idempotency-Key": f"t{version}"},
    )
    assert status == 200, result
    return result["version"]


@pytest.mark.slow
def test_a_long_poll_on_a_quiet_game_waits_its_whole_wait_then_answers_200_with_no_events(server):
    """Slow: the long poll must wait its whole `wait` to show that it does."""
    game, tokens, version = two_humans(server)
    started = time.monotonic()
    status, page = call(server, "GET", f"/games/{game}/events?after={version}&wait=8", token=tokens[0])
    waited = time.monotonic() - started
    assert status == 200, page
    assert page["events"] == [] and page["next"] == version and page["version"] == version
    assert waited >= 8.0  # longer than redis-py's default 5 s socket timeout, which used to end it in a 500


def test_a_long_poll_wakes_with_the_events_another_client_plays(server):
    game, tokens, version = two_humans(server)
    played: list[int] = []
    player = threading.Timer(1.5, lambda: played.append(end_turn(server, game, tokens, version)))
    player.start()
    status, page = call(server, "GET", f"/games/{game}/events?after={version}&wait=25", token=tokens[1])
    player.join()
    assert status == 200 and page["events"], page
    assert [e["seq"] for e in page["events"]] == list(range(version + 1, page["next"] + 1))
    assert played and page["next"] == played[0]


@pytest.mark.slow
def test_an_sse_stream_keeps_alive_for_its_lifetime_ends_cleanly_and_resumes_without_a_gap(start_service):
    """Slow: it waits out keep-alive comments and a stream's whole lifetime."""
    base = start_service(BLUEMOON_SSE_SECONDS="12", BLUEMOON_SSE_KEEPALIVE="3")
    host, port = urlsplit(base).hostname, urlsplit(base).port
    game, tokens, version = two_humans(base)
    versions = [version]

    async def scenario() -> tuple[Watcher, Watcher]:
        first = Watcher(host, port, game, tokens[0])
        task = asyncio.create_task(first.run())
        await asyncio.sleep(2)
        versions.append(await asyncio.to_thread(end_turn, base, game, tokens, versions[-1]))
        await task  # the server ends the stream after its lifetime
        # between two streams the game goes on; the resumed stream must bring exactly that
        versions.append(await asyncio.to_thread(end_turn, base, game, tokens, versions[-1]))
        second = Watcher(host, port, game, tokens[0], last_event_id=first.ids[-1])
        resumed = asyncio.create_task(second.run())
        while not second.ids or second.ids[-1] < versions[-1]:
            await asyncio.sleep(0.05)
            assert not resumed.done(), second.error
        resumed.cancel()
        return first, second

    first, second = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert first.error is None and first.ended_cleanly
    # open for its whole lifetime (12 s, less up to its jitter), past 5 s socket timeouts
    assert first.closed - first.opened >= 12.0 * (1 - LIFETIME_JITTER)
    assert first.keepalives >= 2  # 3 s of silence at least twice in 9.6 s
    assert first.in_order_once(1, versions[1])
    assert second.in_order_once(versions[1] + 1, versions[2])


@pytest.mark.slow
def test_300_watchers_each_get_every_event_once_in_order_while_commands_and_healthz_are_served(start_service):
    """Slow: 300 real SSE connections to the real service, all from this one address (its
    stream quotas raised to let them: tests/api/test_quotas.py shows them holding)."""
    server = start_service(QUOTA_STREAMS_PER_ADDRESS="400", QUOTA_STREAMS_PER_TOKEN="400")
    host, port = urlsplit(server).hostname, urlsplit(server).port
    game, tokens, version = two_humans(server)
    pool = WatcherPool(host, port, game, [None, tokens[0], tokens[1]])
    try:
        opened = pool.open(300)
        assert opened["open"] == 300, opened
        health: list[int] = []
        stop = threading.Event()

        def probe() -> None:
            while not stop.is_set():
                health.append(call(server, "GET", "/healthz")[0])
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()
        try:
            for _ in range(15):
                version = end_turn(server, game, tokens, version)  # asserts each is answered 200
                time.sleep(0.1)
        finally:
            stop.set()
            prober.join()
        seen = pool.expect(1, version, timeout=60)
    finally:
        pool.close()
    assert seen["watchers"] == 300 and seen["errors"] == []
    assert seen["in_order_once"] == 300, seen
    assert len(health) >= 5 and set(health) == {200}


@pytest.mark.slow
def test_a_restart_ends_open_streams_at_once_so_it_does_not_wait_out_the_graceful_timeout(start_service):
    """SIGTERM (a deploy, a restart) makes each web worker end its open SSE streams with a
    comment, so that their clients resume elsewhere with Last-Event-ID; gunicorn then stops
    without the "graceful timeout" that a stream left open (up to 300 s) would cost it.
    Slow: it restarts the whole service with a stream open."""
    import os
    import signal
    import urllib.request

    base = start_service()
    game, _, _ = two_humans(base)
    received: list[bytes] = []

    def watch() -> None:
        with urllib.request.urlopen(f"{base}/games/{game}/stream", timeout=60) as stream:
            received.extend(iter(stream.readline, b""))

    watcher = threading.Thread(target=watch)
    watcher.start()
    while not any(line.startswith(b"id: ") for line in received):
        assert watcher.is_alive()
        time.sleep(0.05)
    process = start_service.started[0]
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(60)
    watcher.join(10)
    assert not watcher.is_alive() and process.returncode is not None  # the stream ended, the service stopped
    assert b": the server is restarting; reconnect with Last-Event-ID\n" in received
    log = start_service.logs[0].read_text()
    assert "Booting worker" in log and "graceful timeout" not in log.lower()
