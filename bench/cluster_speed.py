"""The store on one Redis and on a 3-primary Redis Cluster, measured in one run (ratios are the
figures: the machine is shared and noisy).

Prints: appends per second from several client processes on one node and on the cluster; one
node with a replica, without and with WAIT for it (STORE_REPLICAS=1); the time from an append in
one client to a watcher's wake-up in another (pub/sub on one node, sharded pub/sub on the
cluster); one dispatcher pass over all 48 shards' outboxes, empty and with 1,000 due turns; a
page of the lobby over the sharded index; and the cluster feed's catch-up over 5,000 watched games.
Every store announces its appends, on one node as on the cluster, as the service's does
(application/wiring.py store_for): a feed on one node wakes only for the games announced.
Needs Debian's redis-server 7 (``apt-get install redis-server``) for the cluster and pub/sub.

    python bench/cluster_speed.py [--appends N] [--clients P]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout, so that bench.* imports when run as python bench/cluster_speed.py

import redis  # noqa: E402
from redis.cluster import RedisCluster  # noqa: E402

from application.wiring import READER_TIMEOUTS, connect  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from domain import Options, fold, new_game  # noqa: E402
from events import keys  # noqa: E402
from events.cluster_feed import ClusterFeed  # noqa: E402
from events.embedded import EmbeddedRedis  # noqa: E402
from events.feed import Feed  # noqa: E402
from events.outbox import Outbox  # noqa: E402
from events.projection import GameIndex  # noqa: E402
from events.redis_store import RedisStore  # noqa: E402
from events.store import OutboxWrite  # noqa: E402

SERVER = "/usr/bin/redis-server"


def start(root: Path, name: str, *extra: str) -> EmbeddedRedis:
    return EmbeddedRedis(root / name, persist=False, extra=extra, binary=SERVER)


def a_cluster(root: Path) -> list[EmbeddedRedis]:
    nodes = [start(root, f"c{i}", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf") for i in range(3)]
    clients = [redis.Redis(port=n.port) for n in nodes]
    for client, lo, hi in zip(clients, [0, 5461, 10923], [5461, 10923, 16384]):
        client.execute_command("CLUSTER ADDSLOTS", *range(lo, hi))
    for client in clients[1:]:
        client.execute_command("CLUSTER MEET", "127.0.0.1", nodes[0].port)
    while any(c.execute_command("CLUSTER INFO").get("cluster_state") != "ok" for c in clients):
        time.sleep(0.1)
    return nodes


EVENTS = new_game(Options(2), b"bench")


def _appender(url: str, n: int, replicas: int, out: multiprocessing.Queue) -> None:
    """One client process: n appends of one event each, to games of its own (all shards)."""
    client = connect(url)
    store = RedisStore(client, publish=True, replicas=replicas)
    games = [uuid.uuid4().hex for _ in range(50)]
    for g in games:
        store.append(g, 0, EVENTS[:1])
    started = time.perf_counter()
    for i in range(n):
        game = games[i % len(games)]
        store.append(game, 1 + i // len(games), EVENTS[1:2], command_id=f"c{i}", command_hash="h")
    out.put(n / (time.perf_counter() - started))


def appends_per_second(url: str, n: int, processes: int, replicas: int = 0) -> float:
    out: multiprocessing.Queue = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=_appender, args=(url, n, replicas, out)) for _ in range(processes)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(out.get() for _ in workers)


def wake_latency(url: str, rounds: int) -> tuple[float, float]:
    """p50 and p99 (ms) from an append by one client to the wake-up of a watcher of another."""
    writer, reader = connect(url), connect(url)
    cluster = isinstance(reader, RedisCluster)
    store = RedisStore(writer, publish=True)
    feed = ClusterFeed(reader) if cluster else Feed(reader, lambda: redis.Redis.from_url(url, **READER_TIMEOUTS))
    game = uuid.uuid4().hex
    store.append(game, 0, EVENTS[:1])
    seen: list[float] = []
    with feed.watching(game):
        time.sleep(0.5)  # subscribed
        for i in range(rounds):
            woke = threading.Event()

            def watch(version: int = 1 + i, woke: threading.Event = woke) -> None:
                feed.wait(game, version, 5)
                woke.set()

            threading.Thread(target=watch).start()
            time.sleep(0.01)
            sent = time.perf_counter()
            store.append(game, 1 + i, EVENTS[1:2])
            woke.wait(5)
            seen.append((time.perf_counter() - sent) * 1000)
    feed.close()
    return percentiles(seen)


def dispatcher_pass(url: str, due: int) -> float:
    """ms for one claim over every shard with ``due`` turns due (claimed again each pass)."""
    client = connect(url)
    store = RedisStore(client, publish=True)
    outbox = Outbox(client, lease_ms=0)  # a claimed entry is due again at once: every pass finds them
    for _ in range(due):
        game = uuid.uuid4().hex
        store.append(game, 0, EVENTS[:1], outbox=[OutboxWrite(game, '{"turn": 1}', 0)])
    times = []
    for _ in range(20):
        started = time.perf_counter()
        outbox.claim(limit=1000)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def catch_up_pass(url: str, games: int) -> tuple[float, float]:
    """ms for the cluster feed's catch-up over ``games`` watched games (each stream read after its
    last version): one pipeline, as the feed does, and one read at a time."""
    client = connect(url)
    store = RedisStore(client, publish=True)
    watched = [uuid.uuid4().hex for _ in range(games)]
    for game in watched:
        store.append(game, 0, EVENTS[:1])
    started = time.perf_counter()
    pipe = client.pipeline(transaction=False)
    for game in watched:
        pipe.xrange(keys.stream(game), min="0-2", count=200)
    pipe.execute()
    pipelined = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    for game in watched:
        client.xrange(keys.stream(game), min="0-2", count=200)
    return pipelined, (time.perf_counter() - started) * 1000


def lobby_page(url: str, games: int) -> float:
    """ms for one page of 50 of the lobby (newest first, over every shard) with ``games`` indexed."""
    index = GameIndex(connect(url))
    state = fold(EVENTS)
    for i in range(games):
        index.record(uuid.uuid4().hex, state, f"2026-01-01T00:00:{i % 60:02d}.{i % 1000:03d}+00:00")
    times = []
    for _ in range(50):
        started = time.perf_counter()
        index.page(limit=50)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one = start(root, "one")
        primary = start(root, "primary")
        replica = start(root, "replica", "--replicaof", "127.0.0.1", str(primary.port))
        nodes = a_cluster(root)
        try:
            while redis.Redis(port=primary.port).info("replication").get("slave0", {}).get("state") != "online":
                time.sleep(0.05)  # the replica has synced
            single = appends_per_second(one.url, args.appends, args.clients)
            cluster = appends_per_second(nodes[0].url, args.appends, args.clients)
            no_wait = appends_per_second(primary.url, args.appends, args.clients)
            with_wait = appends_per_second(primary.url, args.appends, args.clients, replicas=1)
            print(
                f"appends/s, {args.clients} client processes: one node {single:,.0f}; 3-primary cluster {cluster:,.0f} "
                f"({cluster / single:.2f}x)"
            )
            print(
                f"appends/s with a replica: without WAIT {no_wait:,.0f}; with WAIT 1 {with_wait:,.0f} "
                f"({with_wait / no_wait:.2f}x)"
            )
            p50, p99 = wake_latency(one.url, 200)
            c50, c99 = wake_latency(nodes[0].url, 200)
            print(
                f"append -> watcher woken: one node (pub/sub) p50 {p50:.2f} ms p99 {p99:.2f} ms; cluster (sharded "
                f"pub/sub) p50 {c50:.2f} ms p99 {c99:.2f} ms ({c50 / p50:.2f}x p50)"
            )
            for due in (0, 1000):
                a, b = dispatcher_pass(one.url, due), dispatcher_pass(nodes[0].url, due)
                print(
                    f"one dispatcher pass over 48 shards, {due} turns due: one node {a:.1f} ms; cluster {b:.1f} ms "
                    f"({b / a:.2f}x)"
                )
            a, b = lobby_page(one.url, 5000), lobby_page(nodes[0].url, 5000)
            print(f"a lobby page of 50, 5,000 games indexed: one node {a:.1f} ms; cluster {b:.1f} ms ({b / a:.2f}x)")
            pipelined, one_by_one = catch_up_pass(nodes[0].url, 5000)
            print(
                f"cluster feed catch-up over 5,000 watched games: pipelined {pipelined:.0f} ms; one read at a time "
                f"{one_by_one:.0f} ms ({pipelined / one_by_one:.2f}x)"
            )
        finally:
            for server in (one, primary, replica, *nodes):
                server.stop()


if __name__ == "__main__":
    main()
