"""What the processes count for Prometheus: requests, commands, deliveries, open streams, the
live feed's lag. Gauges read from Redis at each scrape are in ``readings``.

With PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode) each process keeps its
numbers in a file of that folder, and ``/metrics`` sums them: gunicorn's workers and, on the
same machine, the RQ workers. An RQ worker forks a work-horse for each job; each horse would
leave a file of its own, and a scrape reads every file, so the horses of one worker share one
(``horse<worker pid>``): a worker runs one horse at a time, and a horse's counts go on from the
last one's. Without the folder each process keeps its own numbers in memory (tests, one process).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, values

from application.settings import PROMETHEUS_MULTIPROC_DIR

_horse_of: list[int] = []  #: the worker pid whose file this process (a work-horse) shares


def identity() -> str:
    """Which file this process's numbers go to: its pid, or a work-horse's worker's."""
    return f"horse{_horse_of[0]}" if _horse_of else str(os.getpid())


def in_work_horse(worker_pid: int) -> None:
    """Called in an RQ work-horse as it starts: count into its worker's horses' file."""
    _horse_of[:] = [worker_pid]


def multiprocess() -> bool:
    return bool(PROMETHEUS_MULTIPROC_DIR.read())


if multiprocess():  # chosen before the first metric is made, as prometheus-client requires
    values.ValueClass = values.MultiProcessValue(identity)

#: seconds: a command or a read in milliseconds, a long poll up to 30 s
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter(
    "bluemoon_http_requests",
    "HTTP requests answered, by operation (openapi.yaml's operationId; `unmatched` for no route) and status",
    ["operation", "status"],
)
REQUEST_SECONDS = Histogram(
    "bluemoon_http_request_seconds",
    "Time to answer an HTTP request (an event stream's: until its first bytes), by operation",
    ["operation"],
    buckets=LATENCY_BUCKETS,
)
COMMANDS = Counter(
    "bluemoon_commands_applied",
    "Commands applied to games (each once: a retried Idempotency-Key is not counted), by who sent them",
    ["actor"],
)
DELIVERIES = Counter(
    "bluemoon_deliveries",
    "Delivery attempts by channel (webhook, app_webhook, mail, push, discord, slack; alert: an alert held back "
    "as a whole) and outcome (delivered, retrying, failed, deferred, skipped, dropped, superseded)",
    ["channel", "outcome"],
)
OPEN_STREAMS = Gauge(
    "bluemoon_open_streams",
    "Event streams (SSE) open now, by stream: a game's or a person's news",
    ["stream"],
    multiprocess_mode="livesum",
)
FEED_LAG = Histogram(
    "bluemoon_feed_lag_seconds",
    "From an event's append to its reaching this process's watchers through the live feed, by stream",
    ["stream"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)


def command_applied(actor: str) -> None:
    """Count a command applied: ``seat`` (a person's, through the API), ``bot`` or ``deadline``
    (a worker's, events' ``actor`` ``bot:<level>`` or ``deadline:<level>``), or ``system``."""
    kind = actor.partition(":")[0]
    COMMANDS.labels(kind if kind in ("bot", "deadline", "system") else "seat").inc()


def feed_lag(stream: str) -> Callable[[list[Any]], None]:
    """What the live feed tells of the entries its reader read (events/feed.py ``on_read``):
    each one's lag, from its ``at`` (ISO 8601) to now."""
    observed = FEED_LAG.labels(stream)

    def observe(entries: list[Any]) -> None:
        now = time.time()
        for entry in entries:
            observed.observe(max(0.0, now - datetime.fromisoformat(entry.at.replace("Z", "+00:00")).timestamp()))

    return observe
