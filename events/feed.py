"""Live updates for many watchers with one Redis read per process.

Every long poll and SSE stream of a web process waits here, not on Redis: one background
thread (a greenlet under gunicorn's gevent worker) blocks in a single ``XREAD`` over the
streams of every game someone watches, and wakes that game's watchers when it grows. A
waiting watcher costs a wait on an Event, not a thread of its own nor a Redis connection;
the newest events of each watched game are kept here, so a thousand watchers of one game
cost one read of each new event.

A game enters the ``XREAD`` when its first watcher arrives (the reader's blocked call is cut
short with ``CLIENT UNBLOCK`` so it reads the new stream at once) and leaves it with its last
watcher. The reader reconnects with back-off after an outage; it reads from the last version
it delivered, so nothing in between is lost.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import redis

from . import keys
from .redis_store import decode_entry
from .serialization import StoredEvent

log = logging.getLogger("bluemoon.feed")

BLOCK_MS = 5_000  #: how long one XREAD blocks; its client's socket timeout must exceed it
#: the reader's share of its process at most: after a read that found events it waits this much
#: longer than the read took before the next (one XREAD names every watched stream, so with
#: thousands of games and appends every few ms, reading at once again would take the process)
READ_SHARE = 0.05
GATHER_MAX = 0.1  #: the longest such wait, in seconds: what it may add to an event's delivery
RECENT = 256  #: newest events kept per watched game, served to watchers without a read
PAGE = 200  #: events one XREAD takes per stream


@dataclass
class _Watched:
    """A game with watchers in this process: the newest version known and its last events."""

    version: int
    #: set when ``version`` grows, then replaced by a fresh one: waking a thousand watchers
    #: is one ``set()``, with no lock for each of them to take again
    grown: threading.Event = field(default_factory=threading.Event)
    watchers: int = 0
    recent: list[StoredEvent] = field(default_factory=list)  #: contiguous, ending at ``version``
    stream: bytes = b""  #: the stream's name as the XREAD command carries it, encoded once
    _after: tuple[int, bytes] = (-1, b"")  #: ``version`` and the id to read after, encoded

    def after(self) -> bytes:
        """The id to read after, as the XREAD command carries it (encoded once per version)."""
        if self._after[0] != self.version:
            self._after = (self.version, _bulk(b"0-%d" % self.version))
        return self._after[1]


def _bulk(value: bytes) -> bytes:
    """``value`` as a RESP bulk string."""
    return b"$%d\r\n%s\r\n" % (len(value), value)


def xread_command(watched: list[_Watched], count: int, block_ms: int) -> bytes:
    """``XREAD COUNT count BLOCK block_ms STREAMS <each stream> <each id>``, encoded: from the
    names encoded once per game, this takes a fraction of what redis-py's encoding of 2 x
    thousands of arguments takes on every read."""
    head = [b"XREAD", b"COUNT", b"%d" % count, b"BLOCK", b"%d" % block_ms, b"STREAMS"]
    return b"".join(
        [
            b"*%d\r\n" % (len(head) + 2 * len(watched)),
            *map(_bulk, head),
            *(w.stream for w in watched),
            *(w.after() for w in watched),
        ]
    )


class Feed:
    """Wakes every watcher of a game when its stream grows (see module doc).

    ``client`` serves the short reads (a stream's length, catching a watcher up);
    ``reader`` is the reader thread's own client, whose socket timeout exceeds ``block_ms``.
    """

    def __init__(self, client: Any, reader: Callable[[], Any], block_ms: int = BLOCK_MS) -> None:
        self._client = client
        self._reader = reader
        self._block_ms = block_ms
        self._lock = threading.Lock()
        self._games: dict[str, _Watched] = {}
        self._work = threading.Condition(self._lock)  #: the reader sleeps here with nothing to watch
        self._reader_id: int | None = None
        self._generation = 0  #: bumped when a game is added
        self._read_generation = 0  #: the generation the reader's current XREAD covers
        self._gathering = False  #: the reader waits between two reads: its next one names every game
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

    # -- watchers --------------------------------------------------------------------------

    @contextmanager
    def watching(self, game: str) -> Iterator[None]:
        """Register a watcher of ``game`` for the duration of the block."""
        self._start()
        with self._lock:
            watched = self._games.get(game)
            new = watched is None
            if watched is None:
                watched = self._games[game] = _Watched(0, stream=_bulk(keys.stream(game).encode()))
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
        """Learn the stream's length, then make the reader include the new stream now: cut
        its blocked XREAD short, retrying while it is between two reads."""
        version = int(self._client.xlen(keys.stream(game)))
        with self._lock:
            watched.version = max(watched.version, version)
            self._wake(watched)  # a watcher that came meanwhile may be waiting below it
            self._generation += 1
            mine = self._generation
            self._work.notify()
        for _ in range(100):
            with self._lock:
                reader_id = self._reader_id
                if reader_id is None or self._read_generation >= mine or self._gathering:
                    return
            try:
                if self._client.client_unblock(reader_id):
                    return
            except redis.RedisError:  # the reader then sees the new game after its block
                return
            time.sleep(0.002)

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

    def since(self, game: str, after: int) -> list[StoredEvent] | None:
        """The kept events of ``game`` after version ``after``, or None when the kept window
        does not reach back that far (the caller reads the store). No lock: the window is
        replaced whole, never changed in place, so one read of it is consistent."""
        watched = self._games.get(game)
        if watched is None:
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

    def _deliver(self, game: str, stored: list[StoredEvent]) -> None:
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

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="bluemoon-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        client: Any = None
        connection: Any = None
        pause = 0.1
        while True:
            with self._lock:
                while not self._games:
                    self._work.wait()
                started = time.monotonic()
                command = xread_command(list(self._games.values()), PAGE, self._block_ms)
                self._read_generation = self._generation
                self._gathering = False
            try:
                if client is None:
                    client = self._reader()
                    connection = client.connection_pool.get_connection()
                    connection.send_command("CLIENT", "ID")
                    reader_id = int(connection.read_response())
                    with self._lock:
                        self._reader_id = reader_id
                connection.send_packed_command([command])
                reply = client.parse_response(connection, "XREAD")
                took = time.monotonic() - started
            except Exception as error:
                log.warning("feed reader: %s; retrying in %.1f s", error, pause)
                with self._lock:
                    self._reader_id = None
                if connection is not None:  # the reader's connection is its own while it lives
                    connection.disconnect()
                    client.connection_pool.release(connection)
                client = connection = None
                time.sleep(pause)
                pause = min(pause * 2, 5.0)
                continue
            pause = 0.1
            for name, entries in reply or []:
                stream = name.decode() if isinstance(name, bytes) else name
                game = keys.game_of(stream)
                try:
                    self._deliver(game, [decode_entry(fields) for _, fields in entries])
                except Exception:
                    log.exception("feed reader: cannot read %s", stream)
            if reply:
                self._gather(took)

    def _gather(self, took: float) -> None:
        """Let events gather before the next read, so the reader takes at most READ_SHARE of
        the process however many games it names: a read that took ``took`` seconds (or
        blocked that long: then events are rare, and waiting delays few) is followed by a
        wait of up to GATHER_MAX. Watchers of this process's own appends are woken at once
        (``publish``); a new game is read after the wait, with no need to cut a read short."""
        with self._lock:
            self._gathering = True
        time.sleep(min(GATHER_MAX, took * (1 - READ_SHARE) / READ_SHARE))
