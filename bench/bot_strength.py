"""How often one bot level wins against another, with a 95% Wilson interval.

    python bench/bot_strength.py --games 400 --players 2 --seed-start 20000 --jobs 2
    python bench/bot_strength.py --games 400 --players 4 --seed-start 30000 --jobs 2

The tested level (``--level``, default ``planner``) takes one seat, ``--opponent`` (default
``greedy``) all the others. The tested seat rotates from game to game (game ``i`` puts it in
seat ``i % players``), and the games cycle through the editions the domain offers (classic,
cmon, cmon with the expansion; ``--editions`` narrows it), each seat equally often per
edition. Game ``i`` is dealt from seed ``seed-start + i``; the bots' generator is seeded from
it too, so the same command plays the same games, but for a bot cut short by its ``--budget``.

A win is first place in ``domain.standings.places``: a sole first place counts 1, a first
place shared by k seats counts 1/k (a drawn game is all seats sharing first place). A game
unfinished within ``--max-turns`` counts 0. Printed: wins, win rate and its 95% Wilson
interval, overall and per edition; each level's mean and slowest decision (by the clock, and
in CPU time: on a loaded machine the clock also counts time the process waited for a core),
the tested level's mean as a ratio to the opponent's measured in the same run (the machine
is shared, so only ratios compare across runs).

``--cpu-cap`` makes the planner's and the expert's cap count CPU time (``time.process_time``)
instead of the clock: on a shared machine a process waits for a core, and a cap by the clock
would cut their searches short by the load, not by their own work.

``--tweak module.NAME=VALUE`` sets a constant of a ``domain.bots`` module in every worker
before it plays (tuning runs; e.g. ``--tweak mcts.POTENTIAL=0.5``). ``--log PATH`` appends each
game's outcome as it finishes (a long run's partial result survives an interruption).
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.bluemoon_simulate import wilson  # noqa: E402
from domain import Edition, Options, decide, evolve, fold, new_game  # noqa: E402
from domain.bots import choose  # noqa: E402
from domain.standings import places  # noqa: E402

EDITIONS = {"classic": (Edition.CLASSIC, False), "cmon": (Edition.CMON, False), "expansion": (Edition.CMON, True)}


@dataclass
class Outcome:
    seed: int
    edition: str
    score: float  #: the tested level's share of first place: 1, 1/k, or 0
    finished: bool
    times: dict[str, list[float]]  #: seconds per decision, by level
    cpu: dict[str, list[float]]  #: CPU seconds of this process per decision, by level


def apply_tweaks(tweaks: list[str]) -> None:
    for tweak in tweaks:
        name, value = tweak.split("=", 1)
        module, constant = name.rsplit(".", 1)
        target = importlib.import_module(f"domain.bots.{module}")
        if not hasattr(target, constant):
            raise SystemExit(f"unknown constant {name}")
        kind = type(getattr(target, constant))
        setattr(target, constant, value.lower() in ("1", "true") if kind is bool else kind(value))


def play(job: tuple[int, int, str, int, str, str, float, int, bool]) -> Outcome:
    seed, players, edition, tested_seat, level, opponent, budget, max_turns, cpu_cap = job
    kind, expansion = EDITIONS[edition]
    state = fold(new_game(Options(players, kind, expansion), seed.to_bytes(8, "big")))
    rnd = random.Random(seed)
    levels = [opponent] * players
    levels[tested_seat] = level
    times: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    while not state.finished and state.turn.number <= max_turns:  # type: ignore[union-attr]
        seat = state.turn.seat  # type: ignore[union-attr]
        start, start_cpu = time.perf_counter(), time.process_time()
        command = choose(state, seat, levels[seat], rnd, budget=budget, clock=time.process_time if cpu_cap else None)
        times[levels[seat]].append(time.perf_counter() - start)
        cpu[levels[seat]].append(time.process_time() - start_cpu)
        for event in decide(state, command):
            state = evolve(state, event)
    score = 0.0
    if state.result is not None:
        finish = places(state)
        if finish[tested_seat] == 1:
            score = 1 / finish.count(1)
    return Outcome(seed, edition, score, state.result is not None, dict(times), dict(cpu))


def _line(label: str, outcomes: list[Outcome]) -> str:
    n = len(outcomes)
    wins = sum(o.score for o in outcomes)
    lo, hi = wilson(wins, n)
    return f"  {label:10s} won {wins:g}/{n} = {wins / n:.1%} (95% Wilson CI {lo:.1%}-{hi:.1%})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument(
        "--first-game", type=int, default=0, help="start at game i (a stopped run's --log continued exactly)"
    )
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per decision, a hard cap")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--level", default="planner")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--editions", default="classic,cmon,expansion", help="cycled through, comma-separated")
    parser.add_argument("--max-turns", type=int, default=400)
    parser.add_argument("--tweak", action="append", default=[], help="module.NAME=VALUE, repeatable")
    parser.add_argument(
        "--cpu-cap",
        action="store_true",
        help="the planner's and the expert's cap counts this process's CPU time, not the clock (a loaded machine)",
    )
    parser.add_argument("--log", type=Path, help="append one JSON line per finished game here, as it finishes")
    args = parser.parse_args(argv)
    editions = args.editions.split(",")
    jobs = [
        (
            args.seed_start + i,
            args.players,
            editions[(i // args.players) % len(editions)],
            i % args.players,
            args.level,
            args.opponent,
            args.budget,
            args.max_turns,
            args.cpu_cap,
        )
        for i in range(args.first_game, args.games)
    ]
    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.jobs, initializer=apply_tweaks, initargs=(args.tweak,)) as pool:
        outcomes = []
        for outcome in pool.imap_unordered(play, jobs):
            outcomes.append(outcome)
            if args.log:
                with args.log.open("a") as log:
                    log.write(
                        json.dumps(
                            {
                                "seed": outcome.seed,
                                "edition": outcome.edition,
                                "players": args.players,
                                "score": outcome.score,
                                "finished": outcome.finished,
                                "cpu": {lv: [sum(t), len(t), max(t)] for lv, t in outcome.cpu.items()},
                            }
                        )
                        + "\n"
                    )
    elapsed = time.perf_counter() - started
    outcomes.sort(key=lambda o: o.seed)
    print(
        f"{args.level} against {args.players - 1} x {args.opponent}, {args.players} players, "
        f"seeds {args.seed_start}..{args.seed_start + args.games - 1}, budget {args.budget} s, "
        f"editions {args.editions}{', tweaks ' + ' '.join(args.tweak) if args.tweak else ''}"
        f"{', cap in CPU time' if args.cpu_cap else ''}"
    )
    print(_line("all", outcomes))
    for edition in editions:
        played = [o for o in outcomes if o.edition == edition]
        if played:  # fewer games than editions leave one without any
            print(_line(edition, played))
    unfinished = sum(not o.finished for o in outcomes)
    print(f"  unfinished within {args.max_turns} turns: {unfinished}")
    means = {}
    for level in dict.fromkeys([args.level, args.opponent]):
        spent = [t for o in outcomes for t in o.times.get(level, [])]
        cpu = [t for o in outcomes for t in o.cpu.get(level, [])]
        means[level] = sum(spent) / max(len(spent), 1)
        print(
            f"  {level:10s} {means[level] * 1000:.1f} ms per decision (mean of {len(spent)}; "
            f"{sum(cpu) / max(len(cpu), 1) * 1000:.1f} ms of CPU), "
            f"slowest {max(spent, default=0) * 1000:.1f} ms by the clock, {max(cpu, default=0) * 1000:.1f} ms of CPU"
        )
    if args.level != args.opponent and means[args.opponent]:
        print(f"  {args.level} decides in {means[args.level] / means[args.opponent]:.2f} x {args.opponent}'s time")
    print(f"  {len(outcomes)} games in {elapsed:.0f} s on {args.jobs} processes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
