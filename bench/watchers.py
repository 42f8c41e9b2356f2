"""Live updates under load: SSE watchers of one game while a client plays commands.

The web process runs as the Procfile says (gunicorn, 2 gevent workers); the watchers are
real HTTP streams held by a child process (bench/watch.py). Reports, each in the same run:

- command p50/p99 (POST /commands) and /healthz p50/p99 with no watchers (the baseline), then
  with ``--watchers`` watchers: the ratio is the figure; every watcher must get every event
  exactly once, in order;
- the most watchers held: streams are added in steps up to ``--max``; a step counts when
  every watcher held so far receives a new command's events;
- memory per watcher: the web workers' resident memory, before and after.

    python bench/watchers.py [--watchers 1000] [--max 10000] [--commands 60]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import percentiles  # noqa: E402
from bench.server import call, redis_for, serve  # noqa: E402
from bench.watch import WatcherPool  # noqa: E402


class Player:
    """Two human seats taking turns (``end_turn``) over one keep-alive connection."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        status, data = call(
            self.conn,
            "POST",
            "/games",
            {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}},
            {"Content-Type": "application/json"},
        )
        doc = json.loads(data)
        self.game, self.tokens, self.version, self.seat = (
            doc["game"],
            [s["token"] for s in doc["seats"]],
            doc["version"],
            0,
        )

    def play(self, count: int) -> tuple[list[float], int]:
        """``count`` commands; their latencies, and how many were not answered 200."""
        latencies, failed = [], 0
        for _ in range(count):
            headers = {
                "Authorization": f"Bearer {self.tokens[self.seat]}",
                "Content-Type": "application/json",
                "If-Match": f'"{self.version}"',
                "Idempotency-Key": f"{self.game}-{self.version}",
            }
            started = time.perf_counter()
            status, data = call(
                self.conn, "POST", f"/games/{self.game}/commands", {"type": "end_turn", "discards": []}, headers
            )
            latencies.append(time.perf_counter() - started)
            if status != 200:
                failed += 1
                continue
            doc = json.loads(data)
            self.version, self.seat = doc["version"], doc["view"]["turn"]["seat"]
            time.sleep(0.02)  # a human pace, not a flood: the watchers are the load here
        return latencies, failed


def probe_health(port: int, stop: threading.Event, into: list[float]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        started = time.perf_counter()
        status, _ = call(conn, "GET", "/healthz")
        into.append(time.perf_counter() - started if status == 200 else float("inf"))
        time.sleep(0.05)


def phase(port: int, player: Player, commands: int) -> tuple[list[float], int, list[float]]:
    health: list[float] = []
    stop = threading.Event()
    prober = threading.Thread(target=probe_health, args=(port, stop, health))
    prober.start()
    try:
        latencies, failed = player.play(commands)
    finally:
        stop.set()
        prober.join()
    return latencies, failed, health


def worker_rss(master: int) -> int:
    """Resident bytes of gunicorn's worker processes (the master's children)."""
    total = 0
    for child in Path(f"/proc/{master}/task/{master}/children").read_text().split():
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def ms(pair: tuple[float, float]) -> str:
    return f"p50 {pair[0] * 1000:6.1f} ms  p99 {pair[1] * 1000:6.1f} ms"


def run(args: argparse.Namespace, url: str) -> None:
    web, port = serve("service.app:create_app()", {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0"})
    pool = None
    try:
        player = Player(port)
        player.play(4)
        base_lat, base_failed, base_health = phase(port, player, args.commands)
        rss0 = worker_rss(web.pid)

        pool = WatcherPool("127.0.0.1", port, player.game, [None, player.tokens[0], player.tokens[1]])
        opened = pool.open(args.watchers)
        first_seen = 1
        lat, failed, health = phase(port, player, args.commands)
        seen = pool.expect(first_seen, player.version)
        b, w = percentiles(base_lat), percentiles(lat)
        hb, hw = percentiles(base_health), percentiles(health)
        print(f"gunicorn 2 gevent workers (Procfile), one game, {args.commands} commands per phase, 2 cores")
        print(f"no watchers          commands {ms(b)}  /healthz {ms(hb)}  failed {base_failed}")
        print(
            f"{args.watchers:5d} watchers       commands {ms(w)}  /healthz {ms(hw)}  failed {failed}  "
            f"(opened {opened['open']})"
        )
        print(
            f"  ratio to no watchers: commands p50 {w[0] / b[0]:.2f} x, p99 {w[1] / b[1]:.2f} x; "
            f"/healthz p99 {hw[1] / hb[1]:.2f} x"
        )
        print(
            f"  every event once, in order: {seen['in_order_once']} of {seen['watchers']} watchers "
            f"(complete {seen['complete']}, errors {seen['errors']})"
        )

        held = args.watchers
        rss = worker_rss(web.pid)
        while held < args.max:
            step = min(args.step, args.max - held)
            try:
                opened = pool.open(step, timeout=120)
            except Exception as error:
                print(f"  could not open {step} more: {error}")
                break
            before = player.version
            lat, failed, health = phase(port, player, 3)
            seen = pool.expect(before + 1, player.version, timeout=120)
            complete = seen["complete"]
            print(
                f"  {seen['watchers']:6d} watchers: {complete} got the new events; "
                f"commands {ms(percentiles(lat))}  /healthz {ms(percentiles(health))}  failed {failed}"
            )
            if complete != seen["watchers"] or failed:
                break
            held = int(seen["watchers"])  # type: ignore[call-overload]
            rss = worker_rss(web.pid)
        print(f"most watchers held (each got every new event): {held}")
        print(
            f"memory per watcher: {(rss - rss0) / held / 1024:.1f} KiB "
            f"(workers' RSS {rss0 / 2**20:.0f} MiB -> {rss / 2**20:.0f} MiB)"
        )
    finally:
        if pool is not None:
            pool.close()
        web.terminate()
        web.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--max", type=int, default=10_000)
    parser.add_argument("--step", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=60)
    args = parser.parse_args()
    with redis_for("watchers") as url:
        run(args, url)


if __name__ == "__main__":
    main()
