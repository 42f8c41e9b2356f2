"""The application on a real Redis Cluster (game data, STORE_URL) with RQ on a Redis of its own
(QUEUE_URL): creating games, joining, playing commands, webhooks and bots' turns played by real
worker processes, every write of one script in one hash slot (tests/conftest.py checks each
script call of this process)."""

from __future__ import annotations

import pytest
import redis
from redis.cluster import RedisCluster

from application.background.rq_handoff import RQHandoff
from application.games.game_service import SeatSpec
from application.wiring import connect
from domain import Options, legal_commands
from events import keys
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.workers import Workers, wait_until


@pytest.fixture
def split(cluster_urls, redis_url, monkeypatch, queue_name):
    """STORE_URL on the cluster, QUEUE_URL on the test run's single Redis."""
    monkeypatch.setenv("STORE_URL", cluster_urls[0])
    monkeypatch.setenv("QUEUE_URL", redis_url)
    monkeypatch.setenv("BLUEMOON_QUEUE", queue_name)
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "203.0.113.7")  # a documentation address: never reached here
    return cluster_urls[0], redis_url


@pytest.fixture
def queue_name():
    import uuid

    return f"test-{uuid.uuid4().hex[:8]}"


def test_the_store_url_of_a_cluster_node_gets_a_cluster_client(split):
    store, queue = split
    assert isinstance(connect(store), RedisCluster) and not isinstance(connect(queue), RedisCluster)


def test_games_are_created_joined_and_played_on_a_cluster_with_bots_played_by_workers(split, queue_name):
    store, queue = split
    handoff = RQHandoff(connect(queue), queue=queue_name)
    app = create_app({"REDIS_URL": store, "RATE_LIMIT": 0, "HANDOFF": handoff})
    api = CheckedClient(app)
    service = app.extensions["bluemoon"].service
    assert isinstance(service.client, RedisCluster)
    games: list[tuple[str, list[str]]] = []
    owners: set[int] = set()
    while len(owners) < 3:  # until the games lie on all three primaries (40 games miss one with p < 1e-6)
        assert len(games) < 40, "the games do not spread over the three primaries"
        created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}).get_json()
        invite = created["seats"][1]["invite"]
        joined = api.post(f"/games/{created['game']}/seats/1/join", json={"invite": invite})
        assert joined.status_code == 201
        games.append((created["game"], [created["seats"][0]["token"], joined.get_json()["token"]]))
        owners.add(service.client.get_node_from_key(keys.stream(created["game"])).port)
    for game, tokens in games:
        state = service.state(game)
        seat = state.turn.seat
        command = next(c for c in api.get(f"/games/{game}/legal", headers=_bearer(tokens[seat])).get_json()["commands"])
        played = api.post(
            f"/games/{game}/commands",
            json=command,
            headers={**_bearer(tokens[seat]), "If-Match": f'"{state.version}"', "Idempotency-Key": f"k-{game}"},
        )
        assert played.status_code == 200 and played.get_json()["version"] > state.version
        hook = api.post(
            f"/games/{game}/webhooks",
            json={"url": "https://203.0.113.7/hook", "events": ["turn.started"]},  # allowed below
            headers=_bearer(tokens[0]),
        )
        assert hook.status_code == 201
    # bots: the outbox entries are in the games' shards on the cluster, the jobs on the queue Redis
    bot_games = [
        service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0).game
        for _ in range(3)
    ]
    queue_client = redis.Redis.from_url(queue)
    assert all(service.store.outbox_entry(g) is not None for g in bot_games)
    workers = Workers(queue, queue_name)
    try:
        workers.start(STORE_URL=store, QUEUE_URL=queue)
        for game in bot_games:
            state = wait_until(lambda g=game: (s := service.state(g)).turn.seat == 1 and s, 60, "the bot's turn")
            assert [s.actor for s in service.store.read(game) if s.type == "TurnEnded"] == ["bot:greedy"]
            assert any(legal_commands(state, 1))
    finally:
        workers.stop_all()
    cluster_keys = [
        k for node in service.client.get_primaries() for k in service.client.get_redis_connection(node).keys("rq:*")
    ]
    assert cluster_keys == [] and queue_client.keys(f"rq:queue:{queue_name}") is not None
    queue_client.close()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_store_url_may_list_several_nodes_and_the_first_that_answers_is_used(split, cluster_urls, monkeypatch):
    from application.wiring import store_url
    from events.embedded import free_port

    down = f"redis://127.0.0.1:{free_port()}"
    monkeypatch.setenv("STORE_URL", f"{down}, {cluster_urls[1]},{cluster_urls[2]}")
    assert store_url() == cluster_urls[1]
    assert isinstance(connect(store_url()), RedisCluster)
    monkeypatch.setenv("STORE_URL", down)  # one node named: used as it is (503s until it answers)
    assert store_url() == down
