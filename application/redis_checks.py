"""Redis must keep every game: at start, check that it is configured as docs/operations.md
requires (an append-only file, no eviction), and refuse to run on one that is not."""

from __future__ import annotations

import logging
import os
from typing import Any

import redis
from redis.cluster import RedisCluster

from events.redis_store import text

log = logging.getLogger("bluemoon.checks")
REQUIRED = {"appendonly": "yes", "maxmemory-policy": "noeviction"}


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
        f"{name} is {found[name]!r}, must be {wanted!r}" for name, wanted in REQUIRED.items() if found[name] != wanted
    ]
    if problems:
        return {"status": "unsafe", "detail": "; ".join(problems)}
    return {"status": "ok", "detail": "appendonly yes, maxmemory-policy noeviction"}


def cluster_persistence(cluster: RedisCluster) -> dict[str, Any]:
    """The same for every node of a cluster, primaries and replicas: a failover makes any of
    them the one that keeps the games. Each problem names its node."""
    results = {node.name: redis_persistence(cluster.get_redis_connection(node)) for node in cluster.get_nodes()}
    for status in ("unsafe", "unchecked"):
        bad = [f"{name}: {r['detail']}" for name, r in sorted(results.items()) if r["status"] == status]
        if bad:
            return {"status": status, "detail": "; ".join(bad)}
    return {"status": "ok", "detail": f"appendonly yes, maxmemory-policy noeviction on all {len(results)} nodes"}


def refuse_unsafe_redis(url: str) -> dict[str, Any]:
    """Check the Redis at ``url`` (every node, when it is a cluster's); stop with a message
    naming the setting unless it keeps games safely (or BLUEMOON_UNSAFE_REDIS=1 says to run
    anyway)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        if client.info("cluster").get("cluster_enabled"):
            cluster = RedisCluster.from_url(url, socket_connect_timeout=5, socket_timeout=5)
            try:
                result = cluster_persistence(cluster)
            finally:
                cluster.close()
        else:
            result = redis_persistence(client)
    finally:
        client.close()
    if result["status"] == "unsafe":
        message = (
            f"Redis at {url} would lose games: {result['detail']} (see docs/operations.md). "
            "Set BLUEMOON_UNSAFE_REDIS=1 to run anyway."
        )
        if os.environ.get("BLUEMOON_UNSAFE_REDIS") != "1":
            raise UnsafeRedis(message)
        log.warning("%s Running anyway: BLUEMOON_UNSAFE_REDIS=1.", message)
    elif result["status"] == "unchecked":
        log.warning("Redis at %s: %s", url, result["detail"])
    return result


class UnsafeRedis(RuntimeError):
    """Redis is configured so that it may lose or evict games."""
