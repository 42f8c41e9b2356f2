"""The whole service as the Procfile runs it (gunicorn with gevent workers, an RQ worker) with
its games on a real 3-primary Redis Cluster (STORE_URL) and its queue on a Redis of its own
(QUEUE_URL): a game against a greedy bot played over real HTTP, the bot's replies heard through
the long poll and the SSE stream of the web processes, which learn of the worker's appends by
sharded pub/sub."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlsplit

import pytest
import redis
from redis.cluster import RedisCluster

from events import keys
from events.embedded import EmbeddedRedis
from tests.e2e.conftest import against_greedy, call


@pytest.fixture
def queue_url(tmp_path):
    """A Redis of the test's own for the queue, so that what it holds afterwards can be told."""
    server = EmbeddedRedis(tmp_path / "queue", persist=False)
    yield server.url
    server.stop()


@pytest.fixture
def on_a_cluster(start_service, cluster_urls, queue_url):
    return start_service(STORE_URL=cluster_urls[0], QUEUE_URL=queue_url, BLUEMOON_UNSAFE_REDIS="1")


def _sse_events(base: str, game: str, token: str, after: int, wanted: int, seconds: float) -> list[dict]:
    """Read the SSE stream until ``wanted`` events came or ``seconds`` passed."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=seconds)
    conn.request("GET", f"/games/{game}/stream?after={after}", headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    assert response.status == 200
    events, deadline = [], time.monotonic() + seconds
    while len(events) < wanted and time.monotonic() < deadline:
        line = response.fp.readline().decode()
        if line.startswith("data: "):
            events.append(json.loads(line[6:]))
    conn.close()
    return events


@pytest.mark.slow
@pytest.mark.own_store  # a cluster without replicas and a queue Redis of the test's own
def test_a_game_against_a_bot_is_played_over_http_with_its_games_on_a_cluster(on_a_cluster, cluster_urls, queue_url):
    """Slow: the whole service as processes, three turns of a bot played by the worker."""
    base = on_a_cluster
    created = against_greedy(base)
    game, token = created["game"], created["seats"][0]["token"]
    version = created["version"]
    heard: list[dict] = []
    for turn in range(3):
        status, legal = call(base, "GET", f"/games/{game}/legal", token=token)
        end = next(c for c in legal["commands"] if c["type"] == "end_turn")
        status, result = call(
            base, "POST", f"/games/{game}/commands", end, token=token, headers={"If-Match": f'"{legal["version"]}"'}
        )
        assert status == 200
        after = result["version"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the bot's reply, heard through the long poll
            status, page = call(base, "GET", f"/games/{game}/events?after={after}&wait=5", token=token)
            assert status == 200
            heard += page["events"]
            after = page["next"]
            if any(e["type"] == "TurnStarted" and e["data"]["seat"] == 0 for e in page["events"]):
                break
        else:
            raise AssertionError(f"the bot did not reply in turn {turn}")
    streamed = _sse_events(base, game, token, version, after - version, 20)
    assert [e["seq"] for e in streamed] == list(range(version + 1, after + 1))  # every event once, in order
    cluster = RedisCluster.from_url(cluster_urls[0])
    assert cluster.xlen(keys.stream(game)) == after  # the game is on the cluster
    on_cluster = [k for node in cluster.get_primaries() for k in cluster.get_redis_connection(node).keys("rq:*")]
    queue = redis.Redis.from_url(queue_url)
    limits = [k for node in cluster.get_primaries() for k in cluster.get_redis_connection(node).keys("*ratelimit*")]
    assert on_cluster == [] and queue.keys("rq:*")  # RQ's keys are on the queue Redis only
    assert len({cluster.keyslot(k) for k in limits}) > 1, "the rate limits are counted on the cluster, spread out"
    assert [k for k in queue.keys("*") if not k.startswith(b"rq:")] == []  # and nothing else is there
    cluster.close()
    queue.close()
