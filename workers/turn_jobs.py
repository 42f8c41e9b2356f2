"""RQ jobs. ``play_turn`` plays one seat's turn to its end, exactly once.

Each command is appended at the version it was chosen against, with the key
``<game>:<version>:<seat>`` in the turn jobs' own scope (stored as ``bot:<game>:<version>:<seat>``,
application/games/command_ids.py): a retried or duplicated job finds the commands already applied and
carries on from there, never moving twice. A job for a turn that is over (the game ended, or
someone else is to move) does nothing.

No player can send a key in the jobs' scope. Should a key be held all the same by a command
appended at another version (where none of the job's is: a record written otherwise, such as
by an earlier release that kept keys per game), the job plays under the key's next alternate
(``<key>/1``, ...) instead of meeting that command's record again and again and never ending
the turn.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import time
from collections.abc import Iterator

from rq import get_current_job

from application.background.rq_handoff import RQHandoff
from application.background.work import WORK
from application.games.command_ids import TURN_JOBS
from application.games.game_service import GameService
from application.games.reads import GameRead
from application.settings import BOT_STEP_DELAY
from application.wiring import build, connect, queue_url, store_client_for_job
from domain import Command, Game, bots, legal_commands, view
from domain.commands import EndTurn
from domain.errors import CommandError
from events.store import IdempotencyConflict, WrongExpectedVersion

log = logging.getLogger("bluemoon.jobs")

MAX_COMMANDS = 80  #: a turn never takes this many commands; a guard against a bot bug
ALTERNATES = 3  #: keys a job tries after its usual one when each is held (see module doc)
BUDGETS = {"random": 0.0, "greedy": 0.0, "mcts": 0.2, "planner": 0.5, "expert": 0.5}
#: Seconds between two renewals of the turn's lease: a third of it, so that a slow decision
#: never lets it lapse, without a round trip before every command.
RENEW_EVERY = WORK["turn"].lease_ms / 3000


def _service() -> GameService:
    """The service on the worker's own connection, handing further turns to the same queue."""

    job = get_current_job()
    if job is None:
        queue = connect(queue_url())
        return build(client=store_client_for_job(queue), handoff=RQHandoff(queue)).service
    return build(
        client=store_client_for_job(job.connection), handoff=RQHandoff(job.connection, queue=job.origin)
    ).service


def bot_seed(game: str, version: int, seat: int) -> str:
    """The bot's generator seed for one decision: anyone can re-run its choice."""
    return f"{game}:{version}:{seat}"


def play_turn(game: str, seat: int, turn: int, level: str, reason: str, payload: str | None = None) -> str:
    """The RQ job: play the turn with the service of this worker process, renewing the lease
    on the turn's outbox entry (``payload``) as it goes."""
    return play(_service(), game, seat, turn, level, reason, payload=payload)


def view_hash(state: Game, seat: int) -> str:
    """An HMAC of the bot's view keyed with the game's seed: secret while the game runs (a
    plain hash would let anyone test guesses of the bot's hand), checkable by anyone once
    the seed is revealed at the end."""
    message = json.dumps(view(state, seat), sort_keys=True).encode()
    return hmac.new(state.seed.encode(), message, hashlib.sha256).hexdigest()


def candidates(state: Game, seat: int, level: str, seed: str) -> Iterator[tuple[str, Command]]:
    """The commands to try, in order: the level's choice, then greedy's, then ending the turn.
    A bot that raises or picks an illegal command is logged and replaced, so no game ever
    waits on a crashed bot. Each level draws from its own ``random.Random(seed)``, so the
    choice recorded with the seed can be re-run whichever level made it."""
    for fallback in dict.fromkeys([level, "greedy"]):
        if fallback == "pass":
            break
        try:
            yield fallback, bots.choose(state, seat, fallback, random.Random(seed))
        except Exception:
            log.exception("bot %s failed at version %d; falling back", fallback, state.version)
    yield "pass", next(c for c in legal_commands(state, seat) if isinstance(c, EndTurn))


