"""Many SSE watchers in one asyncio process: what bench/watchers.py and the CI test of live
updates use to hold hundreds or thousands of real streams on plain sockets, cheaply.

Each ``Watcher`` speaks HTTP/1.1 to ``GET /games/{id}/stream`` (or another stream's ``path``, as
bench/person_streams.py's ``/me/stream``), decodes the chunked body,
and records every event id, every keep-alive comment, and whether the stream ended cleanly
(the final zero-length chunk).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection


@dataclass
class Watcher:
    host: str
    port: int
    game: str
    token: str | None = None
    last_event_id: int | None = None
    ids: list[int] = field(default_factory=list)
    keepalives: int = 0
    ended_cleanly: bool = False
    status: int | None = None
    error: str | None = None
    opened: float = 0.0  #: when the request was about to be sent: the server cannot start its clock earlier
    closed: float = 0.0
    ready: asyncio.Event = field(default_factory=asyncio.Event)  #: set on the first byte of body
    path: str = ""  #: the stream's path, if not the game's

    async def run(self) -> None:
        """Read the stream until the server ends it (or the task is cancelled)."""
        writer = None
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
            head = [
                f"GET {self.path or f'/games/{self.game}/stream'} HTTP/1.1",
                f"Host: {self.host}:{self.port}",
                "Accept: text/event-stream",
            ]
            if self.token:
                head.append(f"Authorization: Bearer {self.token}")
            if self.last_event_id is not None:
                head.append(f"Last-Event-ID: {self.last_event_id}")
            self.opened = time.monotonic()
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
            await writer.drain()
            status_line = await reader.readline()
            self.status = int(status_line.split()[1])
            chunked = False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                    chunked = True
            if self.status != 200 or not chunked:
                self.error = f"status {self.status}, chunked {chunked}"
                return
            buffer = b""
            while True:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await reader.readline()
                    self.ended_cleanly = True
                    return
                buffer += await reader.readexactly(size)
                await reader.readexactly(2)
                self.ready.set()
                *frames, buffer = buffer.split(b"\n\n")
                for frame in frames:
                    self._frame(frame)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.closed = time.monotonic()
            self.ready.set()
            if writer is not None:
                writer.close()

    def _frame(self, frame: bytes) -> None:
        for line in frame.split(b"\n"):
            if line.startswith(b"id: "):
                self.ids.append(int(line[4:]))
            elif line.startswith(b": keep-alive"):
                self.keepalives += 1

    def in_order_once(self, first: int, last: int) -> bool:
        """Every event from ``first`` to ``last`` arrived exactly once, in order."""
        return self.ids == list(range(first, last + 1))


async def _serve(conn: Connection, host: str, port: int, game: str, tokens: list[str | None], path: str) -> None:
    """The child process's loop: opens, checks and closes watchers as the parent asks."""
    loop = asyncio.get_running_loop()
    watchers: list[Watcher] = []
    tasks: list[asyncio.Task[None]] = []
    while True:
        verb, arg = await loop.run_in_executor(None, conn.recv)
        if verb == "open":
            count, after, timeout = arg
            fresh = [
                Watcher(host, port, game, tokens[(len(watchers) + i) % len(tokens)], after, path=path)
                for i in range(count)
            ]
            for i in range(0, count, 200):  # connect in batches: the listen backlog is finite
                batch = fresh[i : i + 200]
                tasks += [asyncio.create_task(w.run()) for w in batch]
                await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in batch)), timeout)
            watchers += fresh
            conn.send(
                {
                    "open": sum(w.error is None and not w.closed for w in watchers),
                    "errors": [w.error for w in watchers if w.error][:5],
                }
            )
        elif verb == "expect":
            first, last, timeout = arg
            ends = time.monotonic() + timeout
            while time.monotonic() < ends and not all((w.ids and w.ids[-1] >= last) or w.closed for w in watchers):
                await asyncio.sleep(0.05)
            conn.send(
                {
                    "watchers": len(watchers),
                    "complete": sum(bool(w.ids) and w.ids[-1] >= last for w in watchers),
                    "in_order_once": sum(w.in_order_once(first, last) for w in watchers),
                    "open": sum(not w.closed for w in watchers),
                    "keepalives": sum(w.keepalives for w in watchers),
                    "errors": [w.error for w in watchers if w.error][:5],
                }
            )
        elif verb == "close":
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.send({"closed": len(watchers)})
            return


def _child(conn: Connection, host: str, port: int, game: str, tokens: list[str | None], path: str) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_serve(conn, host, port, game, tokens, path))


class WatcherPool:
    """Watchers of one game (or of the stream at ``path``) held by a child process, so that
    reading thousands of streams does not slow the process that measures commands. Tokens
    rotate over the watchers (``None``: a spectator)."""

    def __init__(self, host: str, port: int, game: str, tokens: list[str | None], path: str = "") -> None:
        self._conn, child = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("spawn").Process(
            target=_child, args=(child, host, port, game, tokens, path), daemon=True
        )
        self._process.start()

    def _ask(self, verb: str, arg: object = None) -> dict[str, object]:
        self._conn.send((verb, arg))
        return self._conn.recv()  # type: ignore[no-any-return]

    def open(self, count: int, after: int = 0, timeout: float = 120.0) -> dict[str, object]:
        """Open ``count`` more streams from ``after``; returns once each has sent its first bytes."""
        return self._ask("open", (count, after, timeout))

    def expect(self, first: int, last: int, timeout: float = 60.0) -> dict[str, object]:
        """Wait until every watcher has seen event ``last``; how many saw ``first``..``last``
        exactly once and in order."""
        return self._ask("expect", (first, last, timeout))

    def close(self) -> None:
        try:
            self._ask("close")
        finally:
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
