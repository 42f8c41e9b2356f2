"""What an archived game leaves in Redis: measured on a Redis of its own (bench/archive_memory.py's
figures), the goal being under 100 bytes a game."""

from __future__ import annotations

import pytest
import redis

from application.settings import REDIS_SERVER
from bench.archive_memory import measured
from events.embedded import EmbeddedRedis


@pytest.mark.slow
def test_an_archived_game_leaves_under_100_bytes_of_redis_memory(tmp_path):
    """Slow (about 3 s): 48 finished games are made and moved on a Redis started for this test."""
    server = EmbeddedRedis(tmp_path, persist=False, binary=REDIS_SERVER.read())
    client = redis.Redis.from_url(server.url)
    try:
        found = measured(client, 48)
    finally:
        client.close()
        server.stop()
    assert found.keys_left == 0
    assert found.held > 1000 and found.left < 100, found
