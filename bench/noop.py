"""A job that does nothing, and a worker to run jobs: the benchmarks' baseline for RQ's own
cost, measured beside the real jobs in the same run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rq import Queue

ROOT = Path(__file__).resolve().parent.parent


def noop() -> str:
    return "ok"


def start_worker(url: str, queue: str, root: Path = ROOT) -> subprocess.Popen:
    """One ``bluemoon-worker`` on ``queue`` running ``root``'s code (stop it with
    ``os.killpg(worker.pid, SIGTERM)``)."""
    env = {**os.environ, "REDIS_URL": url, "PYTHONPATH": str(root), "BLUEMOON_QUEUE": queue}
    return subprocess.Popen(
        [sys.executable, "-m", "cli.bluemoon_worker", "--queue", queue],
        cwd=root,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


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