def command_key(game: str, version: int, seat: int, alternate: int = 0) -> str:
    """The key of the job's command chosen at ``version``: a second copy of the job finds it
    applied. ``alternate`` > 0: the key to use instead when the previous one is held (see
    module doc)."""
    key = f"{game}:{version}:{seat}"
    return f"{key}/{alternate}" if alternate else key


def own_key(service: GameService, game: str, version: int, seat: int, read: GameRead) -> str:
    """The key for the job's command at ``version``: the first of ``command_key``'s that names
    no command yet or one appended at ``version`` (this job's, or a rival's that moved the game
    on, which the next look at it finds). One held by a command appended at another version is
    passed over, with a warning: every try under it would answer that command's record."""
    for alternate in range(ALTERNATES + 1):
        key = command_key(game, version, seat, alternate)
        seen = service.recorded(game, key, TURN_JOBS, read)
        if seen is None or seen[1].first == version + 1:
            return key
        log.warning("the key %s of seat %d in %s names a command at version %d", key, seat, game, seen[1].first - 1)
    raise RuntimeError(f"every key of seat {seat} at version {version} in {game} names another command")


def playing(state: Game, seat: int, turn: int) -> bool:
    """Whether ``state`` is still ``seat``'s turn number ``turn``."""
    return not state.finished and state.turn is not None and state.turn.seat == seat and state.turn.number == turn


def play(
    service: GameService,
    game: str,
    seat: int,
    turn: int,
    level: str,
    reason: str,
    payload: str | None = None,
    by: str | None = None,
) -> str:
    """Play ``seat``'s turn number ``turn`` to its end, exactly once (see module doc). The game
    is loaded once; before each command one round trip (``GameService.read``) brings the state
    up to date with the settings and the record of the command's id, which ``submit`` would
    otherwise read again in three. ``by``: ``admin`` when an operator's end of the game plays
    it (application/admin/game_ending.py), kept in each command's record."""
    delay = BOT_STEP_DELAY.read()  # pace bots so they look human
    renewed = -RENEW_EVERY
    if reason == "deadline" and payload is not None:
        if not service.outbox.renew(game, payload):
            return "moved"  # the deadline moved since the claim (a vacation asked for meanwhile): not due now
        renewed = time.monotonic()
    kept = service.state(game)  # then the state after this job's own last command
    for _ in range(MAX_COMMANDS):
        if not playing(kept, seat, turn):
            return "done"
        read = service.read(game, None, command_key(game, kept.version, seat), sender=TURN_JOBS)
        state = kept = service.state(game, read)
        if not playing(state, seat, turn):
            return "done"
        key = own_key(service, game, state.version, seat, read)
        if payload is not None and time.monotonic() - renewed >= RENEW_EVERY:
            service.outbox.renew(game, payload)
            renewed = time.monotonic()
        seed = bot_seed(game, state.version, seat)
        meta: dict[str, object] = {"reason": reason, "seed": seed, "view": view_hash(state, seat)}
        if by is not None:
            meta["by"] = by
        command: Command | None = None
        for played, command in candidates(state, seat, level, seed):
            meta.update(level=played, budget=BUDGETS.get(played, 0.0))
            try:
                outcome = service.submit(
                    game,
                    command,
                    expected=state.version,
                    key=key,
                    actor=f"{'bot' if reason == 'bot' else 'deadline'}:{played}",
                    sender=TURN_JOBS,
                    meta=json.dumps(meta),
                    read=read,
                )
                # a copy of this job that moved first gets a replay: the next read catches up then
                kept = state if outcome.duplicate else outcome.state
                break
            except (WrongExpectedVersion, IdempotencyConflict):
                break  # another copy of this job moved first: look again
            except CommandError as error:
                log.error("%s chose a refused command in %s at version %d: %s", played, game, state.version, error)
        if delay and not isinstance(command, EndTurn):
            time.sleep(delay)
    raise RuntimeError(f"turn {turn} of seat {seat} in {game} did not end after {MAX_COMMANDS} commands")
