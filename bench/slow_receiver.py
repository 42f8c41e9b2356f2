"""A receiver that never answers, beside the bots (issue 34): a human's command → a greedy
bot's whole reply in the feed, quiet, and then while 20 webhooks on a receiver on 127.0.0.1
that accepts every connection and never says a word take every event of the same 10 games.
The figure is the ratio of the two, measured in the same run on the same worker processes:
one turn worker and one delivery worker, as the Procfile starts them.

    python bench/slow_receiver.py [--replies 100] [--runs 3] [--one-queue]

Each run starts from an empty Redis with fresh workers; the figure is the median of the runs'
ratios (a shared machine's load moves single runs by 30% either way).

``--one-queue`` puts the deliveries on the turn queue, as before they were split, for
comparison (its replies wait behind the deliveries: each is given ``--give-up`` seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import redis
from rq import Queue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import RQHandoff, delivery_queue  # noqa: E402
from application.games.game_service import SeatSpec  # noqa: E402
from application.outbound.limits import ANSWER_TIMEOUT, CONNECT_TIMEOUT  # noqa: E402
from application.outbound.webhooks import Webhooks  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.bot_speed import wait_for_turn  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from bench.server import redis_for  # noqa: E402
from domain import Options  # noqa: E402
from domain.commands import EndTurn  # noqa: E402

QUEUE = "bench-slow-receiver"
GAMES, HOOKS = 10, 20


class Silent:
    """Accepts every connection on 127.0.0.1 and never answers."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.held.append(self.server.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        """Stop listening (refusing new connections) and end every held one."""
        for sock in (self.server, *self.held):
            with contextlib.suppress(OSError):  # (a listening socket is not connected: it still wakes accept)
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def start_worker(url: str, kind: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cli.bluemoon_worker", "--queue", QUEUE, "--queues", kind],
        cwd=ROOT,
        env={**os.environ, "REDIS_URL": url, "PYTHONPATH": str(ROOT), "BLUEMOON_QUEUE": QUEUE, **env},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class Tables:
    """GAMES new games of a human and a greedy bot, the human's command played in each in turn."""

    def __init__(self, service) -> None:  # type: ignore[no-untyped-def]
        self.service = service
        self.games = [self._new() for _ in range(GAMES)]
        self.played = 0

    def _new(self) -> list:
        created = self.service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level="greedy")], first_player=0)
        return [created.game, created.version]

    def replies(self, count: int, give_up: float) -> list[float]:
        """Seconds from the human's command to the bot's whole reply in the feed, ``count`` times."""
        times = []
        for _ in range(count):
            table = self.games[self.played % GAMES]
            self.played += 1
            game, version = table
            start = time.perf_counter()
            self.service.submit(game, EndTurn(0), expected=version, key=f"bench-{game}-{version}")
            try:
                wait_for_turn(self.service, game, 0, timeout=give_up)
            except TimeoutError:
                times.append(float("inf"))
                continue
            times.append(time.perf_counter() - start)
            state = self.service.state(game)
            table[1] = state.version
            if state.finished:
                table[:] = self._new()
        return times


def run(args: argparse.Namespace, url: str) -> tuple[float, float]:
    """One run from an empty Redis with fresh workers: the quiet replies, then the loaded ones;
    prints both and returns the loaded/quiet ratios at p50 and p99."""
    os.environ["WEBHOOK_ALLOW_HOSTS"] = "127.0.0.1"
    env = {"WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
    if args.one_queue:
        os.environ["BLUEMOON_DELIVERY_QUEUE"] = env["BLUEMOON_DELIVERY_QUEUE"] = QUEUE
    client = redis.Redis.from_url(url)
    client.flushdb()
    service = build(client=client, handoff=RQHandoff(client, queue=QUEUE)).service
    silent = Silent()
    workers = [start_worker(url, "turns", env), start_worker(url, "deliveries", env)]
    try:
        Tables(service).replies(GAMES, 30)  # warm-up: the workers start
        # each phase on games of its own from their first turn: both measure the same turns
        quiet = Tables(service).replies(args.replies, 30)
        tables, hooks = Tables(service), Webhooks(service.store)
        for i in range(HOOKS):
            hooks.create(tables.games[i % GAMES][0], 0, silent.url, ["event"])
        loaded = tables.replies(args.replies, args.give_up)
        waiting = Queue(delivery_queue(QUEUE), connection=client).count
        q50, q99 = percentiles(quiet)
        l50, l99 = percentiles(loaded)
        print(
            f"quiet p50 {q50 * 1000:.1f} ms, p99 {q99 * 1000:.1f} ms (baseline); "
            f"{HOOKS} hooks on a silent receiver: p50 {l50 * 1000:.1f} ms, p99 {l99 * 1000:.1f} ms "
            f"({l50 / q50:.2f} x / {l99 / q99:.2f} x); meanwhile {len(silent.held)} connections held open, "
            f"{waiting} deliveries queued, {sum(t == float('inf') for t in loaded)} replies not seen within "
            f"{args.give_up:g} s",
            flush=True,
        )
        return l50 / q50, l99 / q99
    finally:
        silent.close()
        for worker in workers:
            os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replies", type=int, default=100)
    parser.add_argument("--give-up", type=float, default=10.0, help="seconds to wait for one reply")
    parser.add_argument("--one-queue", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="runs from scratch; the ratios' medians are the figure")
    args = parser.parse_args()
    print(
        f"{GAMES} games of a human and greedy; one turn worker, one delivery worker"
        + (" (one queue: the deliveries on the turn queue)" if args.one_queue else "")
        + f"; a human's command -> greedy's whole reply in the feed, {args.replies} replies quiet, then as many "
        f"while {HOOKS} hooks take every event; outbound timeouts {CONNECT_TIMEOUT:g} s to connect, "
        f"{ANSWER_TIMEOUT:g} s to answer"
    )
    with redis_for("slow-receiver", persist=False) as url:
        ratios = [run(args, url) for _ in range(args.runs)]
    p50s, p99s = sorted(r[0] for r in ratios), sorted(r[1] for r in ratios)
    print(
        f"loaded / quiet over {args.runs} runs: p50 {statistics.median(p50s):.2f} x (from {p50s[0]:.2f} to "
        f"{p50s[-1]:.2f}), p99 {statistics.median(p99s):.2f} x (from {p99s[0]:.2f} to {p99s[-1]:.2f})"
    )


if __name__ == "__main__":
    main()
