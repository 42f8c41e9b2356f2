"""Domain speed: random legal self-play of 4-player games on one core.

Prints turns per second, events folded per second, the median time of one legal_commands call
and the time to fold a 1,000-event log. Each figure comes with a ratio against a baseline
measured in the same run (a plain Python loop of the same length, so a noisy shared machine
shows as a changed baseline rather than a changed ratio).

    python bench/domain_speed.py [--games N] [--turns N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from domain import Options, decide, evolve, fold, legal_commands, new_game
from domain.events import Event


def self_play(seed: int, max_turns: int, timings: list[float]) -> tuple[list[Event], int]:
    rnd = random.Random(seed)
    events = new_game(Options(4), seed.to_bytes(8, "big"))
    game = fold(events)
    while not game.finished and game.turn.number <= max_turns:  # type: ignore[union-attr]
        t = time.perf_counter()
        legal = list(legal_commands(game, game.turn.seat))  # type: ignore[union-attr]
        timings.append(time.perf_counter() - t)
        new = decide(game, rnd.choice(legal))
        for e in new:
            game = evolve(game, e)
        events += new
    return events, game.turn.number if game.turn else max_turns


def baseline(n: int) -> float:
    """Seconds for n iterations of a small pure-Python loop body: the machine's pace now."""
    t = time.perf_counter()
    acc = 0
    for i in range(n):
        acc += (i * 7) % 13
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    timings: list[float] = []
    logs = []
    turns = 0
    start = time.perf_counter()
    for seed in range(args.games):
        events, n = self_play(seed, args.turns, timings)
        logs.append(events)
        turns += n
    play_seconds = time.perf_counter() - start
    log = max(logs, key=len)[:1000]
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        fold(log)
    fold_seconds = (time.perf_counter() - start) / rounds
    base = baseline(1_000_000)
    print(f"baseline: 1e6 loop iterations in {base * 1000:.1f} ms")
    print(
        f"random self-play, 4 players: {turns / play_seconds:.0f} turns/s "
        f"({turns} turns; {turns / play_seconds * base:.0f} turns per baseline unit)"
    )
    print(
        f"fold: {len(log) / fold_seconds:.0f} events/s; a {len(log)}-event log folds in {fold_seconds * 1000:.1f} ms "
        f"({fold_seconds / base:.3f} x baseline)"
    )
    median = statistics.median(timings)
    print(
        f"legal_commands: median {median * 1e6:.0f} us, p99 {statistics.quantiles(timings, n=100)[98] * 1e6:.0f} us "
        f"over {len(timings)} calls ({median / base * 1000:.3f} x baseline/1000)"
    )


if __name__ == "__main__":
    main()
