"""Play seeded games between bot levels, in parallel across cores, and report strength.

    bluemoon-simulate --games 400 --players 2 --levels greedy,random
    bluemoon-simulate --games 200 --players 2 --levels mcts,greedy --budget 0.2
    bluemoon-simulate --games 400 --levels greedy,random --ratings r.json
    bluemoon-simulate --games 60 --levels mcts,random --ratings r.json --ratings-from r.json

Without ``--budget`` each level has its own: mcts searches 0.2 s a decision, the planner's and
the expert's cap is 0.5 s.

Levels are given per seat and rotated from game to game so that every level sits in every
seat equally often. Prints, per level, the win rate with a 95% Wilson interval (a shared win
counts as a win), the mean time per decision, and overall the mean game length (turns) and
games per second. Game ``i`` uses seed ``i`` (plus ``--seed``): the same command gives the
same games, but for mcts, whose search depends on the clock unless ``--iterations`` is set.

``--ratings PATH`` also rates the levels as players (openskill's Plackett-Luce, its defaults)
from the games' finishing orders, in seed order, and writes them with the commands that made
them; ``--ratings-from PATH`` starts from an earlier file, so that several matchups chain into
one. ``--forget LEVEL`` drops a level's earlier rating, so that a level whose play changed is
rated afresh by the games that follow, against the other levels' ratings held as they stand.
application/lobby/bot_ratings.json, the bots' starting ratings, is made so (docs/bots.md).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import shlex
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from openskill.models import PlackettLuce

from domain import Edition, Options, decide, evolve, fold, new_game
from domain.bots import LEVELS, choose
from domain.standings import places


@dataclass
class GameResult:
    seed: int
    levels: tuple[str, ...]
    winners: tuple[int, ...]
    turns: int
    finished: bool
    ended: str  #: how: offerings, rebuilt, draw, stalemate, or unfinished within --max-turns
    decision_time: dict[str, float]
    decisions: dict[str, int]
    events: int = 0  #: the game's stored events (what a service keeps of it)
    places: tuple[int, ...] = ()  #: each seat's finishing place, 1 the best (``domain.standings``); () if unfinished


def play_one(args: tuple[int, tuple[str, ...], str, bool, float | None, int | None, int]) -> GameResult:
    seed, levels, edition, expansion, budget, iterations, max_turns = args
    rnd = random.Random(seed)
    opening = new_game(Options(len(levels), Edition(edition), expansion), seed.to_bytes(8, "big"))
    state, events = fold(opening), len(opening)
    spent: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    while not state.finished and state.turn.number <= max_turns:  # type: ignore[union-attr]
        seat = state.turn.seat  # type: ignore[union-attr]
        level = levels[seat]
        start = time.perf_counter()
        command = choose(state, seat, level, rnd, budget=budget, iterations=iterations)
        spent[level] += time.perf_counter() - start
        count[level] += 1
        for e in decide(state, command):
            state = evolve(state, e)
            events += 1
    winners = state.result.winners if state.result else ()
    turns = state.turn.number if state.turn else 0
    ended = state.result.reason.value if state.result else "unfinished"
    finish = places(state) if state.result else ()
    return GameResult(seed, levels, winners, turns, state.finished, ended, dict(spent), dict(count), events, finish)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


MODEL = "openskill PlackettLuce, defaults"


@dataclass
class LevelRating:
    mu: float
    sigma: float
    games: int = 0  #: games this rating was updated by


def new_rating() -> LevelRating:
    start = PlackettLuce().rating()
    return LevelRating(start.mu, start.sigma)


def ordinal(rating: LevelRating) -> float:
    """The strength shown for a player: mu - 3 sigma, as openskill computes it."""
    return float(PlackettLuce().rating(mu=rating.mu, sigma=rating.sigma).ordinal())


def rate_games(
    ratings: dict[str, LevelRating], results: Iterable[GameResult], only: Collection[str] = ()
) -> tuple[int, int]:
    """Update ``ratings`` in place by each finished game, in seed order, every seat one team
    ranked by its place. Returns (rated, skipped). With ``only``, the other levels' ratings
    stay as they are: a level rated afresh is measured against them, and a newcomer's early
    wins do not pull an established level down.

    A game with one level in several seats is skipped, not rated: the model rates each player
    once per game, and a level's seats are one player. Rating them as separate teams and then
    averaging their new ratings would count the level's places against itself (random seats
    beating each other) as evidence and shrink its sigma for it, a rule openskill does not
    define. Unfinished games (past ``--max-turns``) have no places and are not rated either."""
    model = PlackettLuce()
    rated = skipped = 0
    for result in sorted(results, key=lambda r: r.seed):
        if not result.finished:
            continue
        if len(set(result.levels)) < len(result.levels):
            skipped += 1
            continue
        for level in result.levels:
            ratings.setdefault(level, new_rating())
        teams = [[model.rating(mu=ratings[lv].mu, sigma=ratings[lv].sigma)] for lv in result.levels]
        updated = model.rate(teams, ranks=list(result.places))
        for level, [after] in zip(result.levels, updated):
            if not only or level in only:
                ratings[level] = LevelRating(after.mu, after.sigma, ratings[level].games + 1)
        rated += 1
    return rated, skipped


def load_ratings(path: Path) -> tuple[dict[str, LevelRating], list[str]]:
    """The ratings and the commands recorded in a file written by ``save_ratings``."""
    data = json.loads(path.read_text())
    if data.get("model") != MODEL:
        raise ValueError(f"{path}: ratings of model {data.get('model')!r}, not {MODEL!r}")
    ratings = {level: LevelRating(r["mu"], r["sigma"], r["games"]) for level, r in data["levels"].items()}
    return ratings, list(data["runs"])


def _in_level_order(ratings: dict[str, LevelRating]) -> list[str]:
    known = list(LEVELS)
    return sorted(ratings, key=lambda level: (known.index(level) if level in known else len(known), level))


def save_ratings(path: Path, ratings: dict[str, LevelRating], runs: list[str]) -> None:
    levels = {
        lv: {"mu": ratings[lv].mu, "sigma": ratings[lv].sigma, "games": ratings[lv].games}
        for lv in _in_level_order(ratings)
    }
    path.write_text(json.dumps({"model": MODEL, "levels": levels, "runs": runs}, indent=2) + "\n")


def ratings_table(ratings: dict[str, LevelRating]) -> list[str]:
    lines = [f"  {'level':7s} {'mu':>7s} {'sigma':>6s} {'ordinal':>7s} {'games':>6s}"]
    for level in _in_level_order(ratings):
        r = ratings[level]
        lines.append(f"  {level:7s} {r.mu:7.2f} {r.sigma:6.2f} {ordinal(r):7.2f} {r.games:6d}")
    return lines


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    rate = done / max(time.perf_counter() - started, 1e-9)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, {rate:.2f}/s")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--levels", default="greedy,random", help="comma-separated; repeated to fill the seats")
    parser.add_argument("--edition", default="cmon", choices=("cmon", "classic"))
    parser.add_argument("--expansion", action="store_true")
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds per decision for mcts, the planner's and the expert's cap (default: each level's own, 0.2 and 0.5)",
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help="mcts iterations per decision (overrides --budget)"
    )
    parser.add_argument("--max-turns", type=int, default=400, help="an unfinished game counts as no win")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="1 plays in this process")
    parser.add_argument("--ratings", type=Path, help="rate the levels from these games and write them here (JSON)")
    parser.add_argument("--ratings-from", type=Path, help="start the ratings from this earlier --ratings file")
    parser.add_argument(
        "--forget",
        action="append",
        default=[],
        help="with --ratings-from: rate this level afresh, the others held as they are (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.ratings_from and not args.ratings:
        parser.error("--ratings-from needs --ratings")
    if args.forget and not args.ratings_from:
        parser.error("--forget needs --ratings-from")
    ratings: dict[str, LevelRating] = {}
    runs: list[str] = []
    if args.ratings_from:
        ratings, runs = load_ratings(args.ratings_from)  # read before the games: it may be the file written after
        for level in args.forget:
            ratings.pop(level, None)
    given = args.levels.split(",")
    seats = tuple((given * args.players)[: args.players])
    jobs = []
    for i in range(args.games):
        k = i % args.players
        jobs.append(
            (
                args.seed + i,
                seats[k:] + seats[:k],
                args.edition,
                args.expansion,
                args.budget,
                args.iterations,
                args.max_turns,
            )
        )
    results: list[GameResult] = []
    started = time.perf_counter()
    if args.workers == 1:
        for job in jobs:
            results.append(play_one(job))
            _progress(len(results), len(jobs), started)
    else:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            for result in pool.imap_unordered(play_one, jobs):
                results.append(result)
                _progress(len(results), len(jobs), started)
    elapsed = time.perf_counter() - started
    sys.stderr.write("\n")
    wins: dict[str, float] = defaultdict(float)
    games_with: dict[str, int] = defaultdict(int)
    spent: dict[str, float] = defaultdict(float)
    decisions: dict[str, int] = defaultdict(int)
    for r in results:
        for level in set(r.levels):
            games_with[level] += 1
            if any(r.levels[w] == level for w in r.winners):
                wins[level] += 1
        for level, t in r.decision_time.items():
            spent[level] += t
            decisions[level] += r.decisions[level]
    print(
        f"{len(results)} games, {args.players} players, seats {','.join(seats)} (rotated), {args.edition}"
        f"{' + expansion' if args.expansion else ''}"
    )
    for level in sorted(games_with):
        lo, hi = wilson(wins[level], games_with[level])
        per = spent[level] / max(decisions[level], 1)
        print(
            f"  {level:7s} won {wins[level]:.0f}/{games_with[level]} = {wins[level] / games_with[level]:.1%} "
            f"(95% CI {lo:.1%}-{hi:.1%}); {per * 1000:.1f} ms per decision over {decisions[level]} decisions"
        )
    endings = Counter(r.ended for r in results)
    print(
        f"  mean length {sum(r.turns for r in results) / len(results):.1f} turns, "
        f"{sum(r.events for r in results) / len(results):.0f} events; ended by "
        f"{', '.join(f'{how} {n}' for how, n in sorted(endings.items()))}; "
        f"{len(results) / elapsed:.2f} games/s on {args.workers} processes"
    )
    if args.ratings:
        for level in seats:
            ratings.setdefault(level, new_rating())
        rated, skipped = rate_games(ratings, results, only=args.forget)
        command = shlex.join(["bluemoon-simulate", *(sys.argv[1:] if argv is None else argv)])
        save_ratings(args.ratings, ratings, [*runs, command])
        print(
            f"ratings ({MODEL}): rated {rated} games, skipped {skipped} with a level in several seats, "
            f"{len(results) - rated - skipped} unfinished; written to {args.ratings}"
        )
        print("\n".join(ratings_table(ratings)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
