"""Moves per second against the open game server client developers pick first: boardgame.io 0.50.2
(from npm: Node, socket.io 4.8, one process), in memory and with its FlatFile storage, beside this
service's ``POST /games/{game}/commands``, in one run on one machine.

Ours is played as bench/api_speed.py plays it (its load() and player(): the Procfile's gunicorn,
2 gevent workers, the embedded Redis with its append-only file, ``--clients`` keep-alive clients,
each posting its ready games' commands until they end after 20, rate limits off). boardgame.io is
played by bench/peer/load.js: matches made through its lobby API (create, then join each seat)
before the clock starts, each seat on its own socket (websocket), a move counted when the next
state's ``update`` reached the mover, 20 moves a match, then the match is swapped for a fresh one
whose sockets were opened and synced while the last was played (their cost is in its CPU). Its
toy game (bench/peer/toy.js: a 5×5 board, a move checks adjacency and updates a score) is so small
that its server's time is nearly all the library's own. Its FlatFile storage is node-persist 3.1.3
as boardgame.io sets it up, whose write queue writes once a second: a match's next move waits
for the last one's write (the answer went out before it), so moves in a match stall up to 1 s.

Prints each side's moves per second, p50 and p99, server CPU per move (our workers and Redis; the
node process), the load generator's CPU per move where it is a process of its own (the node
drivers), the ceiling those two give (the machine's cores over their sum: the moves a second the
machine would carry with nothing else running and no wait) and the ratio ours / theirs, with the
machine's load average before and after.

    python bench/peer_speed.py [--seconds 5] [--clients 8]

The node side is installed with ``npm ci`` into bench/peer/node_modules (again only when
bench/peer/package-lock.json changed); every process it starts is stopped on the way out, also on
Ctrl-C or failure.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench.api_speed import Tally, load, player  # noqa: E402
from bench.measure import children, cpu_seconds, percentiles  # noqa: E402
from bench.server import redis_for, serve  # noqa: E402
from events.embedded import free_port  # noqa: E402

PEER = ROOT / "bench" / "peer"
#: boardgame.io's rows: its storage and the matches in flight.
ROWS = (("memory", 8), ("memory", 32), ("flatfile", 8))
#: a match's moves before it is swapped for a fresh one: as many as our games take to end.
MOVES = 20
#: more moves a second than either side reaches on a 2-core machine: games are made ready for
#: this many, so that no client runs out of them on the clock.
TOP_RATE = 2500
DURABLE = {
    "ours": "appended by one Lua script, AOF",
    "memory": "no (lost on restart)",
    "flatfile": "written after the answer (≤ 1 s), never synced",
}


class Side(NamedTuple):
    """One row: moves per second, each counted move's latency (s), server CPU per move (s)."""

    name: str
    durable: str
    rate: float
    latencies: list[float]
    cpu: float
    #: the load generator's CPU per move (s), where it is a process of its own (the node drivers)
    client_cpu: float | None = None


def ready(seconds: float, in_flight: int) -> int:
    """How many games (matches) each client (slot) makes before the clock starts."""
    return math.ceil(seconds * TOP_RATE / MOVES / in_flight) + 1


def install() -> None:
    """``npm ci`` into bench/peer/node_modules, unless it holds what the lock file names already."""
    lock = hashlib.sha256((PEER / "package-lock.json").read_bytes()).hexdigest()
    stamp = PEER / "node_modules" / ".installed-from"
    if stamp.exists() and stamp.read_text() == lock:
        return
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=PEER, check=True)
    stamp.write_text(lock)


@contextmanager
def started(argv: list[str], **options) -> Iterator[subprocess.Popen]:  # type: ignore[no-untyped-def,type-arg]
    """A process that is stopped (terminated, killed if it lingers) however the block ends."""
    proc = subprocess.Popen(argv, **options)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def peer_server(stack: ExitStack, storage: str) -> tuple[subprocess.Popen, int]:  # type: ignore[type-arg]
    """boardgame.io's server on a free port, once its lobby API lists the toy game."""
    port = free_port()
    argv = ["node", "server.js", str(port), storage]
    if storage == "flatfile":
        argv.append(stack.enter_context(tempfile.TemporaryDirectory(prefix="bluemoon-peer-")))
    env = {**os.environ, "NODE_ENV": "production"}
    proc = stack.enter_context(started(argv, cwd=PEER, env=env, stdout=subprocess.DEVNULL))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"boardgame.io's server exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/games")
            response = conn.getresponse()
            body = response.read()
            conn.close()
        except OSError:
            time.sleep(0.2)
            continue
        if response.status != 200 or json.loads(body) != ["toy"]:
            raise RuntimeError(
                f"boardgame.io's lobby answered {response.status} {body[:200]!r} (is koa-compose 4.1.0?)"
            )
        return proc, port
    raise RuntimeError("boardgame.io's server did not start")


def driven(stack: ExitStack, argv: list[str], watched: list[int], what: str) -> tuple[dict, float, float]:  # type: ignore[type-arg]
    """Run a bench/peer driver (load.js, ours.js) to its end: what it found, and the CPU seconds
    the ``watched`` processes and the driver itself used between its ``start`` and its ``stop``."""
    driver = stack.enter_context(started(argv, cwd=PEER, stdout=subprocess.PIPE, text=True))
    assert driver.stdout is not None
    lines = iter(driver.stdout.readline, "")
    if next(lines, "").strip() != "start":
        raise RuntimeError(f"bench/peer/{argv[1]} failed before the clock started")
    before, driver_before = sum(cpu_seconds(pid) for pid in watched), cpu_seconds(driver.pid)
    if next(lines, "").strip() != "stop":
        raise RuntimeError(f"bench/peer/{argv[1]} failed on the clock")
    used = sum(cpu_seconds(pid) for pid in watched) - before
    driving = cpu_seconds(driver.pid) - driver_before
    found = json.loads(next(lines))
    if found["made_on_clock"]:
        print(f"  ({what}: {found['made_on_clock']} games made on the clock)")
    return found, used, driving


