"""People's streams held open: how much memory the web process spends on each ``GET /me/stream``.

The web process runs as the Procfile says (gunicorn, 2 gevent workers, service/gunicorn_conf.py);
``--streams`` people (each an account of its own with a personal access token, made directly in
Redis) each hold their own SSE stream, opened by a child process on plain sockets (bench/watch.py).
Reports, in one bounded run (well under 2 minutes for 10,000):

- the web workers' resident memory before any stream, with every stream open, and per stream;
- that every stream is live: one item of news is written into each person's stream (as a
  person-stream job writes it: events/person_streams.py) and every stream must receive it, once;
- how long opening them and feeding them took;
- Redis's side: the memory of one person's stream at its cap (``LENGTH`` entries of turn news).

    python bench/person_streams.py [--streams 10000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.person_stream.entries import PREFIX  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.server import redis_for, serve  # noqa: E402
from bench.watch import WatcherPool  # noqa: E402
from bench.watchers import worker_rss  # noqa: E402
from events import keys  # noqa: E402
from events.person_streams import LENGTH, News  # noqa: E402
from events.serialization import now  # noqa: E402


def people(url: str, count: int) -> list[tuple[str, str]]:
    """``count`` accounts with a personal access token each: (account, token)."""
    accounts = build(url).accounts
    made = []
    for i in range(count):
        account = uuid.uuid4().hex
        accounts.create_without_email(account, f"Bench {i}")
        made.append((account, accounts.create_token(account, "bench").token))
    return made


def run(args: argparse.Namespace, url: str) -> None:
    started = time.monotonic()
    made = people(url, args.streams)
    print(f"{args.streams} accounts and tokens made in {time.monotonic() - started:.1f} s")
    web, port = serve("service.app:create_app()", {**os.environ, "REDIS_URL": url, "RATE_LIMIT": "0"})
    pool = None
    try:
        time.sleep(1.0)  # the workers settle after their first request
        rss0 = worker_rss(web.pid)
        pool = WatcherPool("127.0.0.1", port, "", [token for _, token in made], path="/me/stream")
        opening = time.monotonic()
        opened = pool.open(args.streams, timeout=120)  # each from its id 0: its stream is empty
        opened_in = time.monotonic() - opening
        time.sleep(2.0)  # what the streams hold once open, not what opening them left behind
        rss = worker_rss(web.pid)
        streams = build(url).person_streams
        feeding = time.monotonic()
        for account, _ in made:
            streams.write(account, "bench", [News("turn.started", "bench", now(), {"seat": 0, "turn": 1})])
        seen = pool.expect(1, 1, timeout=60)
        fed_in = time.monotonic() - feeding
        print("gunicorn 2 gevent workers (Procfile), each stream a person of its own, 2 cores shared")
        print(f"streams open: {opened['open']} of {args.streams} in {opened_in:.1f} s (errors {opened['errors']})")
        print(
            f"news written to every stream and received: {seen['in_order_once']} of {seen['watchers']} got it "
            f"exactly once, in {fed_in:.1f} s (still open {seen['open']}, errors {seen['errors']})"
        )
        print(
            f"web workers' RSS: {rss0 / 2**20:.0f} MiB before, {rss / 2**20:.0f} MiB with the streams open: "
            f"{(rss - rss0) / max(1, int(opened['open'])) / 1024:.1f} KiB a stream"  # type: ignore[call-overload]
        )
        busiest = made[0][0]
        for turn in range(2, LENGTH + 2):  # each as an append's entry writes it, under its entry's name
            game, turn_news = uuid.uuid4().hex, {"seat": 0, "turn": turn, "version": 10 * turn, "deadline": None}
            mark = f"{PREFIX}{game}:{10 * turn}:{busiest}"
            streams.write(busiest, mark, [News("turn.started", game, now(), turn_news)])
        held = streams.client.memory_usage(keys.person_stream(busiest), samples=0)
        marks = streams.client.memory_usage(keys.person_stream_marks(busiest), samples=0)
        print(
            f"Redis: a stream at its cap ({LENGTH:,} turn.started, {streams.client.xlen(keys.person_stream(busiest))} "
            f"kept) {held / 1024:.0f} KiB, its marks {marks / 1024:.0f} KiB"
        )
        print(f"whole run: {time.monotonic() - started:.0f} s")
    finally:
        if pool is not None:
            pool.close()
        web.terminate()
        web.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=10_000)
    args = parser.parse_args()
    with redis_for("person-streams") as url:
        run(args, url)


if __name__ == "__main__":
    main()
