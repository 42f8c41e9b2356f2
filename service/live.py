"""The live feeds: the long poll (``GET /games/{id}/events?wait=``) and the SSE stream.

Both wait on this process's ``Feed`` (events/feed.py), so a watcher holds no thread and no
Redis connection while it waits. An event is redacted and encoded once per seat that
watches it, not once per watcher.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import redis

from application.codec import dumps, event_to_json
from domain import redact
from events import keys
from events.serialization import StoredEvent

if TYPE_CHECKING:
    from application.wiring import Components

log = logging.getLogger("bluemoon.live")

MAX_WAIT = 30.0  #: the longest long poll, in seconds
PAGE = 200  #: events per page of the events feed and per SSE read
SSE_SECONDS = 300.0  #: an SSE response's lifetime; then it ends and the client resumes
SSE_KEEPALIVE = 15.0  #: a comment line at least this often keeps proxies from closing it
SSE_RETRY_MS = 1000  #: the reconnection delay the stream asks EventSource to use
WATCHING_MS = 90_000  #: a seat's open stream counts as watching for this long after each renewal
RENEW_WATCHING = 60.0  #: seconds between renewals (the stream wakes at least every keep-alive)
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


def _next(c: Components, game: str, after: int) -> list[StoredEvent]:
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
        stored = _next(c, game, after) if version > after else []
    return stored, max(version, stored[-1].seq if stored else 0)


@contextmanager
def _seat_watching(c: Components, game: str, seat: int | None) -> Iterator[Callable[[], None]]:
    """While a seat's stream is open, the seat counts as watching the game (its person gets no
    alerts for it: workers/alert_jobs.py); a mark that is not renewed lapses by itself."""
    if seat is None:
        yield lambda: None
        return
    key, member = keys.watchers(game), f"{seat}:{uuid.uuid4().hex}"
    renewed = -RENEW_WATCHING

    def renew() -> None:
        nonlocal renewed
        if time.monotonic() - renewed < RENEW_WATCHING:
            return
        renewed = time.monotonic()
        try:
            at = int(time.time() * 1000)
            with c.client.pipeline(transaction=False) as pipe:
                pipe.zremrangebyscore(key, "-inf", at)
                pipe.zadd(key, {member: at + WATCHING_MS})
                pipe.pexpire(key, WATCHING_MS)
                pipe.execute()
        except redis.RedisError as error:  # the stream goes on; the person may get an alert
            log.warning("could not mark %s of %s as watching: %s", member, game, error)

    try:
        yield renew
    finally:
        with suppress(redis.RedisError):  # else it lapses by itself
            c.client.zrem(key, member)


def frames(
    c: Components,
    game: str,
    seat: int | None,
    after: int,
    *,
    lifetime: float,
    keepalive: float,
    revealed: bool = False,
) -> Iterator[bytes]:
    """The SSE body: the events after ``after``, then each new one as it comes, with a
    keep-alive comment whenever ``keepalive`` seconds pass in silence, for ``lifetime``
    seconds; then it ends, and EventSource resumes with Last-Event-ID. Once the game has
    ended (``revealed``, or a GameEnded in the stream) nothing is hidden any more."""
    position = after
    ends = time.monotonic() + lifetime
    yield b"retry: %d\n\n" % SSE_RETRY_MS
    with c.feed.watching(game), _seat_watching(c, game, seat) as renew:
        while True:
            renew()
            try:
                batch = _next(c, game, position)
            except redis.RedisError as error:
                log.warning("stream of %s ends early: %s", game, error)
                return
            if batch:
                revealed = revealed or any(s.type == "GameEnded" for s in batch)
                yield b"".join(_encoded(s, seat, revealed)[1] for s in batch)
                position = batch[-1].seq
                continue
            left = ends - time.monotonic()
            if left <= 0:
                yield b": the stream ends here; reconnect with Last-Event-ID\n\n"
                return
            if c.feed.closing:
                yield b": the server is restarting; reconnect with Last-Event-ID\n\n"
                return
            if c.feed.wait(game, position, min(keepalive, left)) <= position and left > keepalive:
                yield b": keep-alive\n\n"
