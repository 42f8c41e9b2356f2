"""``GET /metrics`` is the operator's: served only with METRICS_TOKEN, and only to a request that
bears it; it counts requests by operation (never by raw path) and status."""

from __future__ import annotations

import re
import threading
import time
import uuid

import fakeredis
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from application.background.handoff import CallbackHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.games import end_turn, game_and_tokens
from tests.support.lobby import auth, people

TOKEN = "s3cret-for-prometheus"


def scraped(api) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = api.http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
    }


def test_without_metrics_token_the_route_is_not_served(api, monkeypatch):
    monkeypatch.delenv("METRICS_TOKEN", raising=False)
    answer = api.http.get("/metrics")
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"
    assert "METRICS_TOKEN" in answer.json["detail"]


@pytest.mark.parametrize("sent", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", TOKEN])
def test_a_request_without_the_token_gets_401_and_no_numbers(api, monkeypatch, sent):
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    answer = api.http.get("/metrics", headers={"Authorization": sent} if sent else {})
    assert answer.status_code == 401 and answer.mimetype == "application/problem+json"
    assert "bluemoon_" not in answer.get_data(as_text=True)


def test_requests_are_counted_by_operation_and_status_never_by_path(api, game, monkeypatch):
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    game_id, tokens = game
    before = scraped(api)
    key = ("bluemoon_http_requests_total", (("operation", "getGame"), ("status", "200")))
    for _ in range(3):
        api.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {tokens[0]}"})
    api.http.get("/no/such/route")
    after = scraped(api)
    assert after[key] - before.get(key, 0) == 3
    unmatched = ("bluemoon_http_requests_total", (("operation", "unmatched"), ("status", "404")))
    assert after[unmatched] - before.get(unmatched, 0) == 1
    latency = ("bluemoon_http_request_seconds_count", (("operation", "getGame"),))
    assert after[latency] - before.get(latency, 0) == 3
    text = api.http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(as_text=True)
    assert game_id not in text and not re.search(r'operation="/', text)


def test_the_readings_from_redis_are_in_every_scrape(api, monkeypatch):
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    found = scraped(api)
    assert found[("bluemoon_reading_ok", (("reading", "outbox"),))] == 1
    assert found[("bluemoon_reading_ok", (("reading", "queues"),))] == 1
    assert found[("bluemoon_reading_ok", (("reading", "archive"),))] == 1
    assert found[("bluemoon_archive_lag_seconds", ())] == 0
    assert ("bluemoon_outbox_due", (("kind", "turn"),)) in found
    assert ("bluemoon_queue_jobs", (("queue", "turns"),)) in found


def test_open_streams_are_counted_while_they_are_open(api, game):
    api.app.config["SSE_KEEPALIVE"] = 0.01  # a quiet stream answers at once
    (dee,) = people(api, f"dee-{uuid.uuid4().hex[:8]}")
    for kind, path, headers in (("game", f"/games/{game[0]}/stream", {}), ("person", "/me/stream", auth(dee))):
        open_now = lambda kind=kind: REGISTRY.get_sample_value("bluemoon_open_streams", {"stream": kind}) or 0  # noqa: E731
        before = open_now()
        stream = api.http.get(path, headers=headers, buffered=False)
        assert stream.status_code == 200
        chunks = iter(stream.response)
        next(chunks), next(chunks)  # the retry, then the first frames: the stream is open
        during = open_now()
        stream.close()
        assert (during - before, open_now() - before) == (1, 0), kind


def test_the_feeds_lag_is_measured_on_events_another_process_appended(monkeypatch):
    """Two apps on one Redis, as two web processes: B's command reaches A's watcher through A's
    live feed, which times it from the event's append."""
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    shared = fakeredis.FakeRedis()
    a, b = (
        CheckedClient(create_app({"REDIS_CLIENT": shared, "HANDOFF": CallbackHandoff(print), "RATE_LIMIT": 0}))
        for _ in range(2)
    )
    game, tokens = game_and_tokens(b)
    view = a.get(f"/games/{game}", token=tokens[0]).json
    version, turn = view["version"], view["turn"]["seat"]
    lag = ("bluemoon_feed_lag_seconds_count", (("stream", "game"),))
    before = scraped(a).get(lag, 0)
    polled: list = []
    watcher = threading.Thread(
        target=lambda: polled.append(a.get(f"/games/{game}/events?after={version}&wait=10", token=tokens[0]))
    )
    watcher.start()
    time.sleep(0.3)  # A's watcher waits on its feed
    end_turn(b, game, tokens[turn], version)
    watcher.join(15)
    assert polled and polled[0].json["events"]
    assert scraped(a)[lag] - before >= 1
