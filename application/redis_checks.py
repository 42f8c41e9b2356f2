"""Redis must keep every game: at start, check that it is configured as docs/operations.md
requires (an append-only file written to disk at least every second, no eviction), and refuse to run on one that is not; /readyz
repeats the check as Redis is now, and says which shard lacks the replicas STORE_REPLICAS asks."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from application.settings import BLUEMOON_UNSAFE_REDIS
from events.redis_store import text

log = logging.getLogger("bluemoon.checks")
#: each persistence setting and the values that keep games (docs/operations.md, "Redis settings
#: production needs"): ``appendfsync no`` leaves the flushing to the OS, which may lose ~30 s
REQUIRED = {"appendonly": ("yes",), "appendfsync": ("everysec", "always"), "maxmemory-policy": ("noeviction",)}
KEPT = ", ".join(f"{name} {' or '.join(values)}" for name, values in REQUIRED.items())  #: what a safe Redis has
NODE_TIMEOUT = 2.0  #: seconds a node of a cluster may take to answer the check
#: how the check reaches each node: one try, NODE_TIMEOUT long (a stopped node costs it 2 s, not a retry's 4 times that)
ONCE = {"socket_timeout": NODE_TIMEOUT, "socket_connect_timeout": NODE_TIMEOUT, "retry": Retry(NoBackoff(), 0)}


def redis_persistence(client: Any) -> dict[str, Any]:
    """``{"status": "ok" | "unsafe" | "unchecked", "detail": ...}`` for /readyz and the start."""
    try:
        found = {name: text(client.config_get(name).get(name, "")) for name in REQUIRED}
    except redis.ResponseError as error:  # CONFIG renamed or disabled, as on managed Redis
        return {
            "status": "unchecked",
            "detail": f"CONFIG is not available ({error}); make sure the provider keeps "
            "an append-only file and never evicts keys",
        }
    problems = [
        f"{name} is {found[name]!r}, must be {' or '.join(map(repr, wanted))}"
        for name, wanted in REQUIRED.items()
        if found[name] not in wanted
    ]
    if problems:
        return {"status": "unsafe", "detail": "; ".join(problems)}
    return {"status": "ok", "detail": ", ".join(f"{name} {found[name]}" for name in REQUIRED)}


def short_of_replicas(client: Any, wanted: int, name: str) -> str | None:
    """What to say when the primary ``client`` has fewer than ``wanted`` replicas connected
    (ROLE, as RedisStore.durably counts them): its writes are refused until one is back."""
    role = client.execute_command("ROLE")
    if not wanted or text(role[0]) != "master" or len(role[2]) >= wanted:
        return None
    return f"{name}: {len(role[2])} of {wanted} replicas connected, its writes are refused until one is back"


def cluster_persistence(cluster: RedisCluster, replicas: int = 0) -> dict[str, Any]:
    """The same for every node of a cluster, primaries and replicas (a failover makes any of
    them the one that keeps the games), found by CLUSTER NODES: CLUSTER SLOTS, whence redis-py
    knows its nodes, leaves out a replica whose replication offset is still 0 (Redis 7.0). Each
    problem names its node. A node the cluster marks failing or that does not answer, or a
    primary serving slots with fewer than ``replicas`` (STORE_REPLICAS) connected, makes it
    ``degraded``."""
    results: dict[str, dict[str, Any]] = {}
    degraded: list[str] = []
    for name, node in sorted(cluster.cluster_nodes().items()):
        if {"fail", "noaddr"} & set(str(node["flags"]).split(",")):  # "fail?" is one node's suspicion only
            degraded.append(f"{name}: failing, not checked")
            continue
        host, port = name.rsplit(":", 1)
        settings = {**cluster.get_connection_kwargs(), "host": host, "port": int(port)}
        client = redis.Redis(**{**settings, **ONCE})
        try:
            results[name] = redis_persistence(client)
            short = short_of_replicas(client, replicas, name) if node["slots"] else None
            degraded += [short] if short else []
        except redis.RedisError as error:
            degraded.append(f"{name}: unreachable ({type(error).__name__}), not checked")
        finally:
            client.close()
    for status in ("unsafe", "unchecked"):
        bad = [f"{name}: {r['detail']}" for name, r in results.items() if r["status"] == status]
        if bad:
            return {"status": status, "detail": "; ".join(bad + degraded)}
    if degraded:
        return {"status": "degraded", "detail": "; ".join(degraded)}
    return {"status": "ok", "detail": f"{KEPT} on all {len(results)} nodes"}


def redis_check(client: Any, replicas: int = 0) -> dict[str, Any]:
    """The check of ``client``'s Redis: every node of a cluster, or the one Redis."""
    if isinstance(client, RedisCluster):
        return cluster_persistence(client, replicas)
    result = redis_persistence(client)
    short = short_of_replicas(client, replicas, "the primary") if result["status"] == "ok" else None
    return {"status": "degraded", "detail": short} if short else result


