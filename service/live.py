"""The live feeds: the long poll (``GET /games/{id}/events?wait=``) and the SSE stream.

Both wait on this process's ``Feed`` (events/feed.py), so a watcher holds no thread and no
Redis connection while it waits. An event is redacted and encoded once per seat that
watches it, not once per watcher.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis

from application.games.codec import dumps, event_to_json
from application.settings import BLUEMOON_SSE_KEEPALIVE, BLUEMOON_SSE_SECONDS
from application.telemetry.metrics import OPEN_STREAMS
from domain import redact
from events import keys
from events.feed import GAMES, Feed, Numbered, wait_any
from events.serialization import StoredEvent

if TYPE_CHECKING:
    from application.wiring import Components

log = logging.getLogger("bluemoon.live")

MAX_WAIT = 30.0  #: the longest long poll, in seconds
PAGE = 200  #: events per page of the events feed and per SSE read
SSE_SECONDS = BLUEMOON_SSE_SECONDS.default  #: an SSE response's lifetime; then it ends and the client resumes
SSE_KEEPALIVE = BLUEMOON_SSE_KEEPALIVE.default  #: a comment line at least this often keeps proxies from closing it
SSE_RETRY_MS = 1000  #: the reconnection delay the stream asks EventSource to use
#: a stream ended by a restart asks for a reconnection delay drawn from this range (ms) instead:
#: a web worker's thousands of watchers would otherwise all reconnect within a second, each
#: paying a stream's opening, and hold every request of the workers left behind them
SSE_RESTART_RETRY_MS = (1_000, 15_000)
#: a stream lives 80-100% of its lifetime, at random, so that streams opened together (a
#: restart's reconnections) do not all end, and reconnect, together again every lifetime
LIFETIME_JITTER = 0.2
WATCHING_MS = 90_000  #: a seat's open stream counts as watching for this long after each renewal
RENEW_WATCHING = 60.0  #: seconds between renewals of a seat's mark
RENEW_EVERY = 5.0  #: seconds between two looks for marks due (renewed together: ``_Marks``)
RENEW_BATCH = 500  #: marks per renewal pipeline
KEEPALIVE_JITTER = 0.2  #: a keep-alive comes after 80-100% of the keep-alive time, at random, so
#: that streams opened together (a deploy, a burst of visitors) do not all wake at once for ever
_SERVED: OrderedDict[tuple[str, int, int | None, bool], tuple[dict[str, Any], bytes]] = OrderedDict()
_SERVED_MAX = 4096


def _encoded(stored: StoredEvent, seat: int | None, revealed: bool) -> tuple[dict[str, Any], bytes]:
    """The event as ``seat`` sees it (everything once the game has ended: ``revealed``), as a
    document and as an SSE frame; cached, since every such watcher gets the same bytes."""
    key = (stored.game, stored.seq, seat, revealed)
    found = _SERVED.get(key)
    if found is None:
        doc = event_to_json(stored, redact(stored.event, seat, revealed=revealed))
        frame = b"id: %d\nevent: %s\ndata: %s\n\n" % (stored.seq, stored.type.encode(), dumps(doc))
        found = _SERVED[key] = (doc, frame)
        while len(_SERVED) > _SERVED_MAX:
            _SERVED.popitem(last=False)
    return found


def served(stored: StoredEvent, seat: int | None, revealed: bool) -> dict[str, Any]:
    return _encoded(stored, seat, revealed)[0]


def read_next(c: Components, game: str, after: int) -> list[StoredEvent]:
    """The next page after ``after``: from the feed's kept events, else from the store."""
    kept = c.feed.since(game, after)
    return kept[:PAGE] if kept is not None else c.store.read(game, after=after, until=after + PAGE)


def poll(c: Components, game: str, after: int, wait: float, version: int) -> tuple[list[StoredEvent], int]:
    """A page of events after ``after``, waiting up to ``wait`` seconds for one; and the
    game's version (``version``: the one the caller just loaded, or newer)."""
    stored = c.store.read(game, after=after, until=after + PAGE)
    if stored or wait <= 0:
        return stored, max(version, stored[-1].seq if stored else 0)
    with c.feed.watching(game):
        version = c.feed.wait(game, after, wait)
        stored = read_next(c, game, after) if version > after else []
    return stored, max(version, stored[-1].seq if stored else 0)


