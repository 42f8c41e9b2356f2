"""The store on a real 3-node Redis Cluster (tests/integration/conftest.py): games in different slots."""

from __future__ import annotations

import pytest
from redis.cluster import RedisCluster

from domain import Options, fold, new_game
from events import keys
from events.redis_store import RedisStore


@pytest.fixture
def cluster(cluster_urls):
    client = RedisCluster.from_url(cluster_urls[0])
    yield client
    client.close()


def test_games_on_different_slots_append_and_read(cluster):
    store = RedisStore(cluster)
    games = {}
    for i in range(12):
        game = f"cluster-{i}"
        events = new_game(Options(2 + i % 3), f"seed{i}".encode())
        store.append(game, 0, events, command_id="create", command_hash="h")
        assert store.append(game, 0, events, command_id="create", command_hash="h").duplicate
        games[game] = events
    slots = {cluster.keyslot(keys.stream(g)) for g in games}
    owners = {cluster.get_node_from_key(keys.stream(g)).port for g in games}
    assert len(slots) > 1 and len(owners) == 3, "the games should spread over all three nodes"
    for game, events in games.items():
        assert (
            cluster.keyslot(keys.commands(game))
            == cluster.keyslot(keys.stream(game))
            == cluster.keyslot(keys.snapshot(game))
        )
        assert [s.event for s in store.read(game)] == events
        store.save_snapshot(game, fold(events))
        assert store.load(game) == fold(events)
