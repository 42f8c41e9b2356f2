"""Commands sent in one piece on a real Redis (events/redis_store.py ``run_commands``): each
reply in order, and a connection left with replies unread is not handed to the next caller."""

from __future__ import annotations

import uuid

import pytest
import redis

from events.redis_store import run_commands


def test_the_replies_come_in_the_commands_order(redis_url):
    client, key = redis.Redis.from_url(redis_url), f"commands-test:{uuid.uuid4().hex}"
    replies = run_commands(client, [("SET", key, 0, "EX", 60, "NX"), ("INCR", key), ("INCR", key), ("PTTL", key)])
    assert replies[:3] == [b"OK", 1, 2] and 0 < replies[3] <= 60_000


def test_an_error_mid_way_leaves_no_reply_for_the_next_caller(redis_url):
    client = redis.Redis.from_url(redis_url, max_connections=1)  # the next call gets the same connection back
    key, other = f"commands-test:{uuid.uuid4().hex}", f"commands-test:{uuid.uuid4().hex}"
    client.set(other, "kept")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        run_commands(client, [("SET", key, "text"), ("LPUSH", key, "x"), ("GET", key)])
    assert client.get(other) == b"kept"  # not the GET left unread above
    assert run_commands(client, [("GET", other)]) == [b"kept"]
