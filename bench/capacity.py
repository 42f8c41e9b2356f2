"""A machine's worth of games: how many concurrent async games, each seat watching over SSE,
the Procfile's processes serve before command p99 passes 100 ms (issue 25, item 4).

Runs the Procfile's ``web`` (gunicorn, service/gunicorn_conf.py: 2 gevent workers) and
``worker`` (bluemoon-worker) on the embedded Redis; the load runs in child processes
(bench/capacity_load.py): one player posting a command per game every ``--interval`` seconds,
and ``--watcher-processes`` holding ``--watchers-per-game`` SSE streams per game. Games are
added in steps; after each step's ramp, ``--hold`` seconds are measured:

- command latency at the client that posts (p50, p99), commands per second, failures;
- the time from an event (its ``at``, stamped by the web process) to its arrival at a
  watcher (p50, p99);
- Redis memory per game (``INFO memory`` used_memory delta / games) and web memory per
  watcher (the web workers' RSS delta / watchers);
- CPU of each process (web workers, Redis, worker, player, watchers) and of everything else on
  the machine, as a share of one core: what runs out first; the web workers' CPU per command
  (its watchers' share included) and per watcher and minute, with the streams' (re)connections
  and keep-alives per second that it pays for, and the web workers' garbage collections of
  10 ms or more (each holds every request of its worker).

It stops at the first step whose command p99 passes ``--p99-ms`` (100).

    python bench/capacity.py                       # quick: 200 to 1,000 games, 20 s a step
    python bench/capacity.py --start 2000 --step 2000 --max-games 10000 --hold 60
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import QUEUE  # noqa: E402
from bench.capacity_load import player_process, watcher_process  # noqa: E402
from bench.measure import children, cpu_seconds  # noqa: E402
from bench.server import serve, start_worker  # noqa: E402
from bench.watchers import worker_rss  # noqa: E402
from events.embedded import EmbeddedRedis  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds the whole machine (every core, every process) has been busy."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / TICK


def open_files(pids: list[int]) -> int:
    return sum(len(os.listdir(f"/proc/{pid}/fd")) for pid in pids if os.path.exists(f"/proc/{pid}/fd"))


class Child:
    """A load process and its pipe."""

    def __init__(self, target: Any, args: tuple[Any, ...]) -> None:
        self.conn, theirs = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(target=target, args=(theirs, *args), daemon=True)
        self.process.start()

    def ask(self, *message: Any) -> Any:
        self.conn.send(message)
        return self.conn.recv()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("stop",))
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()


class Stack:
    """Redis, the web process, the worker and the load processes; ``close`` stops them all."""

    def __init__(self) -> None:
        self.redis: EmbeddedRedis | None = None
        self.web: Any = None
        self.worker: Any = None
        self.player: Child | None = None
        self.watchers: list[Child] = []

    def start(self, args: argparse.Namespace) -> None:
        self.redis = EmbeddedRedis(tempfile.mkdtemp(prefix="bluemoon-capacity-"))
        self.gc_logs = Path(tempfile.mkdtemp(prefix="bluemoon-capacity-gc-"))
        env = {**os.environ, "REDIS_URL": self.redis.url, "RATE_LIMIT": "0", "BLUEMOON_GC_LOG": str(self.gc_logs)}
        self.web, port = serve("service.app:create_app()", env, args.code)
        self.worker = start_worker(self.redis.url, QUEUE, args.code)
        pipes = [multiprocessing.Pipe() for _ in range(args.watcher_processes)]
        self.watchers = [
            Child(watcher_process, (theirs, "127.0.0.1", port, args.watchers_per_game)) for _, theirs in pipes
        ]
        self.player = Child(
            player_process, ("127.0.0.1", port, args.interval, [mine for mine, _ in pipes], args.connections)
        )
        self.client = redis.Redis.from_url(self.redis.url)
        self.client.config_set("latency-monitor-threshold", 100)  # Redis's own stalls over 100 ms

    def pids(self) -> dict[str, list[int]]:
        assert self.web and self.worker and self.redis and self.player
        return {
            "web": children(self.web.pid),
            "redis": [self.redis.process.pid],
            "worker": [self.worker.pid, *children(self.worker.pid)],
            "player": [self.player.process.pid],
            "watchers": [w.process.pid for w in self.watchers],
        }

    def collections(self, since: float, until: float) -> list[tuple[int, float, float]]:
        """The web workers' garbage collections of 10 ms or more between two times (unix):
        (generation, wall seconds, CPU seconds) each (service/gunicorn_conf.py logs them under
        BLUEMOON_GC_LOG)."""
        found = []
        for log in self.gc_logs.glob("gc-*.log"):
            for line in log.read_text().splitlines():
                at, generation, wall, cpu = line.split()
                if since <= float(at) <= until:
                    found.append((int(generation), float(wall), float(cpu)))
        return found

    def redis_memory(self) -> int:
        return int(self.client.info("memory")["used_memory"])

    def close(self) -> None:
        for child in [*([self.player] if self.player else []), *self.watchers]:
            child.stop()
        if self.web is not None:
            self.web.terminate()
            try:
                self.web.wait(30)
            except Exception:
                self.web.kill()
        if self.worker is not None:
            try:
                os.killpg(self.worker.pid, signal.SIGTERM)
                self.worker.wait(10)
            except (ProcessLookupError, Exception):
                os.killpg(self.worker.pid, signal.SIGKILL)
        if self.redis is not None:
            self.redis.stop()


def ramp(stack: Stack, games: int, per_game: int, timeout: float = 600) -> int:
    """Add games up to ``games`` and wait until each of their streams has opened; the streams
    (open, or between two responses)."""
    assert stack.player is not None
    have = stack.player.ask("stats")["games"]
    if games > have:
        stack.player.ask("grow", games - have)
    deadline = time.monotonic() + timeout
    while True:
        opened = sum(w.ask("stats")["watching"] for w in stack.watchers)
        if opened >= games * per_game or time.monotonic() > deadline:
            return opened
        time.sleep(1)


def hold(stack: Stack, seconds: float) -> dict[str, Any]:
    """Measure ``seconds`` of steady play."""
    assert stack.player is not None
    stack.player.ask("stats")
    for w in stack.watchers:
        w.ask("stats")
    pids = stack.pids()
    cpu0 = {name: sum(map(cpu_seconds, p)) for name, p in pids.items()}
    busy0, started, wall = machine_busy(), time.monotonic(), time.time()
    time.sleep(seconds)
    elapsed = time.monotonic() - started
    cpu = {name: (sum(map(cpu_seconds, p)) - cpu0[name]) / elapsed for name, p in pids.items()}
    cpu["others"] = (machine_busy() - busy0) / elapsed - sum(cpu.values())
    played = stack.player.ask("stats")
    seen = [w.ask("stats") for w in stack.watchers]
    return {
        "elapsed": elapsed,
        "played": played,
        "seen": seen,
        "cpu": cpu,
        "web_files": [open_files([pid]) for pid in pids["web"]],
        "collections": stack.collections(wall, time.time()),
    }


def ms(value: float) -> str:
    return f"{value * 1000:.0f}"


def report(games: int, opened: int, measured: dict[str, Any], base: dict[str, int], stack: Stack) -> float:
    played, seen, cpu = measured["played"], measured["seen"], measured["cpu"]
    commands = played["commands"]
    delay_n = sum(s["delays"]["n"] for s in seen)
    # the watcher processes' percentiles, weighted by count: close enough for a table row
    delay_p50 = sum(s["delays"]["p50"] * s["delays"]["n"] for s in seen if s["delays"]["n"]) / max(1, delay_n)
    delay_p99 = max((s["delays"]["p99"] for s in seen if s["delays"]["n"]), default=float("nan"))
    redis_per_game = (stack.redis_memory() - base["redis"]) / games
    web_per_watcher = (worker_rss(stack.web.pid) - base["web"]) / max(1, opened)
    print(
        f"| {games:,} | {opened:,} | {commands['n'] / measured['elapsed']:.0f} | {ms(commands['p50'])} | "
        f"{ms(commands['p99'])} | {ms(played['waited']['p99'])} | {ms(delay_p50)} | {ms(delay_p99)} | "
        f"{played['failed']} | {sum(s['errors'] for s in seen)} | {played['replaced']} | "
        f"{redis_per_game / 1024:.1f} | {web_per_watcher / 1024:.1f} | "
        f"{' / '.join(f'{cpu[k] * 100:.0f}' for k in ('web', 'redis', 'worker', 'player', 'watchers', 'others'))} | "
        f"{commands['n'] and cpu['web'] * measured['elapsed'] * 1000 / commands['n']:.1f} | "
        f"{cpu['web'] * 1000 * 60 / max(1, opened):.2f} | "
        f"{sum(s['connects'] for s in seen) / measured['elapsed']:.0f} | "
        f"{sum(s['keepalives'] for s in seen) / measured['elapsed']:.0f} | "
        f"{' / '.join(f'{n:,}' for n in measured['web_files'])} |",
        flush=True,
    )
    if played["slow"]:
        spells = sorted({int(at) for at, _ in played["slow"]})
        print(
            f"  {len(played['slow'])} commands over 0.5 s (longest {max(s for _, s in played['slow']):.1f} s), "
            f"in the seconds {spells[:12]}",
            flush=True,
        )
    if measured["collections"]:
        walls, cpus = [c[1] for c in measured["collections"]], [c[2] for c in measured["collections"]]
        full = sum(1 for generation, *_ in measured["collections"] if generation == 2)
        print(
            f"  web garbage collections of 10 ms or more: {len(walls)} ({full} full), {sum(walls):.2f} s in all, "
            f"the longest {max(walls):.2f} s (CPU: {sum(cpus):.2f} s, the most {max(cpus):.2f} s)",
            flush=True,
        )
    latest = stack.client.execute_command("LATENCY", "LATEST")
    if latest:
        print(f"  Redis LATENCY LATEST: {latest}", flush=True)
    if played["failure_samples"]:
        print(f"  failed commands, e.g. {played['failure_samples']}", flush=True)
    for s in seen:
        if s["error_samples"]:
            print(f"  watcher errors, e.g. {s['error_samples']}", flush=True)
    return float(commands["p99"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--start", type=int, default=200, help="games in the first step")
    parser.add_argument("--step", type=int, default=400, help="games added each step")
    parser.add_argument("--max-games", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=20, help="seconds measured each step")
    parser.add_argument("--watchers-per-game", type=int, default=2)
    parser.add_argument("--interval", type=float, default=30, help="seconds between two commands of a game")
    parser.add_argument("--watcher-processes", type=int, default=4)
    parser.add_argument("--connections", type=int, default=100, help="the player's keep-alive connections")
    parser.add_argument("--p99-ms", type=float, default=100)
    parser.add_argument("--keep-going", action="store_true", help="go on to --max-games past the p99 limit")
    parser.add_argument(
        "--code", type=Path, default=ROOT, help="the checkout whose web and worker run (another, to compare with)"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that ``finally`` stops everything
    stack = Stack()
    try:
        stack.start(args)
        base = {"redis": stack.redis_memory(), "web": worker_rss(stack.web.pid)}
        print(
            f"gunicorn (service/gunicorn_conf.py), bluemoon-worker, embedded Redis; {os.cpu_count()} cores; "
            f"a command per game every {args.interval:g} s; {args.watchers_per_game} SSE watchers per game "
            f"over {args.watcher_processes} processes; {args.hold:g} s measured per step; code: {args.code}",
            flush=True,
        )
        print(
            "| games | watchers | commands/s | p50 ms | p99 ms | waited p99 ms | event→watcher p50 ms | p99 ms "
            "| failed | stream errors | games replaced | Redis KiB/game | web KiB/watcher "
            "| CPU % web / redis / worker / player / watchers / others | web CPU ms/command "
            "| web CPU ms/watcher/min | (re)connects/s | keep-alives/s | web fds each |",
            flush=True,
        )
        print("|" + "---|" * 21, flush=True)
        games = args.start
        while games <= args.max_games:
            opened = ramp(stack, games, args.watchers_per_game)
            measured = hold(stack, args.hold)
            p99 = report(games, opened, measured, base, stack)
            if p99 * 1000 > args.p99_ms:
                print(f"command p99 passed {args.p99_ms:g} ms at {games:,} games", flush=True)
                if not args.keep_going:
                    break
            games += args.step
    finally:
        stack.close()


if __name__ == "__main__":
    main()
