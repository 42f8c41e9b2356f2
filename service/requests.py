"""What the routes share: the JSON body (with its nesting guard), bearer tokens and the caller's
seat, ETags, and the game view and events as served."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import time
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import current_app, g, request
from marshmallow import Schema
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from application.accounts.account_service import TOKEN_PREFIX, Accounts
from application.accounts.bot_accounts import bots_among, is_bot
from application.accounts.oauth import ACCESS_PREFIX, OAuthApps
from application.accounts.scopes import ACCOUNT, BOT, PLAY
from application.games.clocks import Bank, Clocks
from application.games.codec import event_to_json
from application.games.game_service import NOT_A_SEAT, GameService
from application.games.reads import GameRead
from application.refusals import Forbidden, ServiceError, Unauthorized
from application.wiring import Components
from domain import redact
from events.serialization import StoredEvent

from .origin import session_cookie

MAX_NESTING = 16  #: deeper JSON is refused before parsing (the parser recurses once per level)


def service() -> GameService:
    return current_app.extensions["bluemoon"].service


@functools.cache
def instance(schema: type[Schema]) -> Schema:
    """One instance per schema: building a marshmallow schema costs more than using it."""
    return schema()


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


def json_body(schema: type[Schema]) -> dict[str, Any]:
    if not request.is_json:
        raise UnsupportedMediaType("send a JSON body with 'Content-Type: application/json'")
    if _nesting(request.get_data(cache=True)) > MAX_NESTING:
        raise BadRequest(f"the JSON body is nested more than {MAX_NESTING} deep; a command is a flat object")
    try:
        document = json.loads(request.get_data(cache=True))
    except ValueError as error:  # not UTF-8, or not JSON: say where
        raise BadRequest(f"the body is not JSON: {error}") from None
    return instance(schema).load(document)  # null, a list, a number: 422, not an object


def tokens() -> list[str]:
    """The bearer tokens sent (several, comma-separated, list one person's games)."""
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        return []
    return [t.strip() for t in header[7:].split(",") if t.strip()]


def accounts() -> Accounts:
    return current_app.extensions["bluemoon"].accounts


def components() -> Components:
    """Everything the application offers this process (application/wiring.py)."""
    return current_app.extensions["bluemoon"]


def signed_in() -> str | None:
    """The person calling, by a personal access token (bearer) or the page's session cookie
    (used only when no Authorization header is sent); None for a seat token or nobody. A token
    without the scope the operation declares (``g.scope``, set by service/operation.py) is
    refused: 403 naming the scope."""
    if "account" in g:
        return g.account
    found, account = tokens(), None
    if found and found[0].startswith((TOKEN_PREFIX, ACCESS_PREFIX)):  # an app's access token acts as a PAT would
        grant = (
            accounts().token_account(found[0])
            if found[0].startswith(TOKEN_PREFIX)
            else OAuthApps(accounts().store).access_grant(found[0])
        )
        if grant is None:
            raise Unauthorized("this access token is unknown, was revoked or has expired")
        _check_scope(grant.scopes)
        if g.get("scope") == PLAY and BOT not in grant.scopes and is_bot(accounts().client, grant.account):
            raise InsufficientScope(
                f"a bot account plays with a token holding '{BOT}' beside '{PLAY}', which this one does not (it holds "
                f"{', '.join(sorted(grant.scopes))}): make a token with '{BOT}' on the page",
                scope=BOT,
            )
        account = grant.account
    elif not found and (cookie := request.cookies.get(session_cookie())):
        account = accounts().session_account(cookie)  # a session holds every scope
    g.account = account
    return account


class SessionRequired(ServiceError):
    status, code, title = 403, "session_required", "Only a signed-in session may do this"


class InsufficientScope(ServiceError):
    status, code, title = 403, "insufficient_scope", "The token lacks the scope this needs"


def _check_scope(held: frozenset[str]) -> None:
    """Refuse a personal access token that does not hold the operation's scope (RFC 6750's
    insufficient_scope; service/problems.py adds its WWW-Authenticate challenge). ``account`` is
    the session's alone: a token never holds it (application/accounts/scopes.py)."""
    needed = g.get("scope")
    if needed in held:
        return
    if needed is None or needed == ACCOUNT:
        raise SessionRequired(
            "a personal access token cannot manage tokens, passkeys, sessions, the profile or the account (scope "
            "'account', the page's session only): sign in on the page and do it there",
            scope=ACCOUNT,
        )
    raise InsufficientScope(
        f"this needs the scope '{needed}', which this personal access token does not hold (it holds "
        f"{', '.join(sorted(held)) or 'none'}): make a token with '{needed}' on the page",
        scope=needed,
    )


def session_person() -> str:
    """The person signed in by the page's session, or 401; a personal access token is refused
    (403 session_required) as on every operation of the ``account`` scope."""
    account = person()
    if tokens():
        raise SessionRequired(
            "a personal access token cannot make tokens, passkeys or codes for another device, nor delete the "
            "account: sign in on the page and do it there",
            scope=ACCOUNT,
        )
    return account


def person() -> str:
    """The signed-in person, or 401."""
    account = signed_in()
    if account is None:
        raise Unauthorized("sign in first: the page's session, or 'Authorization: Bearer <personal access token>'")
    return account


def access(game: str, required: bool, key: str | None = None) -> GameRead:
    """The caller's seat (None for a spectator) and the game's settings, in one round trip
    with the game's state and the record of the command id ``key`` (see GameService.read).
    A signed-in person reaches each seat of theirs, whatever device they sign in on."""
    account = signed_in()
    if account is not None:
        read = service().read(game, None, key)  # 404 for an unknown game
        seat = accounts().seat_in(account, game)
        if seat is None and required:
            raise Forbidden(NOT_A_SEAT)
        return dataclasses.replace(read, seat=seat)
    found = tokens()
    if not found and required:
        raise Unauthorized("send 'Authorization: Bearer <seat token>'")
    return service().read(game, found[0] if found else None, key)


def game_view(game: str, state: Any, seat: int | None, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The domain's view plus what the service knows: the seats, the game's settings, and
    when the current turn's deadline passes (so a client can show a countdown)."""
    settings = settings if settings is not None else service().settings(game)
    doc = dict(service().views.view(game, state, seat))  # the drawn picture stays as it is
    doc["game"] = game
    bots = bot_seats(settings)
    doc["seats"] = [  # a bot account's seat says so (only then, as Lichess's title "BOT")
        {**s, "account_bot": True} if s["seat"] in bots else s for s in service().public_seats(game, settings["seats"])
    ]
    deadline = settings.get("turn_deadline")
    bank = Bank.of(settings)
    doc["settings"] = {
        "turn_deadline": deadline,
        "deadline_level": (settings.get("deadline_level") or "pass") if deadline or bank else None,
        "rated": bool(settings.get("rated")),
        "clock": shown_clock(settings.get("clock")),
    }
    shown = Clocks.shown(settings, len(settings["seats"]), int(time.time() * 1000))
    doc["clocks"] = [{**c, "away_until": _iso(c["away_until"]) if c["away_until"] else None} for c in shown]
    if doc["turn"] is not None:
        pending = settings.get("pending_turn")
        due = (
            pending.deadline_ms
            if pending and pending.turn == state.turn.number and pending.reason == "deadline"
            else None
        )
        doc["turn"] = {**doc["turn"], "deadline": None if due is None else _iso(due)}
    return doc


def stored_clock(asked: dict[str, Any] | None) -> dict[str, int] | None:
    """A time bank as asked for (``ClockRequest``) as a game keeps it: seconds, the cap filled in."""
    if not asked:
        return None
    cap = asked.get("cap_seconds") or asked["bank_seconds"]
    return {"bank": asked["bank_seconds"], "increment": asked["increment_seconds"], "cap": cap}


def shown_clock(kept: dict[str, int] | None) -> dict[str, int] | None:
    """A kept time bank as the API shows it (``ClockRequest``'s fields)."""
    if not kept:
        return None
    return {"bank_seconds": kept["bank"], "increment_seconds": kept["increment"], "cap_seconds": kept["cap"]}


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def served_events(stored: list[StoredEvent], seat: int | None, revealed: bool) -> list[dict[str, Any]]:
    return [event_to_json(s, redact(s.event, seat, revealed=revealed)) for s in stored]


def bot_seats(settings: dict[str, Any]) -> list[int]:
    """The seats of the game whose accounts are bot accounts (application/accounts/bot_accounts.py),
    read once a request and kept in ``settings``: the view shows them and its ETag tags them."""
    if "bot_seats" not in settings:
        held = settings.get("accounts") or {}
        bots = bots_among(service().client, held.values())
        settings["bot_seats"] = sorted(seat for seat, account in held.items() if account in bots)
    return list(settings["bot_seats"])


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def view_etag(version: int, settings: dict[str, Any], seat: int | None) -> dict[str, str]:
    """A game view's ETag: the version, and a tag of whose view it is (each seat sees its own
    hand) and of what the view shows beside the game's events and can change without them (the
    seats' names, which of them are bot accounts', a vacation's span in the clocks, the turn's deadline): ``"12.3f9a0c1d"``. A
    poll with If-None-Match then hears of a vacation, and never gets another seat's view as
    unchanged; If-Match takes it as its version."""
    pending = settings.get("pending_turn")
    shown = [
        seat,
        settings["seats"],
        bot_seats(settings),
        settings.get("clocks"),
        [pending.turn, pending.deadline_ms] if pending else None,
        [settings.get(name) for name in ("turn_deadline", "deadline_level", "rated", "clock")],
    ]
    stamp = hashlib.blake2s(
        orjson.dumps(shown, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS), digest_size=4
    ).hexdigest()
    return {"ETag": f'"{version}.{stamp}"'}


_ETAG = re.compile(r'\s*(?:W/)?"?(([0-9]{1,16})(?:\.[0-9a-f]{1,16})?)(?::[a-z]+)?"?\s*')


def etag_version(header: str) -> int | None:
    """The version an ETag names: ``"12"``, ``"12.3f9a0c1d"`` (a view's), weak ``W/"12"``, or
    ``"12:gzip"`` as compressed responses carry it (each encoding is its own representation)."""
    found = _ETAG.fullmatch(header)
    return int(found.group(2)) if found else None


def same_etag(header: str, tag: dict[str, str]) -> bool:
    """Whether If-None-Match (``*``, or one or more ETags) names the representation ``tag`` does,
    whatever its encoding."""
    if header.strip() == "*":
        return True
    found = (_ETAG.fullmatch(one) for one in header.split(","))
    return any(f'"{one.group(1)}"' == tag["ETag"] for one in found if one is not None)
