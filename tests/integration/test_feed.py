"""The live feed on a real Redis: one blocking read per process wakes every watcher."""

from __future__ import annotations

import threading
import uuid

import pytest
import redis

from application.wiring import CALL_TIMEOUTS, READER_TIMEOUTS, build
from domain import Edition, Options, new_game
from events import keys
from events.feed import BLOCK_MS, Feed, _bulk, _Watched, xread_command
from events.redis_store import RedisStore


def started_game(store: RedisStore) -> tuple[str, int]:
    game = uuid.uuid4().hex
    events = new_game(Options(2, Edition.CMON), b"s" * 32)
    store.append(game, 0, events)
    return game, len(events)


def test_every_redis_client_has_timeouts_chosen_for_its_use(redis_url):
    components = build(redis_url)
    kwargs = components.client.connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == CALL_TIMEOUTS["socket_timeout"] and kwargs["socket_connect_timeout"]
    reader = components.feed._reader()
    assert reader.connection_pool.connection_kwargs["socket_timeout"] > BLOCK_MS / 1000  # outlasts its XREAD BLOCK
    assert READER_TIMEOUTS["socket_connect_timeout"]


def test_a_game_watched_while_the_reader_blocks_is_read_at_once(real_redis, redis_url):
    store = RedisStore(real_redis)
    feed = Feed(real_redis, lambda: redis.Redis.from_url(redis_url, socket_timeout=30), block_ms=20_000)
    quiet, _ = started_game(store)
    busy, version = started_game(store)
    with feed.watching(quiet):
        feed.wait(quiet, 10**6, 0.5)  # the reader is now blocked for 20 s on the quiet game alone
        with feed.watching(busy):
            writer = threading.Timer(
                0.3, lambda: store.append(busy, version, new_game(Options(2, Edition.CMON), b"t" * 32)[:1])
            )
            writer.start()
            # far sooner than the reader's 20 s block: it was cut short to add the new stream
            assert feed.wait(busy, version, 5.0) == version + 1
            writer.join()
            assert [s.seq for s in feed.since(busy, version)] == [version + 1]


def test_the_reader_survives_a_killed_connection_and_misses_nothing(real_redis, redis_url):
    store = RedisStore(real_redis)
    feed = Feed(real_redis, lambda: redis.Redis.from_url(redis_url, socket_timeout=30), block_ms=1000)
    game, version = started_game(store)
    with feed.watching(game):
        feed.wait(game, version, 0.3)
        reader_id = feed._reader_id
        assert reader_id is not None
        assert real_redis.client_kill_filter(_id=reader_id) == 1  # the fault happened
        store.append(game, version, new_game(Options(2, Edition.CMON), b"u" * 32)[:2])
        assert feed.wait(game, version, 10.0) == version + 2
        assert feed._reader_id != reader_id  # a new connection
        assert [s.seq for s in feed.since(game, version)] == [version + 1, version + 2]


def test_the_readers_own_encoding_of_xread_is_what_redis_py_sends():
    watched = [_Watched(7, stream=_bulk(keys.stream("a" * 32).encode())), _Watched(0, stream=_bulk(b"x"))]
    packed = (
        redis.Redis()
        .connection_pool.make_connection()
        .pack_command("XREAD", "COUNT", 200, "BLOCK", 5000, "STREAMS", keys.stream("a" * 32), "x", "0-7", "0-0")
    )
    assert xread_command(watched, 200, 5000) == b"".join(packed)


def test_after_a_read_with_events_the_reader_lets_more_gather_and_a_new_game_waits_for_that(real_redis, monkeypatch):
    import events.feed as feed_module

    slept: list[float] = []
    monkeypatch.setattr(feed_module.time, "sleep", slept.append)
    feed = Feed(real_redis, lambda: real_redis)
    feed._gather(0.001)  # a read of 1 ms: the reader waits 19 ms, so reads take 5% of the process
    feed._gather(0.5)  # a long read (or one that blocked): never more than GATHER_MAX
    assert slept == [pytest.approx(0.001 * 19), feed_module.GATHER_MAX]
    feed._reader_id = 1  # a reader that is between two reads: no CLIENT UNBLOCK is needed
    unblocked = []
    monkeypatch.setattr(real_redis, "client_unblock", unblocked.append)
    store = RedisStore(real_redis)
    game, _ = started_game(store)
    feed._thread = object()  # no reader started: this test drives it by hand
    with feed.watching(game):
        assert not unblocked
