"""Each HTTP operation declared once, next to its view, by ``@Operation(...)``: it registers the
Flask route, checks the caller's seat as ``security`` says, reads the JSON body, the headers and
the query through their marshmallow schemas (a bad value raises ValidationError: a 422 problem
naming the field), writes the view's answer through the declared response schema, and records
the declaration (``DECLARED``), from which service/openapi.py writes openapi.yaml.

A thin layer of the project's own on apispec rather than flask-smorest: the problem responses,
the long poll, SSE and the ETag handling stay as they are (see the README)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from flask import Blueprint, Response, after_this_request, current_app, g, request
from marshmallow import EXCLUDE, Schema, fields
from marshmallow.validate import Range, Regexp

from application.accounts.scopes import SCOPES
from application.games.codec import dumps
from application.games.reads import GameRead
from events.projection import CURSOR

from .deprecation import Deprecated
from .requests import access, instance, json_body
from .schemas.audit import Log
from .schemas.feeds import EventPage
from .schemas.game_view import GameView
from .schemas.play import CommandResult, Legal

Body = dict[str, Any]
#: What a view returns: a body (written through the declared success schema), a body with
#: headers, or a whole Response (no body, 304, a stream, a file, a problem).
Answer = Response | Body | tuple[Body, dict[str, str]]
View = Callable[..., Answer]

IDEMPOTENCY_KEY = "Idempotency-Key"  #: the header that names a command, so that it is applied once
MAX_VERSION = 2**53 - 1  #: the largest version a JSON client can hold exactly
#: Who may act for a person: a personal access token (programs) or the page's session. The
#: operation's ``scope`` is written into each (``Operation.requirements``).
PERSON: list[dict[str, list[str]]] = [{"personalToken": []}, {"session": []}]
OPTIONAL_PERSON: list[dict[str, list[str]]] = [{}, *PERSON]
#: Only the page's session: the ``account`` scope, which no personal access token holds.
SESSION_ONLY: list[dict[str, list[str]]] = [{"session": []}]
SESSION_ONLY_TEXT = (
    "Only a signed-in session may do this (scope `account`): a personal access token is refused with 403 "
    "`session_required` (a token acts in the person's games, but manages no tokens, passkeys, sessions, profile or "
    "account)."
)
#: The security schemes that are account credentials, whose requirements name a scope.
ACCOUNT_CREDENTIALS = ("personalToken", "session")
#: A seat's token, or the person who holds the seat.
AUTH: list[dict[str, list[str]]] = [{"seatToken": []}, *PERSON]
OPTIONAL_AUTH: list[dict[str, list[str]]] = [{}, *AUTH]
PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
SESSION_SET = {
    "Set-Cookie": {
        "description": "The session (`bm_session`: HttpOnly, SameSite=Lax; behind https (`PUBLIC_URL`) "
        "`__Host-bm_session`, Secure, Path=/, no Domain), which the page and every request from its origin are "
        "signed in by. A new id on every sign-in: the session the request came with ends.",
        "schema": {"type": "string"},
    }
}


SESSION_CLEARED = {
    "Set-Cookie": {"description": "The session cookie, cleared (expired).", "schema": {"type": "string"}}
}


def location(what: str) -> dict[str, Any]:
    """A Location header that names ``what`` was made (or where to go)."""
    return {"Location": {"description": what, "schema": {"type": "string"}}}


VIEW_ETAG = {
    "ETag": {
        "description": "The game's version and a tag of what the view shows beside its events and can change "
        'without them (the seats, a vacation in the clocks, the turn\'s deadline): `"12.3f9a0c1d"`; on a compressed '
        'response with the encoding appended (`"12.3f9a0c1d:gzip"`). Send it back unchanged in If-None-Match; '
        "If-Match takes its version.",
        "schema": {"type": "string"},
    }
}
ETAG = {
    "ETag": {
        "description": 'The game\'s version, quoted (`"12"`); on a compressed response with the '
        'encoding appended (`"12:gzip"`). Send it back unchanged in a command\'s If-Match.',
        "schema": {"type": "string"},
    }
}
#: Bodies the domain builds JSON-ready (views, event pages): written as they are, since the
#: contract tests check every one against openapi.yaml.
_PREBUILT = (GameView, CommandResult, EventPage, Log, Legal)


class Caller(NamedTuple):
    """Who calls, for an operation with ``security`` on a game: their seat (None for a
    spectator) and the game's settings, read in the same round trip as the rest of ``read``
    (the game's state, an Idempotency-Key's record), which the view passes on to the service."""

    seat: int | None
    settings: dict[str, Any]
    read: GameRead | None = None


class Parameters(Schema):
    """Query or header parameters: others than those declared are ignored, as HTTP expects."""

    class Meta:
        unknown = EXCLUDE


class Paging(Parameters):
    """A page of a list, newest first: ``limit`` entries after the cursor ``after``."""

    limit = fields.Integer(
        load_default=100,
        validate=Range(1, 100, error="must be a whole number from 1 to 100"),
        metadata={"description": "At most this many games on the page."},
    )
    after = fields.String(
        validate=Regexp(CURSOR, error="must be a 'next' value from an earlier page"),
        metadata={"description": "The previous page's `next`: this page continues after it."},
    )


class PathParameters(Schema):
    """The path's segments, the same wherever they appear. Flask's converters match them (an
    Integer field makes an ``<int:…>`` rule); a value that names nothing is the view's 404."""

    game = fields.String(metadata={"description": "Game id."})
    seat = fields.Integer()
    version = fields.Integer(metadata={"minimum": 1, "maximum": MAX_VERSION})
    hook = fields.String(metadata={"description": "Webhook id."})
    delivery = fields.String(
        metadata={"description": "A delivery's `webhook-id` (msg_...), as the delivery log lists it."}
    )
    token = fields.String(metadata={"description": "Personal access token id (tok_...)."})
    passkey = fields.String(metadata={"description": "Passkey (credential) id, base64url."})
    table = fields.String(metadata={"description": "Open game id."})
    challenge = fields.String(metadata={"description": "Challenge id."})
    tournament = fields.String(metadata={"description": "Tournament id."})
    player = fields.String(metadata={"description": "A player id: an account's, or bot:<level>."})
    account = fields.String(metadata={"description": "An account's id: a person's or a bot account's player id."})
    subscription = fields.String(metadata={"description": "Push subscription id."})
    app = fields.String(metadata={"description": "An OAuth app's client id (app_...)."})
    report = fields.String(metadata={"description": "A report's id (r...)."})
    room = fields.String(
        metadata={"description": "A chat room: `seats` or `spectators`.", "enum": ["seats", "spectators"]}
    )
    message = fields.String(metadata={"description": "A chat message's id (0-<n>).", "pattern": "^0-[0-9]{1,15}$"})


