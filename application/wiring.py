"""Wiring: build the Redis client, the store and the application service in one place.

``REDIS_URL`` selects a real Redis; without it an embedded redis-server is started on
``var/redis`` (see events/embedded.py) for as long as this process lives.
"""

from __future__ import annotations

import atexit
import functools
import os
from dataclasses import dataclass
from typing import Any

import redis

from events.feed import BLOCK_MS, Feed
from events.redis_store import RedisStore

from .games import GameService
from .handoff import Handoff

#: Socket timeouts of the service's own calls (short reads and Lua appends): during an outage
#: they fail within seconds, and the API answers 503 instead of hanging.
CALL_TIMEOUTS: dict[str, Any] = {"socket_timeout": 5.0, "socket_connect_timeout": 2.0, "health_check_interval": 30}
#: Connections per process: a burst of requests waits up to POOL_WAIT seconds for one
#: instead of failing (redis-py's plain pool refuses past its limit).
POOL_SIZE, POOL_WAIT = 50, 5.0
#: The feed's reader blocks in XREAD for BLOCK_MS: its socket must wait longer than that.
READER_TIMEOUTS: dict[str, Any] = {"socket_timeout": BLOCK_MS / 1000 + 5.0, "socket_connect_timeout": 2.0}


@dataclass
class Components:
    client: Any
    store: RedisStore
    service: GameService
    url: str
    feed: Feed


def redis_url() -> str:
    """REDIS_URL, or the embedded server on ``var/redis`` (BLUEMOON_DATA), started by the
    first process that needs it and found there by the others (web workers, RQ workers)."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    from events.embedded import shared

    url, server = shared(os.environ.get("BLUEMOON_DATA", "var/redis"))
    if server is not None:
        atexit.register(server.stop)
    os.environ["REDIS_URL"] = url  # child processes use the same server
    return url


def connect(url: str) -> redis.Redis:
    """A client for the service's own calls: a bounded pool with short timeouts."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_WAIT, **CALL_TIMEOUTS)
    return redis.Redis(connection_pool=pool)


def build(url: str | None = None, client: Any = None, handoff: Handoff | None = None) -> Components:
    """Everything the web and worker processes need. ``client`` is used as given (fakeredis in
    unit tests); otherwise one is made for ``url`` (by default REDIS_URL, else the embedded
    server). ``handoff`` takes the work the outbox hands on (RQ: application/rq_handoff.py);
    without one, the work waits in the outbox for a process that has one."""
    if client is None:
        url = url or redis_url()
        client = connect(url)
    # the feed's reader blocks, so it has a connection of its own where there is a URL to open one
    feed = Feed(client, functools.partial(redis.Redis.from_url, url, **READER_TIMEOUTS) if url else lambda: client)
    store = RedisStore(client)
    service = GameService(client, store, handoff, on_append=feed.publish)
    return Components(client, store, service, url or "", feed)