class _Marks:
    """The watching marks of one Redis client's open streams. A mark is written when its
    stream opens and deleted when it closes; renewals go out together, one pipeline every
    RENEW_EVERY seconds for the marks due, not a round trip per stream (20,000 streams
    would otherwise cost as many Redis calls as the commands of 10,000 games)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()
        self._renewed: dict[tuple[str, str], float] = {}  #: open marks, and when each was last written
        self._renewing = False  #: the renewer runs (it stops when no stream is open)

    def add(self, key: str, member: str, write: bool = True) -> None:
        """Keep ``member`` in ``key`` until removed (``write=False``: the caller just wrote it)."""
        with self._lock:
            self._renewed[key, member] = time.monotonic()
            start, self._renewing = not self._renewing, True
        if start:
            threading.Thread(target=self._renew_forever, name="bluemoon-watch-marks", daemon=True).start()
        if not write:
            return
        try:
            self._write([(key, member)])
        except redis.RedisError as error:  # the stream goes on; the renewer tries again
            log.warning("could not mark %s of %s as watching: %s", member, key, error)

    def remove(self, key: str, member: str) -> None:
        with self._lock:
            self._renewed.pop((key, member), None)
        with suppress(redis.RedisError):  # else it lapses by itself
            self._client.zrem(key, member)

    def _write(self, marks: list[tuple[str, str]]) -> None:
        at = int(time.time() * 1000)
        sets = {key for key, _ in marks}
        with self._client.pipeline(transaction=False) as pipe:
            for key in sets:
                pipe.zremrangebyscore(key, "-inf", at)
            for key, member in marks:
                pipe.zadd(key, {member: at + WATCHING_MS})
            for key in sets:
                pipe.pexpire(key, WATCHING_MS)
            pipe.execute()

    def _renew_forever(self) -> None:
        while True:
            time.sleep(RENEW_EVERY)
            with self._lock:
                if not self._renewed:
                    self._renewing = False
                    return
                now = time.monotonic()
                due = [mark for mark, at in self._renewed.items() if now - at >= RENEW_WATCHING]
                for mark in due:
                    self._renewed[mark] = now
            for i in range(0, len(due), RENEW_BATCH):
                self._renew(due[i : i + RENEW_BATCH])
                time.sleep(0)  # a pipeline of thousands would hold the worker's other requests

    def _renew(self, due: list[tuple[str, str]]) -> None:
        try:
            self._write(due)
            with self._lock:  # a stream that closed meanwhile: its mark must not outlive it
                gone = [mark for mark in due if mark not in self._renewed]
            if gone:
                with self._client.pipeline(transaction=False) as pipe:
                    for key, member in gone:
                        pipe.zrem(key, member)
                    pipe.execute()
        except redis.RedisError as error:  # each lapses by itself unless a later renewal lands
            log.warning("could not renew %d watching marks: %s", len(due), error)


_MARKS: weakref.WeakKeyDictionary[Any, _Marks] = weakref.WeakKeyDictionary()
_MARKS_LOCK = threading.Lock()


def marks(client: Any) -> _Marks:
    """The marks of ``client``'s open streams: the seats watching, and the streams' quota slots
    (service/quotas.py), renewed together."""
    with _MARKS_LOCK:
        found = _MARKS.get(client)
        if found is None:
            found = _MARKS[client] = _Marks(client)
        return found


@contextmanager
def _seat_watching(c: Components, game: str, seat: int | None) -> Iterator[None]:
    """While a seat's stream is open, the seat counts as watching the game (its person gets no
    alerts for it: workers/alert_jobs.py); a mark that is not renewed lapses by itself."""
    if seat is None:
        yield
        return
    kept, key, member = marks(c.client), keys.watchers(game), f"{seat}:{uuid.uuid4().hex}"
    kept.add(key, member)
    try:
        yield
    finally:
        kept.remove(key, member)


def frames(
    c: Components,
    game: str,
    seat: int | None,
    after: int,
    *,
    lifetime: float,
    keepalive: float,
    revealed: bool = False,
    beside: Beside | None = None,
) -> Iterator[bytes]:
    """The SSE body: the events after ``after``, then each new one as it comes (``followed``), and
    the game's chat as it comes (``beside``). Once the game has ended (``revealed``, or a
    GameEnded in the stream) nothing is hidden any more."""

    def encoded(batch: list[StoredEvent]) -> bytes:
        nonlocal revealed
        revealed = revealed or any(s.type == "GameEnded" for s in batch)
        return b"".join(_encoded(s, seat, revealed)[1] for s in batch)

    with _seat_watching(c, game, seat):
        yield from followed(
            c.feed,
            game,
            after,
            lambda position: read_next(c, game, position),
            encoded,
            lifetime=lifetime,
            keepalive=keepalive,
            beside=beside,
        )


@dataclass
class Beside:
    """A second stream an SSE body follows beside its own, on the same name (a game's chat beside
    its events): its frames carry no ``id``, so Last-Event-ID goes on naming the first stream's."""

    feed: Feed
    position: int  #: the last number sent (or skipped)
    read: Callable[[int], Sequence[Numbered]]
    encoded: Callable[[Any], bytes]

    def next_frames(self) -> bytes | None:
        """The frames of what came after ``position``; None when nothing came."""
        batch = self.read(self.position)
        if not batch:
            return None
        self.position = batch[-1].seq
        return self.encoded(batch)


