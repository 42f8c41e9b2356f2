"""RQ jobs. ``play_turn`` plays one seat's turn to its end, exactly once.

Each command is appended at the version it was chosen against, with the command id
``bot:<game>:<version>:<seat>``: a retried or duplicated job finds the commands already
applied and carries on from there, never moving twice. A job for a turn that is over (the
game ended, or someone else is to move) does nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import time
from typing import TYPE_CHECKING

from domain import bots, view
from domain.commands import EndTurn
from events.store import IdempotencyConflict, WrongExpectedVersion

if TYPE_CHECKING:
    from service.games import GameService

MAX_COMMANDS = 80  #: a turn never takes this many commands; a guard against a bot bug
BUDGETS = {"random": 0.0, "greedy": 0.0, "mcts": 0.2}


def _service() -> "GameService":
    """The service on the worker's own connection, handing further turns to the same queue."""
    from rq import get_current_job

    from service.bootstrap import build

    from .queueing import RQTurns

    job = get_current_job()
    if job is None:
        return build(os.environ["REDIS_URL"]).service
    return build(client=job.connection, on_turn=RQTurns(job.connection, queue=job.origin)).service


def bot_seed(game: str, version: int, seat: int) -> str:
    """The bot's generator seed for one decision: anyone can re-run its choice."""
    return f"{game}:{version}:{seat}"


def play_turn(game: str, seat: int, turn: int, level: str, reason: str) -> str:
    """The RQ job: play the turn with the service of this worker process."""
    return play(_service(), game, seat, turn, level, reason)


def play(service: "GameService", game: str, seat: int, turn: int, level: str, reason: str) -> str:
    """Play ``seat``'s turn number ``turn`` to its end, exactly once (see module doc)."""
    delay = float(os.environ.get("BOT_STEP_DELAY", "0"))  # pace bots so they look human
    for _ in range(MAX_COMMANDS):
        state = service.state(game)
        if state.finished or state.turn is None or state.turn.seat != seat or state.turn.number != turn:
            return "done"
        if level == "pass":
            command = EndTurn(seat)
        else:
            command = bots.choose(state, seat, level, random.Random(bot_seed(game, state.version, seat)))
        meta = {
            "level": level,
            "reason": reason,
            "budget": BUDGETS.get(level, 0.0),
            "seed": bot_seed(game, state.version, seat),
            "view": hashlib.sha256(json.dumps(view(state, seat), sort_keys=True).encode()).hexdigest(),
        }
        try:
            service.submit(
                game, command, expected=state.version, key=f"bot:{game}:{state.version}:{seat}",
                actor=f"{'bot' if reason == 'bot' else 'deadline'}:{level}", meta=json.dumps(meta),
            )
        except (WrongExpectedVersion, IdempotencyConflict):
            continue  # another copy of this job moved first: look again
        if delay and not isinstance(command, EndTurn):
            time.sleep(delay)
    raise RuntimeError(f"turn {turn} of seat {seat} in {game} did not end after {MAX_COMMANDS} commands")
