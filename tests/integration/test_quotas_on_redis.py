"""The quotas and the sweep on a real Redis and on a Redis Cluster: the game quota's counters,
the streams' slots and a never-started game's removal each run there as on fakeredis (keys
spread over slots, bytes as Redis gives them)."""

from __future__ import annotations

import uuid

import pytest
import redis
from redis.cluster import RedisCluster

from application.background.handoff import CallbackHandoff
from application.games import sweeps
from service.app import create_app
from tests.api.client import CheckedClient


@pytest.fixture(params=["redis", "cluster"])
def api(request, redis_url, monkeypatch):
    if request.param == "cluster":
        monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
        client = RedisCluster.from_url(request.getfixturevalue("cluster_urls")[0])
    else:
        client = redis.Redis.from_url(redis_url)
    config = {"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "TRUSTED_PROXIES": 1}
    app = create_app({**config, "QUOTA_GAMES_PER_ADDRESS": "2 per hour", "QUOTA_STREAMS_PER_ADDRESS": "1"})
    app.config["SSE_SECONDS"] = 30
    yield CheckedClient(app)
    app.extensions["bluemoon"].feed.close()
    client.close()


def test_quotas_and_the_sweep_hold_on_real_redis(api, monkeypatch):
    me = {"X-Forwarded-For": f"2001:db8:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"}  # a /64 of its own
    body = {"seats": [{"kind": "human"}, {"kind": "open"}]}
    monkeypatch.setattr(sweeps, "UNSTARTED_GAME_SECONDS", -1)  # due at once: its own creation sweeps it
    made = [api.post("/games", json=body, headers=me) for _ in range(3)]
    assert [m.status_code for m in made] == [201, 201, 429] and made[-1].json["limit"] == "QUOTA_GAMES_PER_ADDRESS"
    client = api.app.extensions["bluemoon"].client
    for game in (m.json["game"] for m in made[:2]):
        assert api.get(f"/games/{game}").status_code == 404  # never started, and due: removed
        assert not any(client.exists(k) for k in sweeps.game_keys(game))
    monkeypatch.setattr(sweeps, "UNSTARTED_GAME_SECONDS", 3600)
    game = api.post("/games", json=body, headers={"X-Forwarded-For": "192.0.2.77"}).json["game"]
    stream = api.http.get(f"/games/{game}/stream", headers=me, buffered=False)
    assert stream.status_code == 200
    refused = api.get(f"/games/{game}/stream", headers=me)
    assert refused.status_code == 429 and refused.json["limit"] == "QUOTA_STREAMS_PER_ADDRESS"
    stream.close()
    again = api.http.get(f"/games/{game}/stream", headers=me, buffered=False)
    assert again.status_code == 200
    again.close()
