"""Gauges read from Redis when Prometheus scrapes: the outbox's due and overdue work by kind,
each RQ queue's depth and failed jobs. Each reading is a few bounded commands in one
pipeline (no KEYS, no SCAN, no read that grows with the data): on a Redis Cluster the
pipeline sends each shard's commands to the node that holds its slot.

Readings are named functions (``Readings.readings``): the archive's lag,
``bluemoon_archive_lag_seconds``, is one of its own (application/archive/lag.py). A
reading that fails (Redis unreachable) yields nothing, and ``bluemoon_reading_ok`` says so.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import redis
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from redis.exceptions import RedisClusterException
from rq import Queue
from rq.registry import FailedJobRegistry

from application.background.work import WORK, Registry
from events import keys
from events.outbox import now_ms

log = logging.getLogger("bluemoon.metrics")

#: Outbox entries read per shard at each scrape, oldest first: the counts by kind stop growing
#: at this many a shard (4,800 in all), which only a backlog nobody works on reaches: the count is then
#: a floor, and the oldest entry's age says how far behind the work is. Reading 1,000 a shard cost a
#: scrape 0.85 s with such a backlog (48,000 entries), 100 costs it 0.1 s.
SAMPLE = 100
#: An entry still unclaimed this long after it fell due is overdue: a dispatcher claims due
#: work every 0.2 s and a claim pushes it a lease (10 s) ahead, so overdue work is work no
#: dispatcher is handing on (none running, or its hand-off failing).
OVERDUE_SECONDS = 30

Reading = Callable[[], Iterable[Metric]]


def outbox_reading(store: Any, kinds: Registry = WORK) -> Reading:
    """``bluemoon_outbox_due`` and ``bluemoon_outbox_overdue`` by kind, and the oldest due
    entry's age: one ZRANGEBYSCORE (at most SAMPLE entries) per shard."""

    def read() -> Iterator[Metric]:
        now = now_ms()
        pipe = store.pipeline(transaction=False)
        for shard in range(keys.SHARDS):
            pipe.zrangebyscore(keys.outbox(shard)[1], "-inf", now, start=0, num=SAMPLE, withscores=True)
        due: Counter[str] = Counter()
        overdue: Counter[str] = Counter()
        oldest = now
        for found in pipe.execute():
            for name, score in found:
                kind = _kind(kinds, name.decode() if isinstance(name, bytes) else name)
                due[kind] += 1
                overdue[kind] += score <= now - OVERDUE_SECONDS * 1000
                oldest = min(oldest, int(score))
        due_family = GaugeMetricFamily(
            "bluemoon_outbox_due", "Outbox entries due now and not yet claimed, by kind of work", labels=["kind"]
        )
        overdue_family = GaugeMetricFamily(
            "bluemoon_outbox_overdue",
            f"Outbox entries due more than {OVERDUE_SECONDS} s ago and still unclaimed, by kind of work",
            labels=["kind"],
        )
        for name in [k.name for k in kinds]:
            due_family.add_metric([name], due[name])
            overdue_family.add_metric([name], overdue[name])
        yield due_family
        yield overdue_family
        yield GaugeMetricFamily(
            "bluemoon_outbox_oldest_due_seconds",
            "How long the oldest unclaimed due outbox entry has waited (0: none waits)",
            value=(now - oldest) / 1000,
        )

    return read


def _kind(kinds: Registry, name: str) -> str:
    try:
        return kinds.of(name).name
    except KeyError:
        return "unknown"


def queue_reading(connection: Any, queues: dict[str, str]) -> Reading:
    """``bluemoon_queue_jobs`` (each RQ queue's jobs waiting for a worker) and
    ``bluemoon_queue_failed_jobs`` (its failed-job registry): an LLEN and a ZCARD a queue.
    ``queues``: each queue of the table (turns, deliveries) by its name in Redis."""

    def read() -> Iterator[Metric]:
        pipe = connection.pipeline(transaction=False)
        for name in queues.values():
            pipe.llen(Queue(name, connection=connection).key)
            pipe.zcard(FailedJobRegistry(name, connection=connection).key)
        found = pipe.execute()
        depth = GaugeMetricFamily("bluemoon_queue_jobs", "Jobs waiting in each RQ queue", labels=["queue"])
        failed = GaugeMetricFamily(
            "bluemoon_queue_failed_jobs", "Jobs in each RQ queue's failed-job registry (kept a day)", labels=["queue"]
        )
        for i, queue in enumerate(queues):
            depth.add_metric([queue], found[2 * i])
            failed.add_metric([queue], found[2 * i + 1])
        yield depth
        yield failed

    return read


class Readings:
    """A prometheus-client collector running each reading at every scrape."""

    def __init__(self, readings: dict[str, Reading]) -> None:
        self.readings = readings  #: by name: ``bluemoon_reading_ok{reading=<name>}``

    def collect(self) -> Iterator[Metric]:
        ok = GaugeMetricFamily(
            "bluemoon_reading_ok", "1 when the reading from Redis succeeded at this scrape, else 0", labels=["reading"]
        )
        for name, reading in self.readings.items():
            try:
                found = list(reading())
            except (redis.RedisError, RedisClusterException) as error:
                log.warning("metrics: the %s reading failed: %s", name, error)
                ok.add_metric([name], 0)
                continue
            ok.add_metric([name], 1)
            yield from found
        yield ok
