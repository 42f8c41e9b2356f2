"""Wiring: build the Redis client, the store and the application service in one place.

``REDIS_URL`` selects a real Redis; without it an embedded redis-server is started on
``var/redis`` (see events/embedded.py) for as long as this process lives.
"""
from __future__ import annotations

import atexit
import os
from dataclasses import dataclass
from typing import Any

import redis

from events.redis_store import RedisStore

from .games import GameService, TurnHook


@dataclass
class Components:
    client: Any
    store: RedisStore
    service: GameService
    url: str


def redis_url() -> str:
    """REDIS_URL, or the URL of an embedded server started now (and stopped at exit)."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    from events.embedded import EmbeddedRedis

    server = EmbeddedRedis(os.environ.get("BLUEMOON_DATA", "var/redis"))
    atexit.register(server.stop)
    os.environ["REDIS_URL"] = server.url  # child processes (workers) use the same server
    return server.url


def build(url: str | None = None, client: Any = None, on_turn: TurnHook | None = None, queue: bool = True) -> Components:
    """Everything the web and worker processes need. ``client`` overrides the connection
    (fakeredis in unit tests); ``queue`` hands bot turns to RQ unless ``on_turn`` is given."""
    if client is None:
        url = url or redis_url()
        client = redis.Redis.from_url(url)
    store = RedisStore(client)
    if on_turn is None and queue:
        from workers.queueing import RQTurns

        on_turn = RQTurns(client)
    return Components(client, store, GameService(client, store, on_turn), url or "")
