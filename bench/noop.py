"""A job that does nothing: the benchmarks' baseline for RQ's own cost, measured beside the real
jobs in the same run (a worker to run them is bench/server.py's ``start_worker``)."""

from __future__ import annotations

import time

from rq import Queue


def noop() -> str:
    return "ok"


def noop_rate(queue: Queue, count: int) -> float:
    """No-op jobs per second through the queue's worker: a warm-up job, then a backlog of ``count``."""
    warm = queue.enqueue("bench.noop.noop")
    while warm.get_status(refresh=True) != "finished":
        time.sleep(0.01)
    jobs = [queue.enqueue("bench.noop.noop") for _ in range(count)]
    start = time.perf_counter()
    while jobs[-1].get_status(refresh=True) != "finished":
        time.sleep(0.005)
    return count / (time.perf_counter() - start)
