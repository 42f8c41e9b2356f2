"""The live feed on a real Redis: one subscription per process to the appends' announcements
wakes every watcher, reading only the games that moved."""

from __future__ import annotations

import threading
import uuid

import redis

from application.wiring import CALL_TIMEOUTS, READER_TIMEOUTS, build
from domain import Edition, Options, new_game
from events import keys
from events.feed import ANNOUNCED_MAX, BLOCK_MS, PAGE, Feed, _Watched
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
    assert reader.connection_pool.connection_kwargs["socket_timeout"] > BLOCK_MS / 1000  # outlasts its wait
    assert READER_TIMEOUTS["socket_connect_timeout"]


def reader_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url, socket_timeout=30)


def test_each_append_is_announced_with_its_game_and_new_version(real_redis):
    store = RedisStore(real_redis, publish=True)
    listener = real_redis.pubsub()
    listener.psubscribe(keys.APPENDED)
    assert listener.get_message(timeout=5)["type"] == "psubscribe"
    game, version = started_game(store)
    message = listener.get_message(timeout=5)
    listener.close()
    assert message["type"] == "pmessage" and message["data"].startswith(f"{game} {version} [".encode())
    assert message["channel"] == keys.appended(game).encode()


def test_a_game_watched_while_the_reader_waits_hears_of_another_process_append(real_redis, redis_url):
    store = RedisStore(real_redis, publish=True)  # another process's store: this feed is not told
    feed = Feed(real_redis, lambda: reader_client(redis_url), block_ms=20_000)
    quiet, _ = started_game(store)
    busy, version = started_game(store)
    with feed.watching(quiet):
        feed.wait(quiet, 10**6, 0.5)  # the reader now waits up to 20 s for an announcement
        with feed.watching(busy):
            writer = threading.Timer(
                0.3, lambda: store.append(busy, version, new_game(Options(2, Edition.CMON), b"t" * 32)[:1])
            )
            writer.start()
            assert feed.wait(busy, version, 5.0) == version + 1  # announced: far sooner than 20 s
            writer.join()
            assert [s.seq for s in feed.since(busy, version)] == [version + 1]
        assert feed.since(quiet, 0) is None  # never read: it did not move


def test_the_reader_survives_a_killed_connection_and_misses_nothing(real_redis, redis_url):
    store = RedisStore(real_redis, publish=True)
    feed = Feed(real_redis, lambda: reader_client(redis_url), block_ms=1000)
    game, version = started_game(store)
    with feed.watching(game):
        feed.wait(game, version, 0.3)
        subscribed = [c["id"] for c in real_redis.client_list() if int(c.get("psub", 0)) > 0]
        assert len(subscribed) == 1
        assert real_redis.client_kill_filter(_id=subscribed[0]) == 1  # the fault happened
        # appended while nobody is subscribed: not announced to the feed, read after it subscribes again
        store.append(game, version, new_game(Options(2, Edition.CMON), b"u" * 32)[:2])
        assert feed.wait(game, version, 10.0) == version + 2
        assert [c["id"] for c in real_redis.client_list() if int(c.get("psub", 0)) > 0] != subscribed
        assert [s.seq for s in feed.since(game, version)] == [version + 1, version + 2]


