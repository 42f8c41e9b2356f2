"""The load of bench/capacity.py, in child processes on asyncio and plain sockets: one player
that plays every game's seats (a command per game every ``interval`` seconds) and several
watcher processes that hold every seat's SSE stream, reconnecting as EventSource does.

The parent talks to each child over a pipe: ``("grow", n)`` to the player, ``("stats",)`` to
any of them, ``("stop",)``. The player tells the watcher process of each game slot which game
to watch (``("watch", slot, game, tokens)``), also when it replaces a finished game.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import resource
import time
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any

from bench import measure

HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
_AT = re.compile(rb'"at": ?"([^"]+)"')


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _orphan_guard() -> None:
    """End the process when its parent is gone (killed without a chance to stop us)."""
    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(1)
    os._exit(1)


def _listen(conn: Connection) -> asyncio.Queue[Any]:
    """The parent's (and the player's) messages, as an asyncio queue."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def readable() -> None:
        try:
            queue.put_nowait(conn.recv())
        except EOFError:
            loop.remove_reader(conn.fileno())
            queue.put_nowait(("stop",))

    loop.add_reader(conn.fileno(), readable)
    return queue


def percentiles(values: list[float]) -> dict[str, float]:
    """bench/measure.py's median and 99th percentile, with the count, as the report reads them."""
    if not values:
        return {"n": 0, "p50": float("nan"), "p99": float("nan")}
    p50, p99 = measure.percentiles(values)
    return {"n": len(values), "p50": p50, "p99": p99}


# -- the player ----------------------------------------------------------------------------


