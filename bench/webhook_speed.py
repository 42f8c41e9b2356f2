"""Webhook delivery speed: one real worker (`bluemoon-worker`) delivering to a receiver on
127.0.0.1 that answers 200 at once, beside a no-op RQ job through the same worker in the
same run (the ratio is the figure).

- deliveries per second per worker (a backlog of deliveries, all due at once), against no-op
  jobs per second;
- the time from the event's append to the receiver, p50/p99 (one command at a time).

    python bench/webhook_speed.py [--deliveries 300] [--latency 60]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import redis
from rq import Queue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import RQHandoff  # noqa: E402
from application.games.game_service import SeatSpec  # noqa: E402
from application.outbound.webhooks import Webhooks  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from bench.noop import noop_rate  # noqa: E402
from bench.server import redis_for, start_worker  # noqa: E402
from domain import Options  # noqa: E402
from domain.commands import EndTurn  # noqa: E402

QUEUE = "bench-webhooks"


class Receiver:
    """Answers 200 at once and notes when each message arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.arrived:
                    receiver.arrivals.append(time.perf_counter())
                    receiver.arrived.notify_all()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout: float = 120) -> None:
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.arrivals) >= count, timeout):
                raise TimeoutError(f"{len(self.arrivals)} of {count} deliveries arrived")


def run(args: argparse.Namespace, url: str) -> None:
    os.environ["WEBHOOK_ALLOW_HOSTS"] = "127.0.0.1"
    client = redis.Redis.from_url(url)
    service = build(client=client, handoff=RQHandoff(client, queue=QUEUE)).service
    receiver = Receiver()
    worker = start_worker(url, QUEUE)
    try:
        noop = noop_rate(Queue(QUEUE, connection=client), args.deliveries)  # the baseline, through the same worker

        # throughput: every event of many commands, to one seat's "event" webhook
        games = []
        for _ in range(-(-args.deliveries // 3)):  # ending a turn appends three events
            created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
            Webhooks(service.store).create(created.game, 1, receiver.url, ["event"])
            games.append((created.game, created.version))
        start = time.perf_counter()
        expected = 0
        for i, (game, version) in enumerate(games):
            outcome = service.submit(game, EndTurn(0), expected=version, key=f"bench-{i}")
            expected += len(outcome.events)
        receiver.wait(expected)
        delivery_rate = expected / (receiver.arrivals[-1] - start)

        # latency: one command at a time, until its turn.started delivery arrives
        receiver.arrivals.clear()
        created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
        Webhooks(service.store).create(created.game, 0, receiver.url, ["turn.started"])
        Webhooks(service.store).create(created.game, 1, receiver.url, ["turn.started"])
        version, seat, latencies = created.version, 0, []
        for i in range(args.latency):
            sent = time.perf_counter()
            outcome = service.submit(created.game, EndTurn(seat), expected=version, key=f"lat-{i}")
            receiver.wait(i + 1)
            latencies.append(receiver.arrivals[i] - sent)
            version, seat = outcome.state.version, 1 - seat
        p50, p99 = percentiles(latencies)
        print(
            f"one worker, receiver on 127.0.0.1 answering 200 at once; {expected} deliveries, {args.deliveries} no-op jobs"
        )
        print(f"no-op RQ jobs: {noop:.1f} jobs/s (baseline)")
        print(
            f"webhook deliveries: {delivery_rate:.1f} deliveries/s per worker ({delivery_rate / noop:.2f} x the no-op job rate)"
        )
        print(
            f"event appended -> receiver: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(latencies)} commands"
        )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(10)
        receiver.server.shutdown()
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deliveries", type=int, default=300)
    parser.add_argument("--latency", type=int, default=60)
    args = parser.parse_args()
    with redis_for("webhooks") as url:
        run(args, url)


if __name__ == "__main__":
    main()