def test_an_append_longer_than_a_page_is_read_to_its_end(real_redis, redis_url):
    store = RedisStore(real_redis, publish=True)
    feed = Feed(real_redis, lambda: reader_client(redis_url), block_ms=1000)
    game, version = started_game(store)
    long = new_game(Options(2, Edition.CMON), b"v" * 32) * (PAGE // 5 + 10)
    with feed.watching(game):
        feed.wait(game, version, 0.3)
        store.append(game, version, long)
        assert feed.wait(game, version + PAGE, 10.0) == version + len(long)
        assert [s.seq for s in feed.since(game, version)] == list(range(version + 1, version + len(long) + 1))


def test_the_reader_reads_only_watched_games_announced_past_what_it_delivered(real_redis, redis_url):
    store = RedisStore(real_redis, publish=True)
    feed = Feed(real_redis, lambda: reader_client(redis_url))
    feed._thread = threading.Thread()  # no reader started: this test gives it the announcements
    watched, version = started_game(store)
    unwatched, _ = started_game(store)
    delivered, _ = started_game(store)

    class Announcements:
        def __init__(self, messages: list[dict]) -> None:
            self.messages = messages

        def get_message(self, timeout: float) -> dict | None:
            return self.messages.pop(0) if self.messages else None

    def said(game: str, version: int) -> dict:
        return {"type": "pmessage", "data": f"{game} {version}".encode()}

    with feed.watching(watched), feed.watching(delivered):
        _, delivered_version = started_game(store)
        announced = Announcements(
            [said(watched, version + 1), said(unwatched, 9), said(delivered, delivered_version), said(watched, 8)]
        )
        assert feed._announced(announced) == [watched]
        assert feed._announced(Announcements([{"type": "psubscribe", "data": 1}])) == [watched, delivered]


def test_a_burst_of_more_announcements_than_one_look_takes_loses_none(real_redis, redis_url):
    """The reader takes at most ANNOUNCED_MAX announcements a look; the next one waits for the
    next look (it was once fetched and dropped: its game's watchers slept until another append)."""
    store = RedisStore(real_redis, publish=True)
    feed = Feed(real_redis, lambda: reader_client(redis_url), block_ms=300)
    game, version = started_game(store)
    feed._games[game] = _Watched(version)  # watched, the reader not started: this test looks for it
    listener = reader_client(redis_url).pubsub()
    listener.psubscribe(keys.APPENDED)
    assert feed._announced(listener) == [game]  # the subscription confirmed: every watched game is read
    for _ in range(ANNOUNCED_MAX):  # appends of games nobody here watches
        real_redis.publish(keys.appended(game), f"{uuid.uuid4().hex} 1")
    store.append(game, version, new_game(Options(2, Edition.CMON), b"t" * 32)[:1])
    looks = [feed._announced(listener) for _ in range(2)]
    listener.close()
    assert looks == [[], [game]]


def test_a_watcher_that_comes_while_the_first_reads_the_length_is_not_told_there_is_nothing(real_redis, redis_url):
    """A second watcher of a game whose first watcher is still reading the stream's length
    (``_seed``, a Redis round trip that a loaded server may stretch) once read ``since(game, 0)``
    as "no events": a long poll with chat answered an empty page for a game at version 9 (CI's
    fuzz run). Until the length is known, the feed sends the caller to the store."""
    store = RedisStore(real_redis, publish=True)
    game, version = started_game(store)
    measuring, go_on = threading.Event(), threading.Event()

    class SlowLength:
        """The first watcher's client: its XLEN answers only when the test lets it."""

        def xlen(self, key: str) -> int:
            measuring.set()
            assert go_on.wait(10)
            return real_redis.xlen(key)

        def __getattr__(self, name: str):
            return getattr(real_redis, name)

    feed = Feed(SlowLength(), lambda: reader_client(redis_url), block_ms=300)

    def first_watcher() -> None:
        with feed.watching(game):
            pass

    first = threading.Thread(target=first_watcher)
    first.start()
    assert measuring.wait(5)  # the first watcher is reading the length now
    try:
        with feed.watching(game):  # the second comes meanwhile: it does not read the length itself
            assert feed.since(game, 0) is None  # not [] : the store is read instead
    finally:
        go_on.set()
        first.join(10)
    with feed.watching(game):
        assert feed.since(game, version) == []  # once known, "nothing newer" is answered from the feed


class CountedReads:
    """The feed's client, counting the pipelines (the catch-up's reads) it is asked for."""

    def __init__(self, client: redis.Redis) -> None:
        self.client, self.pipelines = client, 0

    def pipeline(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.pipelines += 1
        return self.client.pipeline(*args, **kwargs)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.client, name)


def test_another_process_append_is_delivered_from_its_announcement_without_a_read(real_redis, redis_url):
    """The announcement carries the records: a watcher in another process hears them with no
    XRANGE (one round trip a move fewer for each process watching), and they are the records a
    read would give, metadata and all."""
    store = RedisStore(real_redis, publish=True)
    counted = CountedReads(real_redis)
    feed = Feed(counted, lambda: reader_client(redis_url), block_ms=1000)
    game, version = started_game(store)
    more = new_game(Options(2, Edition.CMON), b"w" * 32)[:3]
    with feed.watching(game):
        feed.wait(game, version, 0.3)
        before = counted.pipelines
        store.append(game, version, more, actor="seat:1", command_id="c-1", meta='{"seat": 1}')
        assert feed.wait(game, version, 5.0) == version + 3
        assert counted.pipelines == before  # delivered without reading the stream
        assert feed.since(game, version) == store.read(game, after=version)


def test_an_announcement_that_does_not_follow_on_is_read_from_the_stream(real_redis, redis_url):
    """A gap (an announcement this reader missed) is not papered over by the next one's records:
    the game is read from the last version delivered, so nothing in between is lost."""
    store = RedisStore(real_redis, publish=True)
    silent = RedisStore(real_redis, publish=False)  # an append whose announcement never came
    feed = Feed(real_redis, lambda: reader_client(redis_url), block_ms=1000)
    game, version = started_game(store)
    with feed.watching(game):
        feed.wait(game, version, 0.3)
        silent.append(game, version, new_game(Options(2, Edition.CMON), b"x" * 32)[:1])
        store.append(game, version + 1, new_game(Options(2, Edition.CMON), b"y" * 32)[:2])
        assert feed.wait(game, version + 2, 5.0) == version + 3
        assert [s.seq for s in feed.since(game, version)] == [version + 1, version + 2, version + 3]
