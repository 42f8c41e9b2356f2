"""Shared fixtures: a real Redis server for the whole run (REDIS_URL, or an embedded one)."""

from __future__ import annotations

import os
import uuid

import pytest
import redis
from hypothesis import settings
from redis.commands.core import Script
from redis.crc import key_slot

# CI runs the property and fuzz tests on a fixed set of examples, so that a landing never
# depends on luck; locally every run explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real Redis: REDIS_URL when set, else an embedded redis-server stopped at the end."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    from events.embedded import EmbeddedRedis

    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), persist=False)
    yield server.url
    server.stop()


@pytest.fixture
def real_redis(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def game_id():
    return uuid.uuid4().hex


@pytest.fixture(autouse=True)
def one_hash_slot_per_script(monkeypatch):
    """Every Lua script a test runs in this process touches keys of one hash slot only, as a
    Redis Cluster requires (it refuses the others with CROSSSLOT); a test whose script
    touches more, or that meets a CROSSSLOT error, fails."""
    wrong: list[str] = []
    original = Script.__call__

    def checked(self, keys=(), args=(), client=None):
        slots = {key_slot(k.encode() if isinstance(k, str) else k) for k in keys}
        if len(slots) > 1:
            wrong.append(f"one script touched {len(slots)} slots: {list(keys)}")
        try:
            return original(self, keys, args, client)
        except redis.ResponseError as error:
            if "CROSSSLOT" in str(error):
                wrong.append(f"CROSSSLOT: {error}")
            raise

    monkeypatch.setattr(Script, "__call__", checked)
    yield
    assert wrong == []
