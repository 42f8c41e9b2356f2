"""gunicorn's settings for the web process: the Procfile, ``bluemoon`` and the benchmarks
all start it with ``-c python:service.gunicorn_conf``.

gevent workers: each request is a greenlet, so SSE streams and long polls wait without a
thread each, and all of a process's watchers share one Redis read (events/feed.py). See
docs/operations.md for the choice and its limits.
"""

from __future__ import annotations

import gc
import os
import resource
import shutil
import signal
import tempfile
import time
from typing import Any

import gevent

from application.settings import BLUEMOON_GC_LOG, PORT, PROMETHEUS_MULTIPROC_DIR, WEB_CONCURRENCY

wsgi_app = "service.app:create_app()"
bind = f"0.0.0.0:{PORT.read()}"
workers = WEB_CONCURRENCY.read()
worker_class = "gevent"
#: open connections per worker; gunicorn's default 1,000 caps watchers. 15,000: two workers hold
#: 20,000 watchers (bench/capacity.py) even when one accepts more than its half
worker_connections = 15_000
timeout = 60  #: a worker that stops answering gunicorn's heartbeat this long is restarted
graceful_timeout = 10  #: requests get this long to finish on a restart (open streams end at once)
keepalive = 5
#: no control socket (gunicorn 25.1+): nothing here runs ``gunicornc``, and its default path is one
#: per user, so each gunicorn started takes it from the last; it is a thread in the master that
#: every worker's fork stops and starts again
control_socket_disable = True
limit_request_line = 0  #: no limit here: the app answers an over-long URL with a 414 problem document
#: the cyclic garbage collector's thresholds in a worker (Python's are 700, 10, 10). With
#: thousands of watchers the heap holds millions of live objects, and a full collection walks
#: them all: 0.3-1.1 s with 6,000 watchers (bench/capacity.py), a pause for every request of
#: the worker. Most garbage is freed by reference counting; collecting young objects 14 times
#: less often and the oldest 100 times less often cut a 3,000-game step's collections from 16 s to
#: 6 s (50,000 cut more, but grew the workers past tests/e2e/test_real_server.py's allowance).
gc_thresholds = (10_000, 10, 1_000)


def on_starting(server: object) -> None:
    """Each connection is a file descriptor: allow as many as the system lets us. Without
    PROMETHEUS_MULTIPROC_DIR, the workers share a temporary folder for their metrics (removed at
    exit), so that ``/metrics`` sums them whichever worker answers (RQ workers on this machine
    share it only when the folder is set for all: docs/operations.md)."""
    if not PROMETHEUS_MULTIPROC_DIR.read():
        _made.append(tempfile.mkdtemp(prefix="bluemoon-web-metrics-"))
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = _made[0]  # the workers, forked after this, read it
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 1024
    if soft < wanted:
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (min(wanted, hard) if hard != resource.RLIM_INFINITY else wanted, hard)
        )


_made: list[str] = []  #: the metrics folder on_starting made, if it made one


def on_exit(server: Any) -> None:
    """gunicorn stops (this hook runs in the master only, unlike ``atexit``): remove the folder it made."""
    for folder in _made:
        shutil.rmtree(folder, ignore_errors=True)


def child_exit(server: Any, worker: Any) -> None:
    """A worker ended: its open streams leave the metrics' sums (application/telemetry/exposition.py,
    imported here only now: the metrics' mode is chosen at their import, after ``on_starting``)."""
    from application.telemetry.exposition import forget

    forget(worker.pid)


def post_worker_init(worker: Any) -> None:
    """Leave the app's own objects out of garbage collection (``gc.freeze``: they live as long
    as the worker) and collect less often (``gc_thresholds``). On SIGTERM, end this worker's
    open SSE streams and long polls at once (their clients resume with Last-Event-ID) instead
    of holding the restart for ``graceful_timeout``."""
    gc.freeze()
    gc.set_threshold(*gc_thresholds)
    if BLUEMOON_GC_LOG.read():
        _log_collections(os.path.join(BLUEMOON_GC_LOG.read(), f"gc-{os.getpid()}.log"))
    stop = worker.handle_exit

    def handle_exit(sig: int, frame: Any) -> None:
        stop(sig, frame)
        components = getattr(worker.wsgi, "extensions", {}).get("bluemoon")
        if components is not None:
            gevent.spawn(components.feed.close)  # not in the signal handler itself: it takes a lock
            gevent.spawn(components.person_feed.close)  # the people's streams end with the games'
            gevent.spawn(components.chat_feed.close)

    signal.signal(signal.SIGTERM, handle_exit)


def _log_collections(path: str) -> None:
    """For bench/capacity.py (BLUEMOON_GC_LOG: a folder): append each garbage collection of
    10 ms or more to ``path`` as ``<unix time> <generation> <wall seconds> <CPU seconds>``; a
    collection holds every request of the worker, so long ones show in the commands' p99.
    Both times, since on a busy machine the wall time includes waits for a core, and a
    finalizer that does I/O lets the worker's other greenlets run (and spend CPU) meanwhile."""
    started = [0.0, 0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[:] = time.perf_counter(), time.process_time()
            return
        took = time.perf_counter() - started[0]
        if took >= 0.01:
            with open(path, "a") as log:
                log.write(f"{time.time():.2f} {info['generation']} {took:.3f} {time.process_time() - started[1]:.3f}\n")

    gc.callbacks.append(timed)