class TrueOrFalse(fields.Boolean):
    """``true`` or ``false`` as query text: marshmallow would also take 1, "yes", "True" and more."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            truthy={"true"}, falsy={"false"}, error_messages={"invalid": "must be true or false"}, **kwargs
        )


@dataclass(frozen=True)
class Reply:
    """A documented answer: JSON by ``body`` when it is a schema, else ``body`` is its OpenAPI
    content (or None for no body)."""

    description: str
    body: type[Schema] | dict[str, Any] | None = None
    headers: dict[str, Any] | None = None


@dataclass(frozen=True)
class Operation:
    """One operation, used as its view's decorator: ``method`` (``get``, ``post``, ``delete``) and
    ``path``, in OpenAPI's form (``/games/{game}``), on ``blueprint``. ``problems`` lists its
    problem statuses (414, 500, 503 and, when ``rate_limited``, 429 come with them); None for the
    static documents and pages, which answer no problem of their own. A ``deprecated`` operation
    sends its Deprecation, Sunset and Link headers with each answer in ``responses``
    (service/deprecation.py)."""

    blueprint: Blueprint
    method: str
    path: str
    id: str
    tag: str
    summary: str
    responses: dict[int, Reply]
    description: str | None = None
    security: list[dict[str, list[str]]] | None = None
    query: type[Parameters] | None = None
    headers: type[Parameters] | None = None
    body: type[Schema] | None = None
    problems: tuple[int, ...] | None = None
    rate_limited: bool = True  #: False for the probes, which the limiter exempts (service/ratelimit.py)
    deprecated: Deprecated | None = None
    #: The scope (application/accounts/scopes.py) an account credential needs here; required
    #: exactly when ``security`` takes one.
    scope: str | None = None
    #: a WebSocket's opening (service/play_socket.py): the rule matches upgrade requests only
    websocket: bool = False

    def __post_init__(self) -> None:
        takes = any(scheme in ACCOUNT_CREDENTIALS for way in self.security or () for scheme in way)
        if takes != (self.scope is not None) or (self.scope is not None and self.scope not in SCOPES):
            raise ValueError(f"{self.id}: name one scope of {list(SCOPES)} exactly when an account credential is taken")

    def requirements(self) -> list[dict[str, list[str]]] | None:
        """``security`` as openapi.yaml says it: each account credential's requirement names the scope."""
        if self.security is None:
            return None
        return [
            {scheme: [self.scope] if scheme in ACCOUNT_CREDENTIALS and self.scope else [] for scheme in way}
            for way in self.security
        ]

    def __call__(self, view: View) -> Callable[..., Response]:
        @functools.wraps(view)
        def handle(**path: Any) -> Response:
            g.scope = self.scope  # what a personal access token must hold (requests.py signed_in)
            if self.deprecated is not None:
                after_this_request(self._say_deprecated)
            return self._write(view(**path, **self._read(path)))

        handle.operation_id = self.id  # type: ignore[attr-defined]  # what metrics count requests by (service/metrics.py)
        self.blueprint.add_url_rule(
            _rule(self.path), view_func=handle, methods=[self.method.upper()], websocket=self.websocket
        )
        DECLARED.append(self)
        return handle

    def _say_deprecated(self, response: Response) -> Response:
        """Add the deprecation's headers to an answer the operation declares (a problem raised on
        the way, answered by the app's handlers, is documented without them)."""
        assert self.deprecated is not None
        if response.status_code in self.responses:
            response.headers.update(self.deprecated.headers())
        return response

    def _read(self, path: dict[str, Any]) -> dict[str, Any]:
        """What the view takes besides the path, in the order the checks answer: who calls (with
        ``security``, the caller's seat in the path's game: 401, 403, 404), then the body, the
        headers and the query, each refused whole by a 422 naming its bad fields."""
        read: dict[str, Any] = {}
        if self.security is not None and "game" in path and any("seatToken" in way for way in self.security):
            found = access(path["game"], required={} not in self.security, key=self._command_key())
            read["caller"] = Caller(found.seat, found.settings, found)
        if self.body is not None:
            read["body"] = json_body(self.body)
        if self.headers is not None:
            parser = instance(self.headers)
            read["headers"] = parser.load(_headers(parser))
        if self.query is not None:
            read["query"] = instance(self.query).load(request.args)
        return read

    def _command_key(self) -> str | None:
        """The Idempotency-Key sent to an operation that declares one, so that its record is
        read with the caller (the service uses it only if the header's schema keeps it as it is)."""
        if self.headers is None or IDEMPOTENCY_KEY not in _declared(instance(self.headers)):
            return None
        return request.headers.get(IDEMPOTENCY_KEY) or None

    def _write(self, answer: Answer) -> Response:
        if isinstance(answer, Response):
            return answer
        body, headers = answer if isinstance(answer, tuple) else (answer, {})
        status, reply = next((s, r) for s, r in self.responses.items() if 200 <= s < 300)
        schema = reply.body
        assert isinstance(schema, type), f"{self.id} answered a body, but its {status} has no JSON schema"
        data = body if schema in _PREBUILT else instance(schema).dump(body)
        response = current_app.response_class(dumps(data), status=status, mimetype="application/json")
        response.headers.update(headers)
        return response


DECLARED: list[Operation] = []  #: every operation, in the order of declaration


def _headers(parser: Schema) -> dict[str, str]:
    """The request's headers that ``parser`` declares, by their declared names (HTTP's are
    case-insensitive; the first of repeated ones, as ``request.headers.get`` gives)."""
    return {name: request.headers[name] for name in _declared(parser) if name in request.headers}


@functools.cache
def _declared(parser: Schema) -> tuple[str, ...]:
    """The header names ``parser`` declares."""
    return tuple(field.data_key or name for name, field in parser.fields.items())


def _rule(path: str) -> str:
    """``/games/{game}/seats/{seat}/join`` as Flask's ``/games/<game>/seats/<int:seat>/join``."""
    segments = instance(PathParameters).fields

    def converter(found: re.Match[str]) -> str:
        name = found.group(1)
        return f"<int:{name}>" if isinstance(segments[name], fields.Integer) else f"<{name}>"

    return re.sub(r"\{(\w+)\}", converter, path)
