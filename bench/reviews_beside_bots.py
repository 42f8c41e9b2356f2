"""Bot replies while reviews run: issue 40's "bot replies are not delayed while reviews run".

A review is seconds of CPU (bench/review_cost.py); the Procfile runs it on its own ``reviews``
worker, which lowers its CPU priority (``cli.bluemoon_worker.yield_the_cpu``: nice 10, its
session's autogroup too). This measures what a person feels: the time from their command to a
greedy bot's whole reply in the feed (bench/bot_speed.py's ``reply_times``, one real turn
worker on a real Redis), first with nothing else running, then while ``--reviewers`` processes
review finished games without pause, each started in a session of its own and given way as the
reviews worker gives it, computing the review exactly as the job does
(``application.review.computation.computed``). Prints both p50 and p99 and their ratios.

    python bench/reviews_beside_bots.py [--replies 40] [--reviewers 2] [--games 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis

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
    worker = start_worker(url, QUEUE)
    reviewers: list[subprocess.Popen[bytes]] = []
    try:
        games = finished_games(service, args.games)
        reply_times(service, "greedy", 3)  # warm-up (the worker's first forks and loads), not counted
        alone = reply_times(service, "greedy", args.replies)
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
        beside = reply_times(service, "greedy", args.replies)
        a50, a99 = percentiles(alone)
        b50, b99 = percentiles(beside)
        print(f"load average before the end: {os.getloadavg()[0]:.1f}")
        print(f"greedy bot's reply, nothing else running: p50 {a50 * 1000:.1f} ms, p99 {a99 * 1000:.1f} ms")
        print(f"greedy bot's reply, {args.reviewers} reviews running: p50 {b50 * 1000:.1f} ms, p99 {b99 * 1000:.1f} ms")
        print(f"ratio while reviews run: p50 {b50 / a50:.2f} x, p99 {b99 / a99:.2f} x")
    finally:
        for process in [*reviewers, worker]:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(10)
        client.close()


if __name__ == "__main__":
    main()
