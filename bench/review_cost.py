"""What a game's review costs: CPU seconds of one core per review, by player count.

Plays seeded games between bots (the planner by default, whose games run longest), reviews each
with the service's settings (``domain.review``'s defaults) and prints, per player count, the
events, decisions and draws reviewed and the review's CPU time (``time.process_time``: the
time of this process alone, so other work on the machine does not count). The goal (issue 40):
at most 30 s of one core for a two-player game.

    python bench/review_cost.py [--games 2] [--players 2,3,4] [--level planner]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain import Options, decide, evolve, fold, new_game  # noqa: E402
from domain import events as ev  # noqa: E402
from domain.bots import choose  # noqa: E402
from domain.review import review_game  # noqa: E402
from domain.review.replay import replay  # noqa: E402
from domain.review.review import CANDIDATES, DRAW_SAMPLES, SAMPLES  # noqa: E402

GOAL = 30.0  #: CPU seconds of one core for a two-player game's review


def played(players: int, seed: int, level: str) -> list[ev.Event]:
    """A whole game between ``level`` bots; ``iterations`` makes the planner's plans exact."""
    events = list(new_game(Options(players), seed.to_bytes(8, "big")))
    state, rnd = fold(events), random.Random(seed)
    while not state.finished:
        for e in decide(state, choose(state, state.turn.seat, level, rnd, iterations=1)):  # type: ignore[union-attr]
            state = evolve(state, e)
            events.append(e)
    return events


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2, help="games per player count")
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--level", default="planner")
    args = parser.parse_args(argv)
    print(f"samples {SAMPLES} worlds a turn, {CANDIDATES} plans a turn, {DRAW_SAMPLES} alternative draws a draw")
    print("players  game  events  decisions  draws  review CPU s")
    worst: dict[int, float] = {}
    for players in (int(p) for p in args.players.split(",")):
        for game in range(args.games):
            events = played(players, 1000 * players + game, args.level)
            looked = replay(events)
            start = time.process_time()
            review_game(events)
            spent = time.process_time() - start
            worst[players] = max(worst.get(players, 0.0), spent)
            reviewed = sum(not d.undone for d in looked.decisions)
            print(f"{players:7}  {game:4}  {len(events):6}  {reviewed:9}  {len(looked.draws):5}  {spent:12.2f}")
    for players, spent in worst.items():
        print(
            f"{players} players: at most {spent:.2f} s of one core" + (f" (goal {GOAL:.0f} s)" if players == 2 else "")
        )
    return 0 if worst.get(2, 0.0) <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
