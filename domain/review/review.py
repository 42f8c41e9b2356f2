"""A finished game's review: per seat, what its decisions cost and what its draws gave, in
chances of finishing first, and its chance over the game.

Pure and reproducible: everything random is drawn from the review's seed, which is derived
from the game's revealed seed and the value model's version (``review_seed``), so the same log
and the same model give the same numbers anywhere (``bluemoon-review``). A game that has not
ended is refused: its seed is still secret (``NotReviewable``).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Collection, Sequence
from typing import Any

from .. import commands as cmd
from .. import events as ev
from ..bots.value import MODEL_VERSION, win_probabilities
from ..commands import command_document
from .decisions import judge_decision
from .luck import draw_luck
from .replay import Decision, replay

SAMPLES = 12  #: worlds each decision is judged in
CANDIDATES = 10  #: commands judged in every world per decision (the best-planned ones, plus the one played)
DRAW_SAMPLES = 32  #: alternative draws each draw is compared with
MISTAKES = 3  #: the costliest decisions named per seat
DIGITS = 4  #: decimals of the chances written out


def review_seed(game_seed: bytes, model: str = MODEL_VERSION) -> str:
    """The review's seed: HMAC-SHA256 of the model version keyed by the game's seed, hex."""
    return hmac.new(game_seed, f"review/{model}".encode(), hashlib.sha256).hexdigest()


def review_game(
    events: Sequence[ev.Event],
    samples: int = SAMPLES,
    candidates: int = CANDIDATES,
    draws: int = DRAW_SAMPLES,
    played_for: Collection[int] = (),
) -> dict[str, Any]:
    """The review of a finished game from its full (unredacted) events; raises
    ``NotReviewable`` for a game that has not ended. ``played_for``: the versions at which a
    command was played for its seat, not by it (the clock ran out: the event's actor is
    ``deadline:<level>``); those are not the seat's decisions, and are not reviewed."""
    game = replay(events)
    seed = review_seed(game.seed)
    players = game.states[-1].options.players

    def generator(label: str) -> random.Random:
        return random.Random(f"{seed}/{label}")

    seats: list[dict[str, Any]] = [
        {"seat": s, "decisions": 0.0, "luck": 0.0, "curve": [], "mistakes": [], "draws": []} for s in range(players)
    ]
    for state in game.states:
        for s in range(players):
            chance = win_probabilities(state, s)[s]
            seats[s]["curve"].append({"version": state.version, "chance": round(chance, DIGITS)})
    costs: list[list[tuple[float, Decision, cmd.Command]]] = [[] for _ in range(players)]
    for d in game.decisions:
        if d.undone or isinstance(d.command, cmd.TakeBack) or d.version in played_for:
            continue
        worlds = [generator(f"decision/{d.version}/world/{i}") for i in range(samples + 1)]  # 0 screens
        judged = judge_decision(d.state, d.command, worlds, candidates)
        costs[d.seat].append((judged.cost, d, judged.best))
    for s, found in enumerate(costs):
        seats[s]["decisions"] = round(sum(c for c, _, _ in found), DIGITS)
        worst = sorted(found, key=lambda f: (-f[0], f[1].version))[:MISTAKES]
        seats[s]["mistakes"] = [
            {
                "version": d.version,
                "cost": round(c, DIGITS),
                "played": command_document(d.command),
                "better": command_document(best),
            }
            for c, d, best in worst
            if c > 0
        ]
    for draw in game.draws:
        luck = draw_luck(draw, generator(f"draw/{draw.version}"), draws)
        seat = seats[draw.seat]
        seat["draws"].append({"version": draw.version, "luck": round(luck, DIGITS)})
        seat["luck"] += luck
    for seat in seats:
        seat["luck"] = round(seat["luck"], DIGITS)
    return {
        "model": MODEL_VERSION,
        "seed": seed,
        "version": len(events),
        "samples": samples,
        "seats": seats,
    }
