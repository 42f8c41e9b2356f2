"""Train the value model (domain/bots/value.py) from self-play, and measure its calibration.

    bluemoon-train-value --games 360 --held-out 90 --seed 0 --workers 2

Plays ``--games`` games on seeds ``--first-seed`` onwards and ``--held-out`` more on seeds from
``--held-out-seed`` (never trained on): greedy and planner, alone and against each other, in
both editions, with and without the expansion, 2-4 players (``recipe``). The planner weighs
every plan (no clock), so the same seeds give the same games. The games are kept in
``--data-dir`` (not the repository) and read again by a later run with the same recipe.

From each game it samples ``--sample`` of the positions where a seat was to decide; each is
seen by every seat in turn (``observe``) and labelled with who finished first (P18's places,
``domain.standings``: the winners share it). The model (``features`` per seat, one hidden layer,
softmax across the seats) is fitted by numpy with Adam, seeded by ``--seed``. The baseline is the
heuristic (``heuristic.value`` of the same observation) through a softmax whose temperature is
fitted on the same training positions. Both are scored on the held-out games: the Brier score
(mean squared error of each seat's probability of finishing first) and a reliability table by
deciles of the predicted probability. The model, its version, the recipe, the training seed
and these numbers are written to ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import pickle
import random
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from domain import Edition, Event, Game, Options, bots, decide, evolve, fold, new_game
from domain.bots import choose
from domain.bots.features import NAMES, seat_features
from domain.bots.heuristic import value
from domain.bots.observation import observe
from domain.standings import places

MAX_SEATS = 4
#: Where the model is shipped (``value.MODEL_PATH``, named here too so training needs no model).
DEFAULT_OUT = Path(bots.__file__).with_name("value_model.json")
#: (edition, expansion) of the recipe's games in turn; the expansion exists in cmon only.
RULES = (("classic", False), ("cmon", False), ("cmon", True))
#: The levels' line-ups in turn, rotated from game to game so every level sits in every seat.
LINEUPS = (("greedy",), ("planner",), ("planner", "greedy"))


@dataclass(frozen=True)
class Job:
    seed: int
    levels: tuple[str, ...]
    edition: str
    expansion: bool
    max_turns: int


@dataclass
class Played:
    """One self-play game: its events, where a seat was to decide, and how it finished."""

    job: Job
    events: list[Event]
    decisions: list[int]  #: the number of events folded when a seat was to decide
    places: tuple[int, ...]  #: () if unfinished within ``max_turns``


def recipe(first_seed: int, games: int, max_turns: int = 400) -> list[Job]:
    """Game ``i`` has 2 + i % 3 players, the rules RULES[i // 3 % 3], the line-up
    LINEUPS[i // 9 % 3] rotated by ``i`` over the seats, and seed ``first_seed + i``."""
    jobs = []
    for i in range(games):
        players = 2 + i % 3
        edition, expansion = RULES[i // 3 % 3]
        lineup = LINEUPS[i // 9 % 3]
        seats = tuple((lineup * players)[:players])
        k = i % players
        jobs.append(Job(first_seed + i, seats[k:] + seats[:k], edition, expansion, max_turns))
    return jobs


def play(job: Job) -> Played:
    """Play one game deterministically (the planner without a clock)."""
    rnd = random.Random(job.seed)
    opening = new_game(Options(len(job.levels), Edition(job.edition), job.expansion), job.seed.to_bytes(8, "big"))
    events = list(opening)
    state = fold(opening)
    decisions = []
    while state.turn is not None and not state.finished and state.turn.number <= job.max_turns:
        seat = state.turn.seat
        decisions.append(len(events))
        command = choose(state, seat, job.levels[seat], rnd, iterations=1)
        for e in decide(state, command):
            state = evolve(state, e)
            events.append(e)
    return Played(job, events, decisions, places(state) if state.finished else ())


def play_all(jobs: Sequence[Job], workers: int) -> list[Played]:
    """The games in the order of ``jobs``, on ``workers`` processes."""
    started = time.perf_counter()
    done: list[Played] = []

    def progress() -> None:
        rate = len(done) / max(time.perf_counter() - started, 1e-9)
        sys.stderr.write(f"\r{len(done)}/{len(jobs)} games, {rate:.2f}/s")

    if workers == 1:
        for job in jobs:
            done.append(play(job))
            progress()
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for played in pool.imap(play, jobs):
                done.append(played)
                progress()
    sys.stderr.write("\n")
    return done


def games(jobs: Sequence[Job], workers: int, data_dir: Path | None) -> list[Played]:
    """``play_all``, kept in ``data_dir`` under a name that is a digest of the jobs."""
    if data_dir is None:
        return play_all(jobs, workers)
    digest = hashlib.sha256(repr(list(jobs)).encode()).hexdigest()[:16]
    path = data_dir / f"games-{jobs[0].seed}-{len(jobs)}-{digest}.pickle"
    if path.exists():
        with path.open("rb") as f:  # plain tuples: the classes' module is __main__ under ``python -m``
            return [Played(Job(*job), events, decisions, places) for job, events, decisions, places in pickle.load(f)]
    played = play_all(jobs, workers)
    data_dir.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump([(astuple(p.job), p.events, p.decisions, p.places) for p in played], f)
    return played


def sampled_positions(played: Played, rate: float, rng: random.Random) -> Iterator[Game]:
    """The positions before a sampled ``rate`` of the game's decisions."""
    wanted = {n for n in played.decisions if rng.random() < rate}
    state = None
    for count, e in enumerate(played.events):
        state = evolve(state, e)
        if count + 1 in wanted:
            yield state


@dataclass
class Dataset:
    """Positions as the viewing seat sees them, padded to four seats."""

    features: np.ndarray  #: (n, 4, len(NAMES))
    mask: np.ndarray  #: (n, 4): which seats exist
    outcome: np.ndarray  #: (n, 4): each seat's share of first place
    heuristic: np.ndarray  #: (n, 4): ``heuristic.value`` of each seat in the viewer's observation
    game: np.ndarray  #: (n,): the game's seed

    def where(self, rows: np.ndarray) -> Dataset:
        """The positions in ``rows`` (a boolean mask)."""
        return Dataset(self.features[rows], self.mask[rows], self.outcome[rows], self.heuristic[rows], self.game[rows])


def dataset(played_games: Sequence[Played], rate: float, seed: int) -> Dataset:
    """Every sampled position of every finished game, once per viewing seat."""
    rng = random.Random(seed)
    rows, masks, outcomes, heuristics, seeds = [], [], [], [], []
    pad = [0.0] * len(NAMES)
    for played in played_games:
        if not played.places:
            continue
        n = len(played.places)
        winners = [s for s in range(n) if played.places[s] == 1]
        outcome = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)] + [0.0] * (MAX_SEATS - n)
        for state in sampled_positions(played, rate, rng):
            for viewer in range(n):
                seen = observe(state, viewer)
                rows.append(seat_features(seen, viewer) + [pad] * (MAX_SEATS - n))
                masks.append([s < n for s in range(MAX_SEATS)])
                outcomes.append(outcome)
                heuristics.append([value(seen, s) for s in range(n)] + [0.0] * (MAX_SEATS - n))
                seeds.append(played.job.seed)
    return Dataset(
        np.array(rows, dtype=np.float64).reshape(-1, MAX_SEATS, len(NAMES)),
        np.array(masks, dtype=bool).reshape(-1, MAX_SEATS),
        np.array(outcomes, dtype=np.float64).reshape(-1, MAX_SEATS),
        np.array(heuristics, dtype=np.float64).reshape(-1, MAX_SEATS),
        np.array(seeds, dtype=np.int64),
    )


def softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Across each position's seats, the padding left out."""
    scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.where(mask, np.exp(scores), 0.0)
    result: np.ndarray = weights / weights.sum(axis=1, keepdims=True)
    return result


def log_loss(probabilities: np.ndarray, data: Dataset) -> float:
    return float(-(data.outcome * np.log(np.clip(probabilities, 1e-12, 1.0))).sum() / len(data.outcome))


# -- the model -----------------------------------------------------------------------------------


@dataclass
class Net:
    """Each seat's score: ``v . tanh(W x + b) + u . x``; the chances are their softmax."""

    w: np.ndarray  #: (features, hidden)
    b: np.ndarray  #: (hidden,)
    v: np.ndarray  #: (hidden,)
    u: np.ndarray  #: (features,)

    def scores(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hidden = np.tanh(x @ self.w + self.b)
        return hidden @ self.v + x @ self.u, hidden

    def probabilities(self, data: Dataset) -> np.ndarray:
        return softmax(self.scores(data.features)[0], data.mask)


def fit(data: Dataset, hidden: int, seed: int, epochs: int = 20, l2: float = 0.01, batch: int = 512) -> Net:
    """Adam on the log loss of the soft outcomes, on standardised features; the
    standardisation is folded into the returned weights. Deterministic given ``seed``."""
    rng = np.random.default_rng(seed)
    rows = data.features[data.mask]
    mean, scale = rows.mean(axis=0), rows.std(axis=0)
    scale[scale < 1e-9] = 1.0
    x_all = np.where(data.mask[..., None], (data.features - mean) / scale, 0.0)
    n_features = x_all.shape[2]
    params = {
        "w": rng.normal(0.0, 1.0 / math.sqrt(n_features), (n_features, hidden)),
        "b": np.zeros(hidden),
        "v": rng.normal(0.0, 1.0 / math.sqrt(max(hidden, 1)), hidden),
        "u": np.zeros(n_features),
    }
    moments = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in params.items()}
    rate, beta1, beta2, step = 0.01, 0.9, 0.999, 0
    n = len(x_all)
    for epoch in range(epochs):
        order = rng.permutation(n)
        lr = rate * (0.5 * (1 + math.cos(math.pi * epoch / epochs)))  # a cosine schedule
        for start in range(0, n, batch):
            pick = order[start : start + batch]
            x, mask, y = x_all[pick], data.mask[pick], data.outcome[pick]
            net = Net(**params)
            score, h = net.scores(x)
            g = (softmax(score, mask) - y) / len(pick)  # d loss / d score
            dh = g[..., None] * params["v"] * (1 - h * h)
            grads = {
                "w": np.einsum("nsf,nsh->fh", x, dh) + 2 * l2 * params["w"],
                "b": dh.sum(axis=(0, 1)),
                "v": np.einsum("ns,nsh->h", g, h) + 2 * l2 * params["v"],
                "u": np.einsum("ns,nsf->f", g, x) + 2 * l2 * params["u"],
            }
            step += 1
            for k, grad in grads.items():
                m, s = moments[k]
                m[:] = beta1 * m + (1 - beta1) * grad
                s[:] = beta2 * s + (1 - beta2) * grad * grad
                m_hat, s_hat = m / (1 - beta1**step), s / (1 - beta2**step)
                params[k] = params[k] - lr * m_hat / (np.sqrt(s_hat) + 1e-8)
    w = params["w"] / scale[:, None]
    b = params["b"] - (mean / scale) @ params["w"]
    u = params["u"] / scale  # its constant term is the same for every seat: the softmax drops it
    return Net(w, b, params["v"], u)


def fit_temperature(data: Dataset) -> float:
    """The baseline's link: the softmax temperature of heuristic values with the least log
    loss on ``data`` (a golden-section search over its logarithm)."""

    def loss(log_t: float) -> float:
        return log_loss(softmax(data.heuristic / math.exp(log_t), data.mask), data)

    lo, hi = math.log(0.5), math.log(500.0)
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    return math.exp((lo + hi) / 2)


def baseline(data: Dataset, temperature: float) -> np.ndarray:
    return softmax(data.heuristic / temperature, data.mask)


# -- calibration ---------------------------------------------------------------------------------


def brier(probabilities: np.ndarray, data: Dataset) -> float:
    """Mean squared error of each seat's probability of finishing first (its share of it)."""
    return float(((probabilities - data.outcome)[data.mask] ** 2).mean())


def reliability(probabilities: np.ndarray, data: Dataset) -> list[tuple[str, int, float, float]]:
    """Per decile of predicted probability: (range, seats, mean predicted, observed share)."""
    p, y = probabilities[data.mask], data.outcome[data.mask]
    decile = np.minimum((p * 10).astype(int), 9)
    table = []
    for d in range(10):
        inside = decile == d
        if inside.any():
            table.append(
                (
                    f"{d / 10:.1f}-{(d + 1) / 10:.1f}",
                    int(inside.sum()),
                    float(p[inside].mean()),
                    float(y[inside].mean()),
                )
            )
    return table


def calibration(net: Net, temperature: float, data: Dataset) -> dict[str, Any]:
    model, base = net.probabilities(data), baseline(data, temperature)
    return {
        "positions": len(data.outcome),
        "games": len(set(data.game.tolist())),
        "model": {
            "brier": brier(model, data),
            "log_loss": log_loss(model, data),
            "reliability": reliability(model, data),
        },
        "baseline": {
            "brier": brier(base, data),
            "log_loss": log_loss(base, data),
            "reliability": reliability(base, data),
        },
    }


def report(result: dict[str, Any]) -> str:
    """The calibration as docs/bots.md shows it (markdown)."""
    m, b = result["model"], result["baseline"]
    lines = [
        f"{result['games']} held-out games, {result['positions']} positions (seat views):",
        "",
        "| | Brier | log loss |",
        "| --- | ---: | ---: |",
        f"| value model | {m['brier']:.4f} | {m['log_loss']:.4f} |",
        f"| heuristic + fitted softmax | {b['brier']:.4f} | {b['log_loss']:.4f} |",
        "",
        "| predicted | seats (model) | mean predicted | finished first | seats (baseline) | mean predicted | finished first |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base = {row[0]: row for row in b["reliability"]}
    for name, count, predicted, observed in m["reliability"]:
        other = base.get(name, (name, 0, float("nan"), float("nan")))
        lines.append(
            f"| {name} | {count} | {predicted:.3f} | {observed:.3f} | {other[1]} | {other[2]:.3f} | {other[3]:.3f} |"
        )
    return "\n".join(lines)


def model_document(net: Net, temperature: float, meta: dict[str, Any]) -> dict[str, Any]:
    """The model file: weights (rounded: a few KB), a version that is a digest of them, and how
    they were made."""
    weights = {
        "features": list(NAMES),
        "hidden_weights": np.round(net.w.T, 6).tolist(),  # (hidden, features)
        "hidden_bias": np.round(net.b, 6).tolist(),
        "hidden_out": np.round(net.v, 6).tolist(),
        "linear": np.round(net.u, 6).tolist(),
    }
    digest = hashlib.sha256(json.dumps(weights, sort_keys=True).encode()).hexdigest()[:10]
    return {"version": f"mlp{len(net.b)}-{digest}", **weights, "baseline_temperature": round(temperature, 4), **meta}


def net_from_document(doc: dict[str, Any]) -> Net:
    shape = (len(doc["hidden_bias"]), len(doc["features"]))
    return Net(
        np.array(doc["hidden_weights"], dtype=np.float64).reshape(shape).T,
        np.array(doc["hidden_bias"], dtype=np.float64),
        np.array(doc["hidden_out"], dtype=np.float64),
        np.array(doc["linear"], dtype=np.float64),
    )


def select(
    train: Dataset, sizes: Sequence[int], seed: int, epochs: int, l2: float
) -> tuple[int, list[tuple[int, float]]]:
    """The hidden layer's size with the least log loss on the last fifth of the training games
    when fitted on the rest (the held-out games are never looked at), and each size's loss."""
    seeds = np.unique(train.game)
    cut = seeds[int(len(seeds) * 0.8)]
    fitting, validating = train.where(train.game < cut), train.where(train.game >= cut)
    losses = [
        (size, log_loss(fit(fitting, size, seed, epochs, l2).probabilities(validating), validating)) for size in sizes
    ]
    return min(losses, key=lambda pair: pair[1])[0], losses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=360, help="training games")
    parser.add_argument("--first-seed", type=int, default=0, help="the training games' first seed")
    parser.add_argument("--held-out", type=int, default=90, help="games to measure calibration on")
    parser.add_argument("--held-out-seed", type=int, default=1_000_000, help="the held-out games' first seed")
    parser.add_argument("--sample", type=float, default=0.25, help="share of decision points taken as positions")
    parser.add_argument(
        "--hidden", default="0,8,16", help="hidden units; several (comma-separated) are compared on the training games"
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--l2", type=float, default=0.01, help="weight decay (positions of one game are alike)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (sampling, initial weights, batches)")
    parser.add_argument("--max-turns", type=int, default=400, help="a game unfinished by then is left out")
    parser.add_argument("--workers", type=int, default=2, help="processes playing the games; 1 plays in this one")
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/bluemoon-value"), help="where games are kept")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.held_out_seed < args.first_seed + args.games:
        parser.error("the held-out seeds must follow the training seeds")
    train_jobs = recipe(args.first_seed, args.games, args.max_turns)
    test_jobs = recipe(args.held_out_seed, args.held_out, args.max_turns)
    started = time.perf_counter()
    train = dataset(games(train_jobs, args.workers, args.data_dir), args.sample, args.seed)
    test = dataset(games(test_jobs, args.workers, args.data_dir), args.sample, args.seed + 1)
    print(
        f"positions: {len(train.outcome)} to train on, {len(test.outcome)} held out ({time.perf_counter() - started:.0f} s)"
    )
    temperature = fit_temperature(train)
    started = time.perf_counter()
    sizes = [int(size) for size in args.hidden.split(",")]
    hidden, losses = select(train, sizes, args.seed, args.epochs, args.l2) if len(sizes) > 1 else (sizes[0], [])
    print("validation log loss by hidden units: " + ", ".join(f"{size}: {loss:.4f}" for size, loss in losses))
    fitted = fit(train, hidden, args.seed, args.epochs, args.l2)
    print(f"fitted in {time.perf_counter() - started:.0f} s; baseline temperature {temperature:.2f}")
    net = net_from_document(model_document(fitted, temperature, {}))  # judged as shipped: rounded
    result = calibration(net, temperature, test)
    command = shlex.join(["bluemoon-train-value", *(sys.argv[1:] if argv is None else argv)])
    meta = {
        "command": command,
        "recipe": {
            "training_seeds": [args.first_seed, args.first_seed + args.games - 1],
            "held_out_seeds": [args.held_out_seed, args.held_out_seed + args.held_out - 1],
            "rules": [list(r) for r in RULES],
            "lineups": [list(lineup) for lineup in LINEUPS],
            "players": [2, 3, 4],
            "sample": args.sample,
            "max_turns": args.max_turns,
        },
        "training": {
            "seed": args.seed,
            "hidden": hidden,
            "validation_log_loss": {str(size): round(loss, 5) for size, loss in losses},
            "epochs": args.epochs,
            "l2": args.l2,
            "positions": len(train.outcome),
        },
        "calibration": {k: result[k] for k in ("games", "positions")}
        | {
            side: {"brier": round(result[side]["brier"], 5), "log_loss": round(result[side]["log_loss"], 5)}
            for side in ("model", "baseline")
        },
    }
    doc = model_document(net, temperature, meta)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"model {doc['version']} written to {args.out}")
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