class LiveCheck:
    """The check as the cluster is now, for /readyz: run again when the last is older than
    RECHECK_SECONDS, so that probes cost a round trip per node at most that often."""

    RECHECK_SECONDS = 5.0

    def __init__(self, client: Any, replicas: int, first: dict[str, Any]) -> None:
        self.client, self.replicas = client, replicas
        self.result, self.checked = first, time.monotonic()

    def __call__(self) -> dict[str, Any]:
        if time.monotonic() - self.checked > self.RECHECK_SECONDS:
            try:
                self.result = redis_check(self.client, self.replicas)
            except (redis.RedisError, RedisClusterException) as error:
                self.result = {"status": "unchecked", "detail": f"the check failed ({type(error).__name__})"}
            self.checked = time.monotonic()
        return self.result


def refuse_unsafe_redis(url: str, replicas: int = 0) -> dict[str, Any]:
    """Check the Redis at ``url`` (every node, when it is a cluster's); stop with a message
    naming the setting unless it keeps games safely (or BLUEMOON_UNSAFE_REDIS=1 says to run
    anyway). A shard short of replicas is only logged: its writes wait for one."""
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        if client.info("cluster").get("cluster_enabled"):
            cluster = RedisCluster.from_url(url, socket_connect_timeout=5, socket_timeout=5)
            try:
                result = redis_check(cluster, replicas)
            finally:
                cluster.close()
        else:
            result = redis_check(client, replicas)
    finally:
        client.close()
    if result["status"] == "unsafe":
        message = (
            f"Redis at {url} would lose games: {result['detail']} (see docs/operations.md). "
            "Set BLUEMOON_UNSAFE_REDIS=1 to run anyway."
        )
        if not BLUEMOON_UNSAFE_REDIS.read():
            raise UnsafeRedis(message)
        log.warning("%s Running anyway: BLUEMOON_UNSAFE_REDIS=1.", message)
    elif result["status"] in ("unchecked", "degraded"):
        log.warning("Redis at %s: %s", url, result["detail"])
    return result


def check_at_boot(url: str, replicas: int = 0) -> dict[str, Any]:
    """``refuse_unsafe_redis`` for a web worker, which gunicorn may start again at any time: one
    started while Redis is down boots unchecked (its /readyz says 503 until Redis answers, then
    LiveCheck checks it) rather than failing to load, which would stop gunicorn and every worker
    with it. An unsafe Redis that answers is still refused."""
    try:
        return refuse_unsafe_redis(url, replicas)
    except (redis.ConnectionError, redis.TimeoutError, RedisClusterException) as error:
        log.warning("Redis at %s did not answer the start's check (%s); checking it once it does", url, error)
        return {
            "status": "unchecked",
            "detail": f"Redis did not answer when this process started ({type(error).__name__})",
        }


class UnsafeRedis(RuntimeError):
    """Redis is configured so that it may lose or evict games."""
