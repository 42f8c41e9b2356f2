"""Bot replies while reviews run: issue 40's "bot replies are not delayed while reviews run".

A review is seconds of CPU (bench/review_cost.py); the Procfile runs it on its own ``reviews``
worker, which lowers its CPU priority (``cli.bluemoon_worker.yield_the_cpu``: nice 10, its
session's autogroup too). This measures what a person feels: the time from their command to a
greedy bot's whole reply in the feed (bench/bot_speed.py's ``reply_times``, one real turn
worker on a real Redis), first with nothing else running, then while ``--reviewers`` processes
review finished games without pause, each started in a session of its own and given way as the
reviews worker gives it, computing the review exactly as the job does
(``application.review.computation.computed``). Prints both p50 and p99 and their ratios, and,
for each phase, the turn jobs' longest wait in the queue and longest run (RQ's timestamps):
a slow reply whose job waited was held up by the worker, one whose job ran long by the CPU.

The workers are the Procfile's: one on the turn queue alone (``--queues turns``) and one on
deliveries. A worker taking every queue (``bluemoon-worker``'s default, bench/server.py's
``start_worker`` without ``queues``) also took the review jobs of the games played to their end for the reviewers
(``finished_games``): its one work-horse then computed a review for 4-5 s while bot turns
waited behind it, which is what the earlier runs' one slow reply in 40-60 (2.4-3.8 s) was.

    python bench/reviews_beside_bots.py [--replies 40] [--reviewers 2] [--games 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import redis
from rq.job import Job
from rq.registry import FinishedJobRegistry

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import RQHandoff  # noqa: E402
from application.games.game_service import SeatSpec  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.bot_speed import reply_times  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from bench.server import redis_for, start_worker  # noqa: E402
from domain import Options  # noqa: E402

QUEUE = "bench-bots"


def review_forever(url: str, games: list[str]) -> None:
    """A reviewer: the reviews worker's priority, then the job's computation, again and again."""
    from application.review.computation import computed
    from cli.bluemoon_worker import yield_the_cpu

    yield_the_cpu()
    service = build(client=redis.Redis.from_url(url)).service
    while True:
        for game in games:
            computed(service, game)


def turn_jobs(client: redis.Redis, since: float) -> str:
    """The longest queue wait and the longest run of the turn jobs enqueued since ``since``
    (a Unix time), from RQ's record of each finished job."""
    registry = FinishedJobRegistry(QUEUE, connection=client)
    waits, runs = [0.0], [0.0]
    for job in Job.fetch_many(registry.get_job_ids(), connection=client):
        if job is None or not (job.enqueued_at and job.started_at and job.ended_at):
            continue
        enqueued, started, ended = (unix(t) for t in (job.enqueued_at, job.started_at, job.ended_at))
        if enqueued >= since:
            waits.append(started - enqueued)
            runs.append(ended - started)
    return f"turn jobs: longest wait for the worker {max(waits) * 1000:.0f} ms, longest run {max(runs) * 1000:.0f} ms"


def unix(moment: datetime) -> float:
    """RQ's timestamps are UTC, with or without their zone."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def finished_games(service, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    """``count`` two-greedy-bot games played to their end by the turn worker."""
    games = [
        service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("bot", level="greedy")]).game
        for _ in range(count)
    ]
    deadline = time.monotonic() + 300
    while not all(service.state(g).finished for g in games):
        assert time.monotonic() < deadline, "the bots' games did not end"
        time.sleep(0.5)
    return games


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replies", type=int, default=40)
    parser.add_argument("--reviewers", type=int, default=2, help="processes reviewing at once")
    parser.add_argument("--games", type=int, default=3, help="finished games they review over and over")
    parser.add_argument("--review-forever", nargs="+", help=argparse.SUPPRESS)  # (a reviewer process)
    args = parser.parse_args()
    if args.review_forever:
        review_forever(args.review_forever[0], args.review_forever[1:])
        return
    with redis_for("reviews-beside-bots") as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    client = redis.Redis.from_url(url)
    service = build(client=client, handoff=RQHandoff(client, queue=QUEUE)).service
    workers = [start_worker(url, QUEUE, queues="turns"), start_worker(url, QUEUE, queues="deliveries")]
    reviewers: list[subprocess.Popen[bytes]] = []
    try:
        games = finished_games(service, args.games)
        reply_times(service, "greedy", 3)  # warm-up (the worker's first forks and loads), not counted
        began = time.time()
        alone = reply_times(service, "greedy", args.replies)
        alone_jobs = turn_jobs(client, began)
        reviewers = [
            subprocess.Popen(
                [sys.executable, __file__, "--review-forever", url, *games],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                start_new_session=True,  # a session (autogroup) of its own, as under bluemoon or a Procfile runner
            )
            for _ in range(args.reviewers)
        ]
        time.sleep(2.0)  # under way
        assert all(r.poll() is None for r in reviewers), "a reviewer stopped"
        began = time.time()
        beside = reply_times(service, "greedy", args.replies)
        beside_jobs = turn_jobs(client, began)
        a50, a99 = percentiles(alone)
        b50, b99 = percentiles(beside)
        print(f"load average before the end: {os.getloadavg()[0]:.1f}")
        print(
            f"greedy bot's reply, nothing else running: p50 {a50 * 1000:.1f} ms, p99 {a99 * 1000:.1f} ms; {alone_jobs}"
        )
        print(
            f"greedy bot's reply, {args.reviewers} reviews running: p50 {b50 * 1000:.1f} ms, p99 {b99 * 1000:.1f} ms; {beside_jobs}"
        )
        print(f"ratio while reviews run: p50 {b50 / a50:.2f} x, p99 {b99 / a99:.2f} x")
    finally:
        for process in [*reviewers, *workers]:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(10)
        client.close()


if __name__ == "__main__":
    main()
