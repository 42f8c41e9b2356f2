"""Live updates for many watchers with one Redis subscription per process.

Every long poll and SSE stream of a web process waits here, not on Redis: one background
thread (a greenlet under gunicorn's gevent worker) listens on the channel where every append
is announced (the append script PUBLISHes ``<game> <version> <records>`` on its shard's channel,
``keys.appended``; the reader subscribes to them all with one pattern, ``keys.APPENDED``) and
delivers the new events of the games that moved and are watched here from the records the
announcement carried; only where they do not follow on from what it delivered (an announcement
missed, a watcher still seeding, a stream kind whose announcements carry none) it reads them:
one XRANGE each, pipelined. Nothing is read for a game nobody here watches nor for an append
this process made itself (``publish`` delivered it already). A waiting watcher costs a wait on an Event, not a thread of its own nor
a Redis connection; the newest events of each watched game are kept here, so a thousand
watchers of one game cost one read of each new event.

Reading only the games that moved replaces one ``XREAD`` naming every watched stream, whose
cost grew with the games watched (10,000 of them: a megabyte of command, and as many keys for
Redis to block on, several times a second) rather than with the appends.

Nothing is missed: the reader subscribes before it reads. On each (re)connection it waits for
Redis to confirm the subscription, then reads every watched game from the last version it
delivered; a game's first watcher learns the stream's length (``_seed``) after that, so any
later append is announced to the reader. After an outage it reconnects with back-off.

A feed follows one kind of stream (``Followed``): the games' (``GAMES``), or the people's
(events/person_streams.py), each named by an id, numbered ``0-<n>`` and announced on a channel of
its own slot; the rest is the same.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import keys
from .redis_store import announced_records, decode_entry, text
from .serialization import StoredEvent

log = logging.getLogger("bluemoon.feed")

#: how long the reader waits for an announcement before it looks at its work again (nothing
#: left to watch, the process stopping); its client's socket timeout must exceed it
BLOCK_MS = 5_000
RECENT = 256  #: newest events kept per watched game, served to watchers without a read
PAGE = 200  #: events one read takes per stream
CATCH_UP_BATCH = 500  #: reads per pipeline; between two the process's requests run
ANNOUNCED_MAX = 1_000  #: announcements taken before the games they name are read


class Numbered(Protocol):
    """What a feed keeps of a stream's entry: its number (a game's version)."""

    @property
    def seq(self) -> int: ...


@dataclass(frozen=True)
class Followed:
    """The kind of stream a feed follows, each stream named by an id (a game's, an account's)."""

    stream: Callable[[str], str]  #: the stream's key; its entries are ``0-<n>``
    decode: Callable[[dict[Any, Any]], Numbered]  #: an entry's fields as read
    version: Callable[[Any, str], int]  #: (client, id): the stream's last number now
    pattern: str  #: on a single Redis, the PSUBSCRIBE pattern of every stream's channel
    channel: Callable[[str], str]  #: on a cluster, the stream's sharded channel
    named: Callable[[str], str]  #: on a cluster, the id a channel belongs to
    #: (id, text): the entries an announcement carried after its number, where its kind carries any
    carried: Callable[[str, str], list[Any]] | None = None


#: The games' streams: a game's version is its stream's length (entries are never removed).
GAMES = Followed(
    keys.stream,
    decode_entry,
    lambda client, game: int(client.xlen(keys.stream(game))),
    keys.APPENDED,
    keys.live,
    keys.game_of,
    announced_records,
)


@dataclass
class _Watched:
    """A game with watchers in this process: the newest version known and its last events."""

    version: int
    #: the stream's length has been read (``_seed``): until then ``version`` is a lower bound
    #: only, so a second watcher that came while the first was seeding must not take 0 for "none"
    seeded: bool = False
    #: set when ``version`` grows, then replaced by a fresh one: waking a thousand watchers
    #: is one ``set()``, with no lock for each of them to take again
    grown: threading.Event = field(default_factory=threading.Event)
    watchers: int = 0
    recent: list[Any] = field(default_factory=list)  #: contiguous, ending at ``version``
    #: the waits of ``wait_any`` that follow this stream among others: set with ``grown``
    alarms: set[threading.Event] = field(default_factory=set)


class Feed:
    """Wakes every watcher of a game when its stream grows (see module doc).

    ``client`` serves the short reads (a stream's length, the new events); ``reader`` makes
    the reader's own client, for its subscription, whose socket timeout exceeds ``block_ms``;
    ``follows``: the kind of stream (the games' unless told).
    """

    def __init__(
        self,
        client: Any,
        reader: Callable[[], Any],
        block_ms: int = BLOCK_MS,
        follows: Followed = GAMES,
        on_read: Callable[[list[Any]], None] | None = None,
    ) -> None:
        self.follows = follows
        self._on_read = on_read  #: told of the entries the reader read (the feed's lag is measured there)
        self._client = client
        self._reader = reader
        self._block_ms = block_ms
        self._lock = threading.Lock()
        self._games: dict[str, _Watched] = {}
        self._work = threading.Condition(self._lock)  #: the reader sleeps here with nothing to watch
        self._thread: threading.Thread | None = None
        self.closing = False  #: the process is stopping: every wait returns at once

    def close(self) -> None:
        """Wake every watcher for good: the process is stopping (SIGTERM), so open streams and
        long polls end now and their clients resume on another process, instead of holding
        the restart for the whole graceful timeout."""
        with self._lock:
            self.closing = True
            for watched in self._games.values():
                self._wake(watched)
            self._work.notify()

    # -- watchers --------------------------------------------------------------------------

    @contextmanager
    def watching(self, game: str) -> Iterator[None]:
        """Register a watcher of ``game`` for the duration of the block."""
        self._start()
        with self._lock:
            watched = self._games.get(game)
            new = watched is None
            if watched is None:
                watched = self._games[game] = _Watched(0)
            watched.watchers += 1
        try:
            if new:
                self._seed(game, watched)
            yield
        finally:
            with self._lock:
                watched.watchers -= 1
                if watched.watchers == 0 and self._games.get(game) is watched:
                    del self._games[game]

    def _seed(self, game: str, watched: _Watched) -> None:
        """Learn the stream's length; every later append is announced to the reader, which
        reads the stream from there (see module doc), so the reader need not be told."""
        version = self.follows.version(self._client, game)
        with self._lock:
            watched.version = max(watched.version, version)
            watched.seeded = True
            self._wake(watched)  # a watcher that came meanwhile may be waiting below it
            self._work.notify()

    def wait(self, game: str, after: int, timeout: float) -> int:
        """Block until ``game`` (watched by the caller) is known past version ``after``, or
        ``timeout`` seconds pass; returns the newest version known."""
        deadline = time.monotonic() + timeout
        watched = self._games[game]
        while True:
            grown = watched.grown  # taken before the check, so a delivery in between still wakes us
            if watched.version > after or self.closing:
                return watched.version
            left = deadline - time.monotonic()
            if left <= 0:
                return watched.version
            grown.wait(left)

    @staticmethod
    def _wake(watched: _Watched) -> None:
        grown, watched.grown = watched.grown, threading.Event()
        grown.set()
        for alarm in list(watched.alarms):
            alarm.set()

    def known(self, game: str) -> int:
        """The newest number known of ``game``'s stream (watched by the caller)."""
        return self._games[game].version

    def since(self, game: str, after: int) -> list[Any] | None:
        """The kept events of ``game`` after version ``after``, or None when the kept window
        does not reach back that far (the caller reads the store). No lock: the window is
        replaced whole, never changed in place, so one read of it is consistent."""
        watched = self._games.get(game)
        if watched is None or not watched.seeded:
            return None
        recent = watched.recent
        if not recent or after >= recent[-1].seq:
            return [] if after >= watched.version else None
        if recent[0].seq > after + 1:
            return None
        return recent[after + 1 - recent[0].seq :]  # contiguous: a slice, not a scan per watcher

    def publish(self, game: str, stored: list[StoredEvent]) -> None:
        """Events this process just appended: its own watchers need not wait for the read."""
        self._deliver(game, stored)

    # -- the reader ------------------------------------------------------------------------

    def _deliver(self, game: str, stored: list[Any]) -> None:
        with self._lock:
            watched = self._games.get(game)
            if watched is None or not stored:
                return
            fresh = [s for s in stored if s.seq > watched.version]
            if not fresh:
                return
            if fresh[0].seq != watched.version + 1:
                watched.recent = []  # a gap: keep only a contiguous window
            watched.recent = (watched.recent + fresh)[-RECENT:]
            watched.version = fresh[-1].seq
            self._wake(watched)

    def _catch_up(self, games: Iterable[str]) -> None:
        """Deliver whatever each game's stream holds after the last version delivered, in
        pipelines of CATCH_UP_BATCH reads (a process watching 10,000 games catches up in 20
        round trips, not 10,000), letting the process's requests run between two; a game
        whose read filled a page is read again."""
        pending = list(games)
        while pending:
            batch, pending = pending[:CATCH_UP_BATCH], pending[CATCH_UP_BATCH:]
            versions = [(game, w.version) for game in batch if (w := self._games.get(game)) is not None]
            pipe = self._client.pipeline(transaction=False)
            for game, version in versions:
                pipe.xrange(self.follows.stream(game), min=f"0-{version + 1}", count=PAGE)
            for (game, _), entries in zip(versions, pipe.execute() if versions else []):
                read = [self.follows.decode(fields) for _, fields in entries]
                if self._on_read is not None and read:
                    self._on_read(read)
                self._deliver(game, read)
                if len(entries) == PAGE:
                    pending.append(game)
            if pending:
                time.sleep(0)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="bluemoon-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pubsub: Any = None
        pause = 0.1
        while not self.closing:
            with self._lock:
                idle = not self._games
            if idle:  # hang up: unread announcements would pile up in Redis's buffer for us
                pubsub = self._hang_up(pubsub)
                with self._lock:
                    while not self._games and not self.closing:
                        self._work.wait()
                continue
            try:
                if pubsub is None:
                    pubsub = self._reader().pubsub()
                    pubsub.psubscribe(self.follows.pattern)
                self._catch_up(self._announced(pubsub))
                pause = 0.1
            except Exception as error:
                if self.closing:
                    break
                log.warning("feed reader: %s; retrying in %.1f s", error, pause)
                pubsub = self._hang_up(pubsub)
                time.sleep(pause)
                pause = min(pause * 2, 5.0)
        self._hang_up(pubsub)

    def _announced(self, pubsub: Any) -> list[str]:
        """The watched games to read: those announced past the version delivered here, and
        every one after Redis confirms a subscription (the first, or redis-py's own after it
        reconnected), since what was appended before it was not announced to us. Waits up to
        ``block_ms`` for a message, then takes those already arrived (at most ANNOUNCED_MAX),
        so that one pipeline reads them all."""
        moved: dict[str, None] = {}
        message = pubsub.get_message(timeout=self._block_ms / 1000)
        taken = 0
        while message is not None:
            if message["type"] == "psubscribe":
                with self._lock:
                    moved.update(dict.fromkeys(self._games))
            elif message["type"] == "pmessage":
                game, _, rest = text(message["data"]).partition(" ")
                version, _, records = rest.partition(" ")
                watched = self._games.get(game)
                if watched is not None and int(version) > watched.version and not self._carried(game, watched, records):
                    moved[game] = None
            taken += 1
            if taken == ANNOUNCED_MAX or len(moved) >= ANNOUNCED_MAX:
                break  # the rest wait in the subscription for the next look: none is fetched and dropped
            message = pubsub.get_message(timeout=0)
        return list(moved)

    def _carried(self, game: str, watched: _Watched, records: str) -> bool:
        """Deliver the records an announcement carried (events/redis_store.py's APPEND), when
        they follow on from what was delivered here: True if they did, False if the game must
        be read (nothing carried, or a gap: a missed announcement, a watcher still seeding)."""
        if not records or not watched.seeded or self.follows.carried is None:
            return False
        read = self.follows.carried(game, records)
        if not read or read[0].seq != watched.version + 1:
            return False
        if self._on_read is not None:
            self._on_read(read)
        self._deliver(game, read)
        return True

    @staticmethod
    def _hang_up(pubsub: Any) -> None:
        """Close ``pubsub`` if open; the caller's subscription is then None."""
        if pubsub is not None:
            try:
                pubsub.close()
            except Exception:
                log.debug("closing the feed's subscription failed", exc_info=True)


def wait_any(waits: Sequence[tuple[Feed, str, int]], timeout: float) -> None:
    """Block until any of several streams (each ``(feed, name, after)``, watched by the caller:
    a game's events and its chat) is known past its number, or ``timeout`` seconds pass."""
    alarm = threading.Event()
    watched = [(feed, feed._games[name], after) for feed, name, after in waits]
    for _, one, _ in watched:
        one.alarms.add(alarm)  # before the check: a delivery in between still sets it
    try:
        if not any(one.version > after or feed.closing for feed, one, after in watched):
            alarm.wait(timeout)
    finally:
        for _, one, _ in watched:
            one.alarms.discard(alarm)
