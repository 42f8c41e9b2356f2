"""Event store speed against one real Redis (REDIS_URL, or an embedded server started here).

Prints, in one run: appends per second through the store vs raw pipelined XADD of the same
records (the ratio is the figure), median and p99 latency of "load state + decide + append"
for a game of 500 events with and without snapshots, and memory per stored event.

    python bench/store_speed.py [--appends N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout, so that bench.* imports when run as python bench/store_speed.py

import redis  # noqa: E402

from bench.measure import percentiles  # noqa: E402
from bench.server import redis_for  # noqa: E402
from domain import Options, decide, evolve, fold, legal_commands, new_game  # noqa: E402
from events import keys  # noqa: E402
from events.redis_store import FIELDS, RedisStore  # noqa: E402
from events.serialization import to_record  # noqa: E402


def a_game(events_wanted: int, seed: int = 1) -> list:
    rnd = random.Random(seed)
    events = new_game(Options(4), b"bench")
    state = fold(events)
    while len(events) < events_wanted and not state.finished:
        new = decide(state, rnd.choice(list(legal_commands(state, state.turn.seat))))
        for e in new:
            state = evolve(state, e)
        events += new
    return events[:events_wanted]


def bench_appends(client, store: RedisStore, n: int) -> tuple[float, float, float]:
    events = a_game(n + 5)
    one = events[5 : 5 + n]
    # the store: one Lua append per command (one event each here)
    game = uuid.uuid4().hex
    store.append(game, 0, events[:5])
    start = time.perf_counter()
    for i, e in enumerate(one):
        store.append(game, 5 + i, [e], command_id=f"c{i}", command_hash="h")
    store_rate = n / (time.perf_counter() - start)
    # raw: the same records, XADD in one pipeline, no checks at all
    raw_key = keys.stream(uuid.uuid4().hex)
    records = [to_record(e, "g", i + 1, "0", f"c{i}") for i, e in enumerate(one)]
    start = time.perf_counter()
    pipe = client.pipeline(transaction=False)
    for i, r in enumerate(records):
        pipe.xadd(raw_key, {f: r[f] for f in FIELDS}, id=f"0-{i + 1}")
    pipe.execute()
    raw_rate = n / (time.perf_counter() - start)
    # raw, one XADD per round trip: what any per-command write costs on the wire
    raw_key = keys.stream(uuid.uuid4().hex)
    start = time.perf_counter()
    for i, r in enumerate(records):
        client.xadd(raw_key, {f: r[f] for f in FIELDS}, id=f"0-{i + 1}")
    single_rate = n / (time.perf_counter() - start)
    return store_rate, raw_rate, single_rate


def bench_cycle(client, mode: str, rounds: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Load + decide + append on a 500-event game; each round appends one more command.
    ``cached``: one process that has seen the game; ``snapshot``: a process that has not
    (snapshot + tail); ``fold``: no snapshot, the whole stream folded."""
    store = RedisStore(client)
    events = a_game(500, seed=2)
    game = uuid.uuid4().hex
    store.append(game, 0, events)
    if mode != "fold":
        store.save_snapshot(game, fold(events))
    rnd = random.Random(3)
    times = []
    for _ in range(rounds):
        if mode == "snapshot":
            store = RedisStore(client)  # a fresh process's store: nothing cached
        start = time.perf_counter()
        state = store.load(game, snapshots=mode != "fold")
        command = rnd.choice(list(legal_commands(state, state.turn.seat)))
        store.append(game, state.version, decide(state, command))
        times.append(time.perf_counter() - start)
    return times


def memory_per_event(client, store: RedisStore, n: int = 2000) -> float:
    events = a_game(n)
    game = uuid.uuid4().hex
    store.append(game, 0, events)
    return client.memory_usage(keys.stream(game), samples=0) / len(events)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with redis_for("store", persist=False) as url:
        run(args, url)


def run(args: argparse.Namespace, url: str) -> None:
    client = redis.Redis.from_url(url)
    store = RedisStore(client)
    try:
        store_rate, raw_rate, single_rate = bench_appends(client, store, args.appends)
        print(
            f"appends: store {store_rate:.0f}/s (one checked Lua script per command), raw pipelined XADD {raw_rate:.0f}/s, "
            f"raw XADD one per round trip {single_rate:.0f}/s; ratio store/pipelined = {store_rate / raw_rate:.3f}, "
            f"store/single = {store_rate / single_rate:.3f}"
        )
        labels = {"cached": "state cached in process", "snapshot": "with snapshots (cold)", "fold": "without snapshots"}
        for mode, label in labels.items():
            p50, p99 = percentiles(bench_cycle(client, mode, args.rounds))
            print(f"load+decide+append, 500-event game, {label:24s}: p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms")
        print(
            f"memory: {memory_per_event(client, store):.0f} bytes per stored event (MEMORY USAGE of a 2000-event stream)"
        )
    finally:
        client.close()


if __name__ == "__main__":
    main()
