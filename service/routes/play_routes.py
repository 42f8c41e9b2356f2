"""Playing: the legal commands for your seat, and posting one (exactly once per Idempotency-Key,
against the version you saw)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from marshmallow import ValidationError, fields

from application.accounts.scopes import PLAY, READ
from application.games.codec import command_from_json, legal_document
from application.refusals import PreconditionRequired

from ..operation import AUTH, ETAG, Answer, Body, Caller, Operation, Parameters, Reply, TrueOrFalse
from ..requests import etag, etag_version, game_view, served_events, service
from ..schemas.play import CommandRequest, CommandResult, Legal
from ..schemas.retries import idempotency_key

play = Blueprint("play", __name__)


class Expand(Parameters):
    expand = TrueOrFalse(
        load_default=False,
        metadata={"description": "Also list `end_turn` with every combination of discards."},
    )


@Operation(
    play,
    "get",
    "/games/{game}/legal",
    id="legalCommands",
    tag="play",
    summary="Every legal command for your seat, ready to post back.",
    description="Compact by default: contributions are the minimal payments (one per combination of "
    "interchangeable cards), and the Reset is one `end_turn` plus `end_turn_discards`, the "
    "cards it may discard, instead of every combination of them.",
    security=AUTH,
    scope=READ,
    query=Expand,
    responses={200: Reply("Legal commands (empty when it is not your turn).", Legal, headers=ETAG)},
    problems=(401, 403, 404, 422),
)
def legal(game: str, caller: Caller, query: Body) -> Answer:
    state = service().state(game, caller.read)
    legal = legal_document(state, caller.seat, query["expand"])  # type: ignore[arg-type]
    return {"game": game, **legal}, etag(state.version)


class ETagVersion(fields.Field[int | None]):
    """If-Match: the version an ETag names (see etag_version); empty counts as absent."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        if not value:
            return None
        version = etag_version(str(value))
        if version is None:
            raise ValidationError('must be the version as an ETag, e.g. "12" (or an ETag as received)')
        return version


class Precondition(Parameters):
    idempotency_key = idempotency_key()
    if_match = ETagVersion(
        data_key="If-Match",
        metadata={
            "type": "string",
            "description": "The version you played against, quoted (or send expected_version).",
        },
    )


@Operation(
    play,
    "post",
    "/games/{game}/commands",
    id="postCommand",
    tag="play",
    summary="Play a command, exactly once per Idempotency-Key.",
    security=AUTH,
    scope=PLAY,
    headers=Precondition,
    body=CommandRequest,
    responses={200: Reply("Applied (or replayed).", CommandResult, headers=ETAG)},
    problems=(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 429),
)
def post_command(game: str, caller: Caller, body: Body, headers: Body) -> Answer:
    played_against = body.pop("expected_version", None)
    expected = headers.get("if_match")
    if expected is not None and played_against is not None and expected != played_against:
        detail = f"If-Match names version {expected} and expected_version {played_against}: send one, or the same"
        raise ValidationError({"expected_version": [detail]})
    if expected is None:
        expected = played_against
    if expected is None:
        raise PreconditionRequired('send If-Match: "<version>" or expected_version: the version you played against')
    command = command_from_json(body, caller.seat)  # type: ignore[arg-type]
    outcome = service().submit(game, command, expected=expected, key=headers.get("idempotency_key"), read=caller.read)
    state = outcome.state
    return {
        "game": game,
        "version": state.version,
        "duplicate": outcome.duplicate,
        "events": served_events(outcome.events, caller.seat, revealed=state.finished),
        "view": game_view(game, state, caller.seat, outcome.settings),
    }, etag(state.version)
