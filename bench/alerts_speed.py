"""Turn alert speed, per channel: one real delivery worker (`bluemoon-worker --queues deliveries`,
as the Procfile runs it: niced, with the dispatcher that hands alerts on) sending "your turn" alerts
to local receivers (an SMTP server, a push service, Discord- and Slack-shaped webhooks on
127.0.0.1, each accepting at once), beside a no-op RQ job through the same worker in the same
run (the ratio is the figure).

- alerts per second per worker for each channel (a backlog: many people's turns begin at once),
  against no-op jobs per second;
- the time from the append that starts a person's turn to the receiver, p50/p99 (one command
  at a time).

    python bench/alerts_speed.py [--alerts 200] [--latency 40]
"""

from __future__ import annotations

import argparse
import base64
import os
import signal
import sys
import threading
import time
import uuid
from pathlib import Path

import redis
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from rq import Queue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import RQHandoff, queue_names  # noqa: E402
from application.background.work import DELIVERIES  # noqa: E402
from application.games.game_service import SeatSpec  # noqa: E402
from application.wiring import Components, build  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from bench.noop import noop_rate  # noqa: E402
from bench.server import redis_for, start_worker  # noqa: E402
from bench.webhook_speed import Receiver  # noqa: E402
from domain import Options  # noqa: E402
from domain.commands import EndTurn  # noqa: E402
from events.embedded import free_port  # noqa: E402

QUEUE = "bench-alerts"
OFF = {"email": {"enabled": False, "delay_seconds": 0}, "push": {"enabled": False}, "discord": None, "slack": None}


class Mailbox(Receiver):
    """An SMTP server on 127.0.0.1 (aiosmtpd) that notes when each mail arrived."""

    def __init__(self) -> None:
        self.arrivals: list[float] = []
        self.arrived = threading.Condition()
        mailbox = self

        class Handler:
            async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
                with mailbox.arrived:
                    mailbox.arrivals.append(time.perf_counter())
                    mailbox.arrived.notify_all()
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()


def subscription(endpoint: str) -> tuple[str, str, str]:
    """A browser's subscription: endpoint, p256dh and auth, as the page would send them."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    encode = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()  # noqa: E731
    return endpoint, encode(point), encode(os.urandom(16))


def person(c: Components, channel: str, receiver: Receiver) -> str:
    """An account whose only channel is ``channel``, pointed at the receiver."""
    tag = uuid.uuid4().hex[:12]
    account = c.accounts.use_link(c.accounts.ask_link(f"p-{tag}@example.com", f"bench-{tag}"))  # each its own address
    changes: dict[str, object] = dict(OFF)
    if channel == "email":
        changes["email"] = {"enabled": True, "delay_seconds": 0}
    elif channel == "push":
        changes["push"] = {"enabled": True}
        c.alerts.subscribe(account, *subscription(receiver.url))
    else:
        changes[channel] = {"url": receiver.url}
    c.alerts.put(account, changes)
    return account


def game_for(c: Components, *accounts: str) -> tuple[str, int]:
    """A two-seat game whose seats the accounts keep; seat 0 moves first."""
    created = c.service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    for seat, account in enumerate(accounts):
        c.accounts.add_seat(account, created.game, seat)
    return created.game, created.version


def measure(c: Components, channel: str, receiver: Receiver, count: int, latency: int) -> tuple[float, float, float]:
    """Alerts per second for a backlog of ``count``, and p50/p99 append -> receiver."""
    games = [game_for(c, person(c, channel, receiver), person(c, channel, receiver)) for _ in range(count)]
    before = len(receiver.arrivals)
    start = time.perf_counter()
    for i, (game, version) in enumerate(games):
        c.service.submit(game, EndTurn(0), expected=version, key=f"{channel}-{i}")
    receiver.wait(before + count)
    rate = count / (receiver.arrivals[before + count - 1] - start)
    game, version = game_for(c, person(c, channel, receiver), person(c, channel, receiver))
    seat, latencies, i = 0, [], 0
    while len(latencies) < latency:
        arrived = len(receiver.arrivals)
        sent = time.perf_counter()
        outcome = c.service.submit(game, EndTurn(seat), expected=version, key=f"{channel}-lat-{i}")
        i += 1
        if outcome.state.finished:  # ten quiet rounds end a game (ruling P16), alerting nobody
            game, version = game_for(c, person(c, channel, receiver), person(c, channel, receiver))
            seat = 0
            continue
        receiver.wait(arrived + 1)
        latencies.append(receiver.arrivals[arrived] - sent)
        version, seat = outcome.state.version, 1 - seat
    p50, p99 = percentiles(latencies)
    return rate, p50, p99


def run(args: argparse.Namespace, url: str) -> None:
    mailbox = Mailbox()
    os.environ.update({"WEBHOOK_ALLOW_HOSTS": "127.0.0.1", "SMTP_URL": f"smtp://127.0.0.1:{mailbox.port}"})
    client = redis.Redis.from_url(url)
    c = build(client=client, handoff=RQHandoff(client, queue=QUEUE))
    receivers = {"email": mailbox, "push": Receiver(), "discord": Receiver(), "slack": Receiver()}
    # the Procfile's delivery worker: alerts only, not the turn jobs a turn's start causes beside them
    # (a person's stream, ratings) nor reviews, which a worker taking every queue would run first
    worker = start_worker(url, QUEUE, queues=DELIVERIES)
    try:
        deliveries = Queue(queue_names(QUEUE)[DELIVERIES], connection=client)
        noop = noop_rate(deliveries, args.alerts)  # the baseline, through the same worker
        print(
            f"one delivery worker (--queues deliveries), receivers on 127.0.0.1 accepting at once; "
            f"{args.alerts} alerts and no-op jobs per channel"
        )
        print(f"no-op RQ jobs: {noop:.1f} jobs/s (baseline)")
        for channel, receiver in receivers.items():
            rate, p50, p99 = measure(c, channel, receiver, args.alerts, args.latency)
            print(
                f"{channel:8} {rate:6.1f} alerts/s per worker ({rate / noop:.2f} x the no-op rate); "
                f"turn appended -> receiver p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"
            )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(10)
        mailbox.controller.stop()
        for receiver in receivers.values():
            if hasattr(receiver, "server"):
                receiver.server.shutdown()
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alerts", type=int, default=200)
    parser.add_argument("--latency", type=int, default=40)
    args = parser.parse_args()
    with redis_for("alerts") as url:
        run(args, url)


if __name__ == "__main__":
    main()
