"""Playing: the legal commands for your seat, and posting one (exactly once per Idempotency-Key,
against the version you saw)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from marshmallow import ValidationError, fields

from application.accounts.scopes import PLAY, READ
from application.games.codec import command_from_json, legal_document
from application.games.game_service import digest
from application.refusals import PreconditionRequired

from .. import play_socket
from ..operation import AUTH, ETAG, OPTIONAL_AUTH, Answer, Body, Caller, Operation, Parameters, Reply, TrueOrFalse
from ..quotas import quotas
from ..requests import etag, etag_version, game_view, served_events, service, tokens
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


@Operation(
    play,
    "get",
    "/games/{game}/socket",
    id="playSocket",
    tag="play",
    summary="A WebSocket for play: commands in, their results and the game's events out.",
    description="Upgrade with `Sec-WebSocket-Protocol: bluemoon.v1` (a browser may add `bearer.<token>` "
    "for the token it cannot send as a header). Each message is JSON: a command in; `result` (a "
    "`CommandResult`), `problem` (a `Problem`) and `events` out. A plain GET is a 426. Without a seat's token "
    "the socket only hears events. It holds an event stream's slot; commands count as writes. See docs/api.md.",
    security=OPTIONAL_AUTH,
    scope=PLAY,
    responses={101: Reply("Switching Protocols: the socket is open.")},
    problems=(401, 403, 404, 426, 429),
    websocket=True,
)
def play_on_a_socket(game: str, caller: Caller) -> Answer:
    state = service().state(game, caller.read)
    sent = tokens()
    seat_token = digest(sent[0]) if sent and caller.seat is not None else None
    limits = quotas()
    release = limits.open_stream(seat_token) if limits else None
    try:
        socket = play_socket.PlaySocket(request.environ, game, caller.seat, seat_token)
        return socket.serve(state.version, state.finished)
    finally:
        if release is not None:
            release()