def followed(
    feed: Feed,
    name: str,
    after: int,
    read: Callable[[int], Sequence[Numbered]],
    encoded: Callable[[Any], bytes],
    *,
    lifetime: float,
    keepalive: float,
    beside: Beside | None = None,
) -> Iterator[bytes]:
    """An SSE body following the stream ``name`` of ``feed`` (a game's, a person's; and ``beside``
    it another, without ids: the game's chat): its entries
    after ``after`` (``read``: a page after a number; ``encoded``: a page as frames), then each new
    one as it comes, with a keep-alive comment after at most ``keepalive`` seconds of silence, for
    ``lifetime`` seconds (less up to LIFETIME_JITTER); then it ends, and EventSource resumes with
    Last-Event-ID."""
    position = after
    ends = time.monotonic() + lifetime * (1 - LIFETIME_JITTER * random.random())
    yield b"retry: %d\n\n" % SSE_RETRY_MS
    with ExitStack() as watching:
        watching.enter_context(feed.watching(name))
        watching.enter_context(OPEN_STREAMS.labels("game" if feed.follows is GAMES else "person").track_inprogress())
        if beside is not None:
            watching.enter_context(beside.feed.watching(name))
        while True:
            try:
                batch = read(position)
                extra = beside.next_frames() if beside is not None else None
            except redis.RedisError as error:
                log.warning("stream of %s ends early: %s", name, error)
                return
            if batch:
                yield encoded(batch)
                position = batch[-1].seq
            if extra:
                yield extra
            if batch or extra is not None:  # something came (chat perhaps not for this reader): look again
                continue
            left = ends - time.monotonic()
            if left <= 0:
                yield b": the stream ends here; reconnect with Last-Event-ID\n\n"
                return
            if feed.closing:
                retry = random.randint(*SSE_RESTART_RETRY_MS)
                yield b"retry: %d\n\n: the server is restarting; reconnect with Last-Event-ID\n\n" % retry
                return
            quiet = keepalive * (1 - KEEPALIVE_JITTER * random.random())
            if beside is None:
                grew = feed.wait(name, position, min(quiet, left)) > position
            else:
                wait_any([(feed, name, position), (beside.feed, name, beside.position)], min(quiet, left))
                grew = feed.known(name) > position or beside.feed.known(name) > beside.position
            if not grew and left > quiet:
                yield b": keep-alive\n\n"
