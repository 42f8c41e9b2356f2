"""Bot speed with one real `rq worker` on a real Redis.

Prints: greedy bot turns completed per second by one worker (4-bot games), and the time from
a human's command to the bot's reply being visible in the event feed (p50/p99), for greedy and
for mcts at the budget the workers give it, each beside a baseline measured in the same run:
an RQ job that does nothing, enqueued and awaited the same way.

    python bench/bot_speed.py [--replies 40] [--mcts-replies 10] [--seconds 15]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

import redis
from rq import Queue

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.background.rq_handoff import RQHandoff  # noqa: E402
from application.games.game_service import SeatSpec  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.measure import percentiles  # noqa: E402
from bench.server import redis_for, start_worker  # noqa: E402
from domain import Options  # noqa: E402
from domain.commands import EndTurn  # noqa: E402
from workers.turn_jobs import BUDGETS  # noqa: E402

QUEUE = "bench-bots"


def wait_for_turn(service, game: str, seat: int, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Follow the feed (blocking reads, as the long poll does) until ``seat`` is to move."""
    from events import keys

    client = service.client
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = service.state(game)
        if state.turn.seat == seat:
            return
        # from the version just looked at: an event appended since then wakes the read at once
        client.xread({keys.stream(game): f"0-{state.version}"}, block=1000)
    raise TimeoutError("no reply")


def reply_times(service, level: str, count: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Seconds from a human's command to the whole reply of a ``level`` bot visible in the feed."""
    replies = []
    for i in range(count):
        created = service.create(Options(2), [SeatSpec("human"), SeatSpec("bot", level=level)], first_player=0)
        start = time.perf_counter()
        service.submit(created.game, EndTurn(0), expected=created.version, key=f"bench-{level}-{i}")
        wait_for_turn(service, created.game, 0)
        replies.append(time.perf_counter() - start)
    return replies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replies", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--mcts-replies", type=int, default=10)
    args = parser.parse_args()
    with redis_for("bots") as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    client = redis.Redis.from_url(url)
    service = build(client=client, handoff=RQHandoff(client, queue=QUEUE)).service
    worker = start_worker(url, QUEUE)
    try:
        queue = Queue(QUEUE, connection=client)
        # baseline: a no-op job's round trip through the same worker
        base = []
        for _ in range(args.replies):
            start = time.perf_counter()
            job = queue.enqueue("bench.noop.noop")
            while job.get_status(refresh=True) != "finished":
                time.sleep(0.001)
            base.append(time.perf_counter() - start)
        replies = reply_times(service, "greedy", args.replies)
        mcts = reply_times(service, "mcts", args.mcts_replies)
        # throughput: 4-bot games kept going for a while; count bot turns ended
        # enough games that none ends in the window: an ended game's turns stop counting
        games = [
            service.create(Options(4), [SeatSpec("bot", level="greedy") for _ in range(4)]).game for _ in range(16)
        ]
        time.sleep(1.0)
        before = sum(service.store.load(g).turn.number for g in games)
        time.sleep(args.seconds)
        states = [service.store.load(g) for g in games]
        turns_per_second = (sum(s.turn.number for s in states if s.turn) - before) / args.seconds
        ended = sum(s.finished for s in states)
        if ended:
            print(f"({ended} of the {len(games)} games ended in the window: the turns/s figure is too low)")
        b50, b99 = percentiles(base)
        r50, r99 = percentiles(replies)
        m50, m99 = percentiles(mcts)
        print(f"baseline no-op RQ job: p50 {b50 * 1000:.1f} ms, p99 {b99 * 1000:.1f} ms")
        print(
            f"human command -> greedy bot's reply in the feed: p50 {r50 * 1000:.1f} ms, p99 {r99 * 1000:.1f} ms "
            f"({r50 / b50:.1f} x the no-op job at p50)"
        )
        print(
            f"human command -> mcts's reply in the feed ({BUDGETS['mcts']:.1f} s a decision): "
            f"p50 {m50 * 1000:.0f} ms, p99 {m99 * 1000:.0f} ms over {len(mcts)} replies ({m50 / b50:.1f} x the no-op job)"
        )
        print(
            f"one worker, greedy: {turns_per_second:.1f} bot turns/s ({1 / turns_per_second / b50:.1f} x no-op job time per turn)"
        )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(10)
        client.close()


if __name__ == "__main__":
    main()
