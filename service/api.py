"""The REST API: routes only. Validation is the schemas', rules the domain's, storage the
store's, and every error becomes a problem response in service/problems.py."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import redis
from flask import Blueprint, Response, current_app, request, stream_with_context
from marshmallow import ValidationError
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from application import webhook_subscriptions as webhooks
from application.codec import command_from_json, dumps, event_to_json, legal_document
from application.games import GameService, SeatSpec
from application.log_audit import audit_log
from application.refusals import NotFinished, NotFound, PreconditionRequired, Unauthorized
from domain import Edition, Layout, Options, redact, view
from domain.catalogue import BUILDINGS
from domain.scenario import Position
from events.serialization import StoredEvent

from . import live, schemas
from .problems import unavailable

api = Blueprint("api", __name__)
MAX_VERSION = 2**53 - 1  #: the largest version a JSON client can hold exactly


def service() -> GameService:
    return current_app.extensions["bluemoon"].service


def _json(schema: type, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response documented by ``schema``. Large bodies (views, event pages) are built
    JSON-ready by the domain and written as they are; the contract tests check every one
    against openapi.yaml."""
    body = data if schema in _PREBUILT else _dumper(schema).dump(data)
    response = current_app.response_class(dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        response.headers[k] = v
    return response


_PREBUILT = (schemas.GameView, schemas.CommandResult, schemas.EventPage, schemas.Log, schemas.Legal)


@functools.cache
def _dumper(schema: type) -> Any:
    """One instance per schema: building a marshmallow schema costs more than using it."""
    return schema()


MAX_NESTING = 16  #: deeper JSON is refused before parsing (the parser recurses once per level)


def _nesting(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def _body(schema: type) -> dict[str, Any]:
    if not request.is_json:
        raise UnsupportedMediaType("send a JSON body with 'Content-Type: application/json'")
    if _nesting(request.get_data(cache=True)) > MAX_NESTING:
        raise BadRequest(f"the JSON body is nested more than {MAX_NESTING} deep; a command is a flat object")
    data = request.get_json(silent=False)
    return _dumper(schema).load(data if data is not None else {})


def _tokens() -> list[str]:
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        return []
    return [t.strip() for t in header[7:].split(",") if t.strip()]


def _seat(game: str, required: bool) -> int | None:
    return _access(game, required)[0]


def _access(game: str, required: bool) -> tuple[int | None, dict[str, Any]]:
    """The caller's seat (None for a spectator) and the game's settings, in one round trip."""
    tokens = _tokens()
    if not tokens and required:
        raise Unauthorized("send 'Authorization: Bearer <seat token>'")
    return service().access(game, tokens[0] if tokens else None)


def _view(game: str, state: Any, seat: int | None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The domain's view plus what the service knows: the seats, the game's settings, and
    when the current turn's deadline passes (so a client can show a countdown)."""
    settings = settings if settings is not None else service().settings(game)
    doc = view(state, seat)
    doc["game"] = game
    doc["seats"] = service().public_seats(game, settings["seats"])
    deadline = settings.get("turn_deadline")
    doc["settings"] = {
        "turn_deadline": deadline,
        "deadline_level": (settings.get("deadline_level") or "pass") if deadline else None,
    }
    if doc["turn"] is not None:
        pending = settings.get("pending_turn")
        due = (
            pending.deadline_ms
            if pending and pending.turn == state.turn.number and pending.reason == "deadline"
            else None
        )
        doc["turn"]["deadline"] = (
            None
            if due is None
            else datetime.fromtimestamp(due / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        )
    return doc


def _events(stored: list[StoredEvent], seat: int | None, revealed: bool) -> list[dict[str, Any]]:
    return [event_to_json(s, redact(s.event, seat, revealed=revealed)) for s in stored]


def _etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


# -- games ----------------------------------------------------------------------------------


@api.post("/games")
def create_game() -> Response:
    doc = _body(schemas.CreateGame)
    seats = [
        SeatSpec(s["kind"], s.get("name"), s.get("level") or ("greedy" if s["kind"] == "bot" else None))
        for s in doc["seats"]
    ]
    options = Options(len(seats), Edition(doc["edition"]), doc["expansion"], Layout(doc["layout"]))
    setup = doc.get("setup") or {}
    grid = {p["tile"]: (p["row"], p["col"]) for p in setup["grid"]} if setup.get("grid") else None
    if setup.get("first_player") is not None and setup["first_player"] >= len(seats):
        raise ValidationError({"setup": {"first_player": [f"must be a seat number below {len(seats)}"]}})
    try:
        created = service().create(
            options,
            seats,
            grid=grid,
            deck=setup.get("deck"),
            first_player=setup.get("first_player"),
            turn_deadline=doc.get("turn_deadline"),
            deadline_level=doc.get("deadline_level"),
            scenario=_position(doc["scenario"]) if doc.get("scenario") else None,
        )
    except ValueError as error:  # the domain's check of an explicit grid or deck, or of a scenario
        raise ValidationError({"scenario" if doc.get("scenario") else "setup": [str(error)]}) from error
    for seat in created.seats:
        seat["open"] = seat["kind"] == "open"
        if "invite" in seat:
            seat["invite_url"] = f"/games/{created.game}/seats/{seat['seat']}/join"
    return _json(
        schemas.Created, created.__dict__, 201, {"Location": f"/games/{created.game}", **_etag(created.version)}
    )


def _position(doc: dict[str, Any]) -> Position:
    return Position(
        hands=tuple(tuple(hand) for hand in doc["hands"]),
        figures=tuple(doc["figures"]),
        crystals=tuple(doc["crystals"]),
        scales=tuple(doc["scales"]),
        turn=doc["turn"],
        markers=tuple((m["building"], m["space"], m["seat"]) for m in doc["markers"]),
        obelisk=tuple(doc["obelisk"]),
        dragons=tuple((d["dragon"], d["tile"]) for d in doc["dragons"]),
        discard=tuple(doc["discard"]),
        scale_supply=doc["scale_supply"],
    )


@api.get("/games")
def list_games() -> Response:
    status = request.args.get("status")
    if status not in (None, "active", "finished"):
        raise ValidationError({"status": ["must be active or finished"]})
    if request.args.get("my_turn", "false") not in ("true", "false"):
        raise ValidationError({"my_turn": ["must be true or false"]})
    my_turn = request.args.get("my_turn") == "true"
    mine = service().games_of(_tokens())
    if my_turn and not mine:
        raise Unauthorized("my_turn=true needs 'Authorization: Bearer <seat token>'")
    games = []
    source = [g for g in (service().index.get(g) for g in mine) if g] if mine else service().index.list(status)
    for summary in source:
        if status and summary["status"] != status:
            continue
        seat = mine.get(summary["game"])
        summary.setdefault("scenario", False)  # indexed before scenario games existed
        summary["my_seat"] = seat
        summary["my_turn"] = None if seat is None else summary["turn"] == seat
        if my_turn and not summary["my_turn"]:
            continue
        games.append(summary)
    return _json(schemas.GameList, {"games": games})


@api.get("/games/<game>")
def get_game(game: str) -> Response:
    seat, settings = _access(game, required=False)
    state = service().state(game)
    etag = f'"{state.version}"'
    if _etag_version(request.headers.get("If-None-Match", "")) == state.version:
        return Response(status=304, headers={"ETag": etag})
    return _json(schemas.GameView, _view(game, state, seat, settings), headers=_etag(state.version))


@api.post("/games/<game>/seats/<int:seat>/join")
def join(game: str, seat: int) -> Response:
    doc = _body(schemas.Join)
    token = service().join(game, seat, doc["invite"], doc.get("name"))
    return _json(schemas.Joined, {"game": game, "seat": seat, "token": token}, 201)


# -- play -----------------------------------------------------------------------------------


@api.get("/games/<game>/legal")
def legal(game: str) -> Response:
    """Compact by default: one ``end_turn`` (discarding nothing) and ``end_turn_discards``, the
    cards the Reset may discard (0 to 2 of them), instead of every combination; ``expand=true``
    lists every combination too. Payments are always the minimal ones."""
    seat = _seat(game, required=True)
    expand = request.args.get("expand", "false")
    if expand not in ("true", "false"):
        raise ValidationError({"expand": ["must be true or false"]})
    state = service().state(game)
    body = {"game": game, **legal_document(state, seat, expand == "true")}  # type: ignore[arg-type]
    return _json(schemas.Legal, body, headers=_etag(state.version))


_ETAG = re.compile(r'\s*(?:W/)?"?([0-9]{1,16})(?::[a-z]+)?"?\s*')


def _etag_version(header: str) -> int | None:
    """The version an ETag names: ``"12"``, weak ``W/"12"``, or ``"12:gzip"`` as compressed
    responses carry it (each encoding is its own representation)."""
    found = _ETAG.fullmatch(header)
    return int(found.group(1)) if found else None


def _expected(doc: dict[str, Any]) -> int:
    header = request.headers.get("If-Match")
    if header:
        version = _etag_version(header)
        if version is None:
            raise ValidationError(
                {"If-Match": ['must be the version as an ETag, e.g. "12" (or "12:gzip" as received)']}
            )
        return version
    if doc.get("expected_version") is not None:
        return int(doc["expected_version"])
    raise PreconditionRequired('send If-Match: "<version>" or expected_version: the version you played against')


@api.post("/games/<game>/commands")
def post_command(game: str) -> Response:
    seat, settings = _access(game, required=True)
    doc = _body(schemas.CommandRequest)
    expected = _expected(doc)
    doc.pop("expected_version", None)
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (1 <= len(key) <= 200):
        raise ValidationError({"Idempotency-Key": ["must be 1-200 characters"]})
    command = command_from_json(doc, seat)  # type: ignore[arg-type]
    outcome = service().submit(game, command, expected=expected, key=key or None, settings=settings)
    state = outcome.state
    body = {
        "game": game,
        "version": state.version,
        "duplicate": outcome.duplicate,
        "events": _events(outcome.events, seat, revealed=state.finished),
        "view": _view(game, state, seat, outcome.settings),
    }
    return _json(schemas.CommandResult, body, headers=_etag(state.version))


# -- follow ---------------------------------------------------------------------------------

_VERSION_TEXT = re.compile(r"[0-9]{1,16}")


def _after() -> int:
    """``after`` (query), else a non-empty ``Last-Event-ID`` (what EventSource sends on a
    reconnect), else 0; an empty Last-Event-ID counts as absent."""
    header = request.headers.get("Last-Event-ID", "").strip()
    if header and not _VERSION_TEXT.fullmatch(header):  # checked even when `after` wins over it
        raise ValidationError({"Last-Event-ID": [f"must be a version: a whole number from 0 to {MAX_VERSION}"]})
    field, raw = "after", request.args.get("after")
    if raw is None:
        field, raw = "Last-Event-ID", header
        if not raw:
            return 0
    if not _VERSION_TEXT.fullmatch(raw) or int(raw) > MAX_VERSION:
        raise ValidationError({field: [f"must be a version: a whole number from 0 to {MAX_VERSION}"]})
    return int(raw)


def _wait() -> float:
    try:
        wait = float(request.args.get("wait", "0"))
    except ValueError:
        wait = math.nan
    longest = current_app.config["MAX_WAIT"]
    if not 0 <= wait <= longest:  # also refuses nan
        raise ValidationError({"wait": [f"must be a number of seconds from 0 to {longest:g}"]})
    return wait


@api.get("/games/<game>/events")
def events(game: str) -> Response:
    seat = _seat(game, required=False)
    after = _after()
    wait = _wait()
    svc = service()
    state = svc.state(game)  # 404 for an unknown game
    stored, version = live.poll(current_app.extensions["bluemoon"], game, after, wait, state.version)
    finished = state.finished or any(s.type == "GameEnded" for s in stored)  # after the end, nothing is hidden
    body = {
        "game": game,
        "version": version,
        "events": [live.served(s, seat, finished) for s in stored],
        "next_after": stored[-1].seq if stored else after,
    }
    return _json(schemas.EventPage, body)


@api.get("/games/<game>/stream")
def stream(game: str) -> Response:
    seat = _seat(game, required=False)
    after = _after()
    finished = service().state(game).finished
    config = current_app.config
    frames = live.frames(
        current_app.extensions["bluemoon"],
        game,
        seat,
        after,
        lifetime=config["SSE_SECONDS"],
        keepalive=config["SSE_KEEPALIVE"],
        revealed=finished,
    )
    return Response(
        stream_with_context(frames),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


# -- webhooks -------------------------------------------------------------------------------


def _hooks() -> webhooks.Webhooks:
    return webhooks.Webhooks(service().client)


@api.post("/games/<game>/webhooks")
def create_webhook(game: str) -> Response:
    seat = _seat(game, required=True)
    doc = _body(schemas.WebhookRequest)
    hook = _hooks().create(game, seat, doc["url"], doc["events"])  # type: ignore[arg-type]
    return _json(schemas.WebhookCreated, hook, 201, {"Location": f"/games/{game}/webhooks/{hook['id']}"})


@api.get("/games/<game>/webhooks")
def list_webhooks(game: str) -> Response:
    seat = _seat(game, required=True)
    return _json(schemas.WebhookList, {"webhooks": _hooks().of_seat(game, seat)})  # type: ignore[arg-type]


@api.delete("/games/<game>/webhooks/<hook>")
def delete_webhook(game: str, hook: str) -> Response:
    _hooks().delete(game, _seat(game, required=True), hook)  # type: ignore[arg-type]
    return Response(status=204)


@api.get("/games/<game>/webhooks/<hook>/deliveries")
def webhook_deliveries(game: str, hook: str) -> Response:
    seat = _seat(game, required=True)
    return _json(schemas.DeliveryLog, {"deliveries": _hooks().log(game, seat, hook)})  # type: ignore[arg-type]


# -- replay and audit -----------------------------------------------------------------------


@api.get("/games/<game>/versions/<int:version>")
def at_version(game: str, version: int) -> Response:
    seat = _seat(game, required=False)
    svc = service()
    current = svc.store.version(game)
    if current == 0:
        svc.state(game)
    if not 1 <= version <= current:
        raise NotFound(f"version must be 1..{current}")
    return _json(schemas.GameView, _view(game, svc.state_at(game, version), seat), headers=_etag(version))


def _finished_log(game: str) -> tuple[Any, list[StoredEvent]]:
    svc = service()
    state = svc.state(game)
    if not state.finished:
        raise NotFinished("the full log, the seed and the audit are published when the game ends")
    return state, svc.store.read(game)


@api.get("/games/<game>/log")
def log(game: str) -> Response:
    state, stored = _finished_log(game)
    body = {
        "game": game,
        "seed": state.seed,
        "commitment": state.commitment,
        "events": _events(stored, None, revealed=True),
    }
    return _json(schemas.Log, body)


@api.get("/games/<game>/audit")
def audit_game(game: str) -> Response:
    state, stored = _finished_log(game)
    log = {"seed": state.seed, "events": _events(stored, None, revealed=True)}
    return _json(schemas.Audit, {"game": game, **audit_log(log)})


# -- operations -----------------------------------------------------------------------------


@functools.cache
def _catalogue() -> dict[str, Any]:
    """The building catalogue as served: built once, it never changes while the process runs."""
    buildings = [
        {
            "building": b.id,
            "name": b.name,
            "spaces": [{"colour": s.colour.value if s.colour else "any", "value": s.value} for s in b.spaces],
            "majority": asdict(b.majority),
            "construction": asdict(b.construction),
            "neighbourhood": asdict(b.neighbourhood),
            "expansion": b.expansion,
            "starting": b.starting,
        }
        for b in BUILDINGS.values()
    ]
    return {"buildings": buildings}


@api.get("/catalogue")
def catalogue() -> Response:
    """Every building's spaces and rewards (R14): a client needs them to weigh where to build.
    Static, so it may be cached for a day."""
    return _json(schemas.Catalogue, _catalogue(), headers={"Cache-Control": "public, max-age=86400"})


@api.get("/healthz")
def healthz() -> Response:
    return _json(schemas.Health, {"status": "ok"})


@api.get("/readyz")
def readyz() -> Response:
    """Ready when Redis answers; reports whether it is configured to keep games."""
    try:
        service().client.ping()
    except redis.RedisError as error:
        return unavailable(f"Redis is unreachable: {type(error).__name__}")
    return _json(schemas.Health, {"status": "ready", "redis": current_app.extensions["redis_check"]})
