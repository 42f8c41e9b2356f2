"""The text ``/metrics`` answers, in Prometheus' format: what the processes counted (summed
over the multiprocess folder's files, or this process's own) and the readings from Redis."""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess

from application.settings import PROMETHEUS_MULTIPROC_DIR

from .metrics import multiprocess as in_multiprocess_mode
from .readings import Readings

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def scrape(readings: Readings) -> bytes:
    """What a scrape reads: every process's files in multiprocess mode, else this process's own
    registry; then the readings from Redis."""
    if in_multiprocess_mode():
        counted = CollectorRegistry()
        multiprocess.MultiProcessCollector(counted, path=PROMETHEUS_MULTIPROC_DIR.read())
    else:
        counted = REGISTRY
    read = CollectorRegistry(auto_describe=False)
    read.register(readings)
    return generate_latest(counted) + generate_latest(read)


def forget(pid: int) -> None:
    """A process ended (a gunicorn worker): drop its live gauges (its open streams) from the sums."""
    if in_multiprocess_mode():
        multiprocess.mark_process_dead(pid, PROMETHEUS_MULTIPROC_DIR.read())