def peer(storage: str, matches: int, seconds: float) -> Side:
    """boardgame.io with ``storage``, ``matches`` in flight for ``seconds``, played by load.js."""
    with ExitStack() as stack:
        server, port = peer_server(stack, storage)
        argv = ["node", "load.js", f"http://127.0.0.1:{port}", str(matches), str(seconds), str(MOVES)]
        argv.append(str(ready(seconds, matches)))
        found, used, driving = driven(stack, argv, [server.pid], f"{storage}, {matches} matches")
        latencies = [ms / 1000 for ms in found["latencies"]]
        name = f"boardgame.io, {'in memory' if storage == 'memory' else 'FlatFile'}, {matches} matches"
        moves = found["moves"]
        return Side(name, DURABLE[storage], moves / found["elapsed"], latencies, used / moves, driving / moves)


def ours_socket(url: str, games: int, seconds: float) -> Side:
    """This service's play socket (GET /games/{game}/socket) as bench/peer/ours.js plays it: each
    seat on its own WebSocket, ``games`` games in flight, as load.js plays boardgame.io."""
    env = {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0", "PYTHONPATH": str(ROOT)}
    service, port = serve("service.app:create_app()", env)
    try:
        with redis.Redis.from_url(url) as probe:
            redis_pid = int(probe.info("server")["process_id"])
        with ExitStack() as stack:
            argv = ["node", "ours.js", f"http://127.0.0.1:{port}", str(games), str(seconds)]
            argv.append(str(ready(seconds, games)))
            found, used, driving = driven(stack, argv, [*children(service.pid), redis_pid], "ours, socket")
    finally:
        service.terminate()
        service.wait(10)
    name = f"this service, play socket, {games} games"
    latencies = [ms / 1000 for ms in found["latencies"]]
    moves = found["moves"]
    return Side(name, DURABLE["ours"], moves / found["elapsed"], latencies, used / moves, driving / moves)


def ours(url: str, clients: int, seconds: float) -> Side:
    """This service's commands as bench/api_speed.py posts them."""
    env = {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0", "PYTHONPATH": str(ROOT)}
    service, port = serve("service.app:create_app()", env)
    try:
        with redis.Redis.from_url(url) as probe:
            redis_pid = int(probe.info("server")["process_id"])
        tally = Tally()
        served = load(
            port, clients, seconds, player(ready(seconds, clients), tally), [*children(service.pid), redis_pid]
        )
        if tally.made:
            print(f"  (ours: {tally.made} games made on the clock)")
    finally:
        service.terminate()
        service.wait(10)
    name = f"this service, 2 gevent workers + Redis, {clients} clients"
    return Side(name, DURABLE["ours"], served.rate, served.latencies, sum(served.cpu))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="each row's clock")
    parser.add_argument(
        "--clients", type=int, default=8, help="our keep-alive clients, and our games in flight on sockets"
    )
    parser.add_argument(
        "--peers", nargs="*", default=["memory", "flatfile"], help="boardgame.io's storages to run (its rows)"
    )
    args = parser.parse_args()
    # a SIGTERM unwinds like Ctrl-C, so that every process started so far is stopped on the way out
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    install()
    load_before = os.getloadavg()
    with redis_for("peer") as url:
        rows = [ours_socket(url, args.clients, args.seconds)]
    with redis_for("peer-rest") as url:
        rows.append(ours(url, args.clients, args.seconds))
    rows += [peer(storage, matches, args.seconds) for storage, matches in ROWS if storage in args.peers]
    load_after = os.getloadavg()
    print(
        f"one machine ({os.cpu_count()} cores shared by servers and clients), {args.seconds:g} s a row; load average "
        f"{' '.join(f'{x:.1f}' for x in load_before)} before, {' '.join(f'{x:.1f}' for x in load_after)} after"
    )
    print(
        f"{'server':52s} {'durable when it answers':46s} {'moves/s':>8s} {'p50':>9s} {'p99':>9s} {'CPU/move':>9s}"
        f" {'client':>8s} {'ceiling':>8s}  × theirs in memory (8): moves/s, p99 (≥ 1: as good)"
    )
    # the ratio is against boardgame.io in memory with as many matches as our games (its first row)
    base = next((r for r in rows if r.name.startswith("boardgame.io, in memory")), rows[0])
    base_p99 = percentiles(base.latencies)[1]
    for row in rows:
        p50, p99 = percentiles(row.latencies)
        # what the machine's cores would carry if server and client had them all (CPU per move bound)
        client, ceiling = "—", "—"
        if row.client_cpu is not None:
            client = f"{row.client_cpu * 1000:5.2f} ms"
            ceiling = f"{(os.cpu_count() or 1) / (row.cpu + row.client_cpu):8.0f}"
        print(
            f"{row.name:52s} {row.durable:46s} {row.rate:8.0f} {p50 * 1000:6.1f} ms {p99 * 1000:6.1f} ms "
            f"{row.cpu * 1000:6.2f} ms {client:>8s} {ceiling:>8s}  {row.rate / base.rate:5.2f}, {base_p99 / p99:5.2f}"
        )


if __name__ == "__main__":
    main()
