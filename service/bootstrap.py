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
