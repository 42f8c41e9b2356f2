"""Looking back: the game at any past version, and once it has ended, the full log and the audit."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from application.accounts.scopes import READ
from application.games.finished_documents import finished_document
from application.games.log_audit import audit_log
from application.refusals import NotFinished, NotFound
from events.serialization import StoredEvent

from ..operation import ETAG, OPTIONAL_AUTH, Answer, Caller, Operation, Reply
from ..requests import etag, game_view, served_events, service
from ..schemas.audit import Audit, Log
from ..schemas.game_view import GameView

replay = Blueprint("replay", __name__)


@Operation(
    replay,
    "get",
    "/games/{game}/versions/{version}",
    id="getGameAtVersion",
    tag="follow",
    summary="The game as you saw it at a past version (time travel).",
    security=OPTIONAL_AUTH,
    scope=READ,
    responses={200: Reply("The view then.", GameView, headers=ETAG)},
    problems=(403, 404),
)
def at_version(game: str, version: int, caller: Caller) -> Answer:
    svc = service()
    current = svc.store.version(game)
    if current == 0:
        svc.state(game)
    if not 1 <= version <= current:
        raise NotFound(f"version must be 1..{current}")
    return game_view(game, svc.state_at(game, version), caller.seat), etag(version)


def _finished_log(game: str) -> tuple[Any, list[StoredEvent]]:
    svc = service()
    state = svc.state(game)
    if not state.finished:
        raise NotFinished("the full log, the seed and the audit are published when the game ends")
    return state, svc.store.read(game)


@Operation(
    replay,
    "get",
    "/games/{game}/log",
    id="getLog",
    tag="audit",
    summary="The full, unredacted event log and the seed, once the game has ended.",
    responses={200: Reply("The log.", Log)},
    problems=(404, 409),
)
def log(game: str) -> Answer:
    return published_log(game)


def published_log(game: str) -> dict[str, Any]:
    """The finished game's log, as ``getLog`` answers it (and an export writes it); refused before the end."""
    return finished_document(service().client, game, "log", lambda: _log_of(game))


def _log_of(game: str) -> dict[str, Any]:
    state, stored = _finished_log(game)
    return {
        "game": game,
        "seed": state.seed,
        "commitment": state.commitment,
        "events": served_events(stored, None, revealed=True),
    }


@Operation(
    replay,
    "get",
    "/games/{game}/audit",
    id="auditGame",
    tag="audit",
    summary="Re-derive every shuffle from the revealed seed and judge every recorded command again.",
    description="Each event's `meta.command` (with `meta.seat` and `meta.version`) records the command "
    "that caused it; the audit replays the rules on each and compares the events, checks "
    "every copy of the seed, and says whether the setup was drawn or given explicitly.",
    responses={200: Reply("The checks.", Audit)},
    problems=(404, 409),
)
def audit_game(game: str) -> Answer:
    return finished_document(service().client, game, "audit", lambda: _audit_of(game))


def _audit_of(game: str) -> dict[str, Any]:
    published = published_log(game)
    return {"game": game, **audit_log({"seed": published["seed"], "events": published["events"]})}