class Http:
    """One keep-alive HTTP/1.1 connection for JSON requests."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        for attempt in (1, 2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                return await self._call(method, path, body, headers)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _call(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        assert self.reader is not None and self.writer is not None
        data = json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data)
        line = await self.reader.readline()
        if not line:  # the server closed the idle connection (gunicorn's keepalive): retried
            raise ConnectionResetError("closed while idle")
        status = int(line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and b"close" in value.lower():
                close = True
        payload = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Player:
    """Every game's two seats, played by ``end_turn`` (the Reset: always legal, no discards
    needed, as the hand has no limit). Ruling P16 ends such a game in a stalemate after 10
    quiet rounds (20 commands): it is then replaced by a new game in the same slot, whose
    watchers move to it."""

    def __init__(self, host: str, port: int, interval: float, watchers: list[Connection], connections: int) -> None:
        self.interval = interval
        self.watchers = watchers
        self.pool: asyncio.Queue[Http] = asyncio.Queue()
        for _ in range(connections):
            self.pool.put_nowait(Http(host, port))
        self.games: list[dict[str, Any]] = []
        self.playing: list[asyncio.Task[None]] = []
        self.latencies: list[float] = []
        self.late: list[float] = []  #: how long a command waited for a free connection
        self.failures: list[str] = []
        self.slow: list[tuple[float, float]] = []  #: (when, seconds) of commands over 0.5 s
        self.replaced = 0

    async def _call(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any, float, float]:
        asked = time.perf_counter()
        http = await self.pool.get()
        try:
            started = time.perf_counter()
            status, doc = await http.call(method, path, body, headers)
            return status, doc, time.perf_counter() - started, started - asked
        finally:
            self.pool.put_nowait(http)

    async def _new_game(self, slot: int) -> None:
        for _ in range(30):  # an overloaded server answers 503 (Redis's pool ran dry): retried
            status, doc, _, _ = await self._call("POST", "/games", HUMANS, {})
            if status == 201:
                break
            self.failures.append(f"POST /games {status}")
            await asyncio.sleep(1.0)
        else:
            raise RuntimeError(f"POST /games answered {status}: {doc}")
        game = {"id": doc["game"], "tokens": [s["token"] for s in doc["seats"]], "version": doc["version"], "seat": 0}
        self.games[slot] = game
        self.watchers[slot % len(self.watchers)].send(("watch", slot, game["id"], game["tokens"]))

    async def grow(self, count: int) -> None:
        """``count`` more games (16 created at a time), each then played for ever."""
        first = len(self.games)
        self.games += [{}] * count
        gate = asyncio.Semaphore(16)

        async def one(slot: int) -> None:
            async with gate:
                await self._new_game(slot)
            self.playing.append(asyncio.create_task(self._play(slot)))

        await asyncio.gather(*(one(slot) for slot in range(first, first + count)))

    async def _play(self, slot: int) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(random.uniform(0, self.interval))
        due = loop.time()
        while True:
            await self._command(slot)
            due += self.interval
            await asyncio.sleep(max(0.0, due - loop.time()))

    async def _command(self, slot: int) -> None:
        game = self.games[slot]
        headers = {
            "Authorization": f"Bearer {game['tokens'][game['seat']]}",
            "If-Match": f'"{game["version"]}"',
            "Idempotency-Key": f"{game['id']}-{game['version']}",
        }
        try:
            status, doc, took, waited = await self._call(
                "POST", f"/games/{game['id']}/commands", {"type": "end_turn", "discards": []}, headers
            )
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            self.failures.append(f"{type(error).__name__}: {error}")
            return
        self.latencies.append(took)
        self.late.append(waited)
        if took > 0.5:
            self.slow.append((round(time.time(), 1), round(took, 2)))
        if status != 200:
            self.failures.append(f"{status} {doc.get('code') if isinstance(doc, dict) else doc}")
            return
        game["version"] = doc["version"]
        turn = doc["view"]["turn"]
        if turn is None:
            self.replaced += 1
            await self._new_game(slot)
        else:
            game["seat"] = turn["seat"]

    def stats(self) -> dict[str, Any]:
        found = {
            "games": len(self.games),
            "commands": percentiles(self.latencies),
            "waited": percentiles(self.late),
            "failed": len(self.failures),
            "failure_samples": self.failures[:3],
            "replaced": self.replaced,
            "slow": self.slow,
        }
        self.latencies, self.late, self.failures, self.replaced, self.slow = [], [], [], 0, []
        return found


async def _player_main(
    conn: Connection, host: str, port: int, interval: float, watchers: list[Connection], connections: int
) -> None:
    player = Player(host, port, interval, watchers, connections)
    player.playing.append(asyncio.create_task(_orphan_guard()))
    inbox = _listen(conn)
    while True:
        verb, *args = await inbox.get()
        if verb == "grow":
            await player.grow(args[0])
            conn.send({"games": len(player.games)})
        elif verb == "stats":
            conn.send(player.stats())
        elif verb == "stop":
            return


def player_process(
    conn: Connection, host: str, port: int, interval: float, watchers: list[Connection], connections: int
) -> None:
    _raise_fd_limit()
    asyncio.run(_player_main(conn, host, port, interval, watchers, connections))


# -- the watchers --------------------------------------------------------------------------


class Streams:
    """Every SSE stream of this process's game slots (``per_game`` per game: the seats' tokens
    first, then spectators), each reconnecting with Last-Event-ID when its response ends."""

    def __init__(self, host: str, port: int, per_game: int) -> None:
        self.host, self.port, self.per_game = host, port, per_game
        self.slots: dict[int, list[asyncio.Task[None]]] = {}
        self.guard: asyncio.Task[None] | None = None
        self.opening = asyncio.Semaphore(200)  #: connects at a time: the listen backlog is finite
        self.open = 0
        self.watching = 0  #: streams that opened at least once (with short lifetimes some are always between two)
        self.connects = 0
        self.errors: list[str] = []
        self.delays: list[float] = []  #: from an event's time (``at``) to its arrival here
        self.frames = 0
        self.keepalives = 0

    def watch(self, slot: int, game: str, tokens: list[str]) -> None:
        for task in self.slots.pop(slot, []):
            task.cancel()
        seats: list[str | None] = [*tokens, *[None] * self.per_game][: self.per_game]
        self.slots[slot] = [asyncio.create_task(self._follow(game, token)) for token in seats]

    async def _follow(self, game: str, token: str | None) -> None:
        """The stream of one seat (or spectator) for ever: as EventSource, it waits the
        stream's ``retry`` before each reconnection, after a clean end as after an error."""
        state: dict[str, Any] = {"last": None, "retry": 1.0, "watching": False}
        try:
            while True:
                try:
                    await self._stream(game, token, state)
                except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
                    self.errors.append(f"{type(error).__name__}: {error}")
                await asyncio.sleep(state["retry"])
        finally:  # cancelled: its game was replaced
            self.watching -= state["watching"]

    async def _stream(self, game: str, token: str | None, state: dict[str, Any]) -> None:
        """One response: its events until it ends; ``state`` keeps the last event id seen
        and the reconnection delay the server asked for (``retry: <ms>``)."""
        writer = None
        counted = False
        try:
            async with self.opening:
                reader, writer = await asyncio.open_connection(self.host, self.port)
                head = f"GET /games/{game}/stream HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n"
                if token:
                    head += f"Authorization: Bearer {token}\r\n"
                if state["last"] is not None:
                    head += f"Last-Event-ID: {state['last']}\r\n"
                writer.write(head.encode() + b"\r\n")
                status = int((await reader.readline()).split()[1])
                while await reader.readline() not in (b"\r\n", b""):
                    pass
                if status != 200:
                    raise ValueError(f"status {status}")
            self.connects += 1
            self.open += 1
            counted = True
            if not state["watching"]:
                state["watching"] = True
                self.watching += 1
            since = time.time()
            buffer = b""
            while True:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    return
                buffer += await reader.readexactly(size)
                await reader.readexactly(2)
                *frames, buffer = buffer.split(b"\n\n")
                arrived = time.time()
                for frame in frames:
                    if frame.startswith(b"id: "):
                        state["last"] = int(frame[4 : frame.index(b"\n")])
                        self.frames += 1
                        found = _AT.search(frame)
                        if found:
                            at = datetime.fromisoformat(found[1].decode()).timestamp()
                            if at >= since:  # live, not caught up on connecting
                                self.delays.append(arrived - at)
                    elif frame.startswith(b": keep-alive"):
                        self.keepalives += 1
                    elif frame.startswith(b"retry: "):
                        state["retry"] = int(frame[7:]) / 1000
        finally:
            if counted:
                self.open -= 1
            if writer is not None:
                writer.close()

    def stats(self) -> dict[str, Any]:
        found = {
            "streams": sum(len(tasks) for tasks in self.slots.values()),
            "open": self.open,
            "watching": self.watching,
            "connects": self.connects,
            "errors": len(self.errors),
            "error_samples": self.errors[:3],
            "delays": percentiles(self.delays),
            "frames": self.frames,
            "keepalives": self.keepalives,
        }
        self.connects, self.errors, self.delays, self.frames, self.keepalives = 0, [], [], 0, 0
        return found


async def _watcher_main(conn: Connection, player: Connection, host: str, port: int, per_game: int) -> None:
    streams = Streams(host, port, per_game)
    streams.guard = asyncio.create_task(_orphan_guard())
    inbox = _listen(conn)
    games = _listen(player)
    while True:
        get_parent = asyncio.create_task(inbox.get())
        get_game = asyncio.create_task(games.get())
        done, _ = await asyncio.wait({get_parent, get_game}, return_when=asyncio.FIRST_COMPLETED)
        for task in (get_parent, get_game):
            if task not in done:
                task.cancel()
        if get_game in done:
            verb, *args = get_game.result()
            if verb == "watch":
                streams.watch(*args)
        if get_parent in done:
            verb = get_parent.result()[0]
            if verb == "stats":
                conn.send(streams.stats())
            elif verb == "stop":
                return


def watcher_process(conn: Connection, player: Connection, host: str, port: int, per_game: int) -> None:
    _raise_fd_limit()
    asyncio.run(_watcher_main(conn, player, host, port, per_game))
