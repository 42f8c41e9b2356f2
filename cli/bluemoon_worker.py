"""The worker process (``bluemoon-worker``, the Procfile's ``worker``, ``deliveries`` and ``reviews`` lines):
an RQ worker on the queues it is given, and, where it plays turns, the outbox dispatcher that
turns due entries into jobs.

``--queues turns`` plays bot and deadline turns (and rates finished games); ``--queues
deliveries`` sends webhooks and turn alerts (mail, Web Push, Discord, Slack), which wait on
other people's servers; ``--queues reviews`` reviews finished games (application/review/: seconds
of CPU each, so on a worker of their own, at the deliveries' lower priority); the default,
``turns,deliveries,reviews``, does all in one process, turns first (a test, or a trial run: a
receiver that never answers, or a review, then delays its bots). Only a
worker that takes deliveries runs the dispatcher, since it hands on every delivery (the
appending process hands on only bot turns, at once): a turn worker does nothing but play, and
a deployment of one turn worker and one delivery worker runs one dispatcher, as before.

Both outlive a Redis outage: RQ's worker quits its loop when it loses Redis, so it is started
again, with back-off, until Redis answers; the dispatcher retries on its own. SIGTERM or
Ctrl-C stops both (RQ lets the current job finish).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import redis
from rq import Queue, Worker
from rq.job import Job

from application.archive.opening import opened
from application.background.rq_handoff import QUEUE, RQHandoff, queue_names
from application.background.work import DELIVERIES, TURNS, WORK
from application.telemetry import request_ids
from application.telemetry.error_reports import start_reporting
from application.telemetry.json_logs import log_json
from application.telemetry.metrics import in_work_horse
from application.wiring import build, connect, queue_url, store_url
from domain import Edition, Options, bots, fold, new_game
from domain.decide import decide_and_apply
from events.archive import ArchiveUnavailable

#: The jobs' modules (application/background/work.py), imported here once: RQ forks a work-horse
#: from this process for each job, and a horse that had to import them itself (pywebpush, the
#: bots) would pay ~0.3 s a job.
JOBS = tuple(importlib.import_module(module) for module in WORK.job_modules())

#: Games the worker plays a few greedy decisions of before it forks: one per player count and edition.
WARM_UP_GAMES = (Options(2), Options(3, expansion=True), Options(4, edition=Edition.CLASSIC))

log = logging.getLogger("bluemoon.worker")
DISPATCH_EVERY = (
    0.2  #: seconds between two looks at the outbox (a bot's turn is usually handed on at once by the web process)
)
DELIVERY_NICENESS = 10  #: a delivery-only worker's nice value (0 is the default, 19 the lowest priority)
KINDS = WORK.queues()  #: what ``--queues`` may name, in the order a worker serving several takes them


def dispatch_forever(
    store: str, queue: str, stop: threading.Event, every: float = DISPATCH_EVERY, turn_queue: str = QUEUE
) -> None:
    """Hand every due outbox entry (in the store) to RQ (in the queue Redis), for ever: bot
    turns whose first hand-off failed, turns whose job died (their lease ran out), human turns
    whose deadline passed, webhook deliveries due for a retry."""
    client = connect(store)
    handoff = RQHandoff(client if queue == store else connect(queue), queue=turn_queue)
    service = build(store, client, handoff).service
    pause = every
    while not stop.is_set():
        try:
            handed = service.dispatch()
            pause = every
        except redis.RedisError as error:  # dispatch() logs its own; this is an outage in claim
            log.warning("dispatcher: %s; retrying in %.1f s", error, pause)
            handed, pause = 0, min(pause * 2, 5.0)
        if not handed:
            stop.wait(pause)


class TracedWorker(Worker):
    """RQ's worker, whose work-horses count into their worker's metrics file
    (application/telemetry/metrics.py) and run each job as the work of the request that caused
    it (its meta's ``request_id``: application/telemetry/request_ids.py), so that the job's log
    lines and the work it causes in turn carry that id."""

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        in_work_horse(os.getppid())
        super().main_work_horse(job, queue)

    def perform_job(self, job: Job, queue: Queue, execution: Any) -> bool:
        with request_ids.bound(job.meta.get(request_ids.FIELD)):
            started = time.perf_counter()
            done = bool(super().perform_job(job, queue, execution))
            took = round((time.perf_counter() - started) * 1000, 2)
            log.info("job", extra={"fields": {"job": job.id, "function": job.func_name, "ok": done, "ms": took}})
            return done


def work(url: str, queues: list[str], stop: threading.Event) -> None:
    """Run RQ's worker until asked to stop, starting it again after a lost connection."""
    pause = 0.5
    while not stop.is_set():
        worker = None
        started = time.monotonic()
        try:
            worker = TracedWorker(queues, connection=redis.Redis.from_url(url, socket_connect_timeout=2.0))
            worker.work(with_scheduler=False, logging_level="WARNING")
        except redis.RedisError as error:
            log.warning("worker: %s", error)
        _stop_on_signals(stop)  # RQ's handlers were for that worker only
        if worker is not None and (worker._stop_requested or worker._shutdown_requested_date is not None):
            stop.set()
            return
        if time.monotonic() - started > 30:
            pause = 0.5  # it had been working: this is a new outage, not the same one going on
        log.warning("worker: lost Redis; starting again in %.1f s", pause)
        stop.wait(pause)
        pause = min(pause * 2, 5.0)


def warm_up(decisions: int = 12) -> int:
    """Play a few bot decisions before the first fork. Each horse starts from this process's
    memory: with the rules' tables built and Python's bytecode already specialised, a horse's
    first greedy decision costs what later ones do (about 6 ms, not 10). Returns how many."""
    played = 0
    for number, options in enumerate(WARM_UP_GAMES):
        game = fold(new_game(options, number.to_bytes(8, "big")))
        rng = random.Random(number)
        for _ in range(decisions):
            if game.turn is None:
                break
            game = decide_and_apply(game, bots.choose(game, game.turn.seat, "greedy", rng))[1]
            played += 1
    return played


def ready_to_fork() -> None:
    """Warm up, then freeze what this process holds (``gc.freeze``, after collecting the
    warm-up's garbage): a horse's garbage collections then pass over the inherited objects
    instead of touching, and so copying, their pages. A full collection in a horse took 35 ms
    and 4,900 page copies, 0.4 ms frozen."""
    warm_up()
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queue", default=QUEUE, help="the turn queue's name (its deliveries queue is named after it)")
    parser.add_argument(
        "--queues",
        type=kinds,
        default=list(KINDS),
        help="which work to take: turns, deliveries, reviews, or several (turns,deliveries,reviews: the default)",
    )
    args = parser.parse_args(argv)
    log_json()
    start_reporting()
    try:  # before any job: a game must never move to an archive that cannot take it
        opened()
    except ArchiveUnavailable as error:
        print(f"bluemoon-worker: {error}", file=sys.stderr, flush=True)
        return 2
    store, queue = store_url(), queue_url()
    stop = threading.Event()
    _stop_on_signals(stop)
    names = queue_names(args.queue)
    if TURNS in args.queues:
        ready_to_fork()
    else:
        yield_the_cpu()
    if DELIVERIES in args.queues:
        threading.Thread(
            target=dispatch_forever,
            args=(store, queue, stop),
            kwargs={"turn_queue": args.queue},
            name="dispatcher",
            daemon=True,
        ).start()
    work(queue, [names[kind] for kind in args.queues], stop)
    return 0


def yield_the_cpu(niceness: int = DELIVERY_NICENESS) -> None:
    """A delivery worker gives way on a busy machine: its dispatcher hands on every delivery,
    which bots and the web process should not wait for. Lowers this process's CPU priority and,
    where Linux groups processes by session (autogroup: each supervised child is a session of
    its own, so its nice value alone would weigh only against itself), its group's."""
    os.nice(niceness)
    with contextlib.suppress(OSError):
        Path("/proc/self/autogroup").write_text(str(niceness))


def kinds(value: str) -> list[str]:
    """``--queues``: a comma-separated choice among KINDS, kept in KINDS' order (turns first)."""
    chosen = {part.strip() for part in value.split(",") if part.strip()}
    if not chosen or chosen - set(KINDS):
        raise argparse.ArgumentTypeError(f"choose from {', '.join(KINDS)} (comma-separated), not {value!r}")
    return [kind for kind in KINDS if kind in chosen]


def _stop_on_signals(stop: threading.Event) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())


if __name__ == "__main__":
    raise SystemExit(main())
