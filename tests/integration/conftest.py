"""A real Redis Cluster for the tests that need one: three primaries on 127.0.0.1, each holding
a third of the slots, started from the embedded redis-server binary and stopped at the end."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis

from events.embedded import EmbeddedRedis

SLOTS = 16384


@pytest.fixture(scope="session")
def cluster_urls(tmp_path_factory) -> Iterator[list[str]]:
    """The primaries' URLs, the cluster up and every slot served."""
    nodes = [
        EmbeddedRedis(
            tmp_path_factory.mktemp(f"cluster-node{i}"),
            persist=False,
            extra=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
        )
        for i in range(3)
    ]
    try:
        clients = [redis.Redis(host="127.0.0.1", port=n.port) for n in nodes]
        bounds = [0, 5461, 10923, SLOTS]  # as redis-cli --cluster create splits them
        for client, lo, hi in zip(clients, bounds, bounds[1:]):
            client.execute_command("CLUSTER ADDSLOTS", *range(lo, hi))
        for client in clients[1:]:
            client.execute_command("CLUSTER MEET", "127.0.0.1", nodes[0].port)
        deadline = time.monotonic() + 20
        while any(c.execute_command("CLUSTER INFO").get("cluster_state") != "ok" for c in clients):
            assert time.monotonic() < deadline, "the cluster did not come up"
            time.sleep(0.1)
        for client in clients:
            client.close()
        yield [n.url for n in nodes]
    finally:
        for n in nodes:
            n.stop()
