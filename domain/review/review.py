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
from .decisions import judge_turn
from .discards import judge_discards
from .luck import draw_luck
from .replay import Decision, Replay, replay

SAMPLES = 12  #: worlds each turn is judged in (half choose the best plan, half cost it)
CANDIDATES = 10  #: whole-turn plans judged in every world per turn (the best screened, plus the one played)
DRAW_SAMPLES = 32  #: alternative draws each draw is compared with
MISTAKES = 3  #: the costliest decisions named per seat
#: How the review judges, beside its model: 1 costed each turn's commands alone; 2 (2026-11-28)
#: costs a Reset's discards too, as a decision of their own. A review names it (``method``): one
#: kept from an earlier method came from earlier code, and only that code gives its numbers again.
METHOD = 2
EARLIEST_METHOD = 1  #: the method of a kept review that names none (computed before methods were named)
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

    def generator(label: str) -> random.Random:
        return random.Random(f"{seed}/{label}")

    skipped = set(played_for)
    turns: dict[tuple[int, int], list[Decision]] = {}
    for d in game.decisions:
        if d.undone or isinstance(d.command, cmd.TakeBack) or d.version in skipped:
            continue
        turns.setdefault((d.seat, d.state.turn.number if d.state.turn else 0), []).append(d)
    costs: dict[int, list[tuple[float, Decision, cmd.Command]]] = {}
    for (seat, _), played in turns.items():
        first = played[0]
        dealers = [generator(f"turn/{first.version}/world/{i}") for i in range(samples)]
        judged = judge_turn(first.state, [d.command for d in played], dealers, candidates)
        costs.setdefault(seat, []).append((judged.cost, first, judged.best))
        reset = played[-1]
        if isinstance(reset.command, cmd.EndTurn):  # its discards: a decision the plan is judged before
            dealers = [generator(f"discards/{reset.version}/world/{i}") for i in range(samples)]
            judged = judge_discards(reset.state, reset.command, dealers, candidates)
            costs.setdefault(seat, []).append((judged.cost, reset, judged.best))
    lucks: dict[int, list[tuple[int, float]]] = {}
    for draw in game.draws:
        lucks.setdefault(draw.seat, []).append(
            (draw.version, draw_luck(draw, generator(f"draw/{draw.version}"), draws))
        )
    seats = [_seat(game, s, costs.get(s, []), lucks.get(s, [])) for s in range(game.states[-1].options.players)]
    return {
        "model": MODEL_VERSION,
        "method": METHOD,
        "seed": seed,
        "version": len(events),
        "samples": samples,
        "seats": seats,
    }


def _seat(
    game: Replay, seat: int, costs: list[tuple[float, Decision, cmd.Command]], lucks: list[tuple[int, float]]
) -> dict[str, Any]:
    """One seat's part of the review, its numbers rounded to ``DIGITS`` decimals (totals of the
    unrounded ones). Its mistakes are the costliest of different turns: a slip is often costed
    at each of its steps (each step of a walk that should have begun with a Flit 2), and three
    steps of one slip would hide the next one."""
    by_turn: dict[int, tuple[float, Decision, cmd.Command]] = {}
    for cost, d, best in sorted(costs, key=lambda c: (-c[0], c[1].version)):
        by_turn.setdefault(d.state.turn.number if d.state.turn else 0, (cost, d, best))
    worst = list(by_turn.values())[:MISTAKES]
    return {
        "seat": seat,
        "decisions": round(sum(cost for cost, _, _ in costs), DIGITS),
        "luck": round(sum(luck for _, luck in lucks), DIGITS),
        "curve": [
            {"version": state.version, "chance": round(win_probabilities(state, seat)[seat], DIGITS)}
            for state in game.states
        ],
        "mistakes": [
            {
                "version": d.version,
                "cost": round(cost, DIGITS),
                "played": command_document(d.command),
                "better": command_document(best),
            }
            for cost, d, best in worst
            if cost > 0
        ],
        "draws": [{"version": version, "luck": round(luck, DIGITS)} for version, luck in lucks],
    }
