"""The OpenAPI document (written to openapi.yaml by ``python -m cli.write_openapi``).

The operations are those declared next to their views (service/routes/, by service/operation.py),
their shapes the marshmallow schemas of service/schemas/ (a schema is a component, named after
its class, when the document refers to it: there is no list to keep); this module adds what every operation shares (problems,
X-Request-ID, examples recorded from the real API, links) and the webhooks section; what many
operations share is then written once under ``components`` (service/openapi_components.py).
tests/api/test_openapi.py fails when the committed file is out of date.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import fields

from application.accounts import scopes
from application.outbound.webhooks import CHAT_KIND, TEST_KIND

from . import deprecation, openapi_components, openapi_types, schemas
from .api_version import API_VERSION
from .browser_policy import PAGE_HEADERS
from .operation import ETAG, PROBLEM, SESSION_CLEARED, SESSION_SET, VIEW_ETAG, Operation, PathParameters, Reply
from .requests import instance
from .routes import OPERATIONS, oauth_routes, pages
from .routes.feed_routes import SSE_HEADERS
from .schemas.webhooks import WEBHOOK_KINDS


def _json(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def _problems(*codes: int, limited: bool = True) -> dict[str, Any]:
    """The problems an operation answers with: ``codes``, and on every operation 414 (an
    over-long URL) and 503 (Redis unreachable, with Retry-After); 429 where rate limited."""
    text = {
        400: "Unreadable request (bad JSON).",
        401: "No seat token.",
        403: "The token may not do this: a personal access token without the scope the operation needs (code "
        'insufficient_scope, its `scope` named, with `WWW-Authenticate: Bearer error="insufficient_scope", '
        'scope="..."`), or where only the page\'s session may (scope `account`: code session_required); or a '
        "request that signs in, or is signed in by the session cookie, came from another origin (code cross_origin).",
        404: "No such game, seat or version.",
        409: "Illegal move (code names the rule), stale version, seat taken, or not finished; keeping seats, "
        "another account than the caller's named (not_this_account).",
        412: "If-Match named a stale version.",
        413: "Body too large.",
        415: "Body is not JSON.",
        422: "Malformed request: see errors.",
        426: "Not a WebSocket upgrade: open this URL with `Upgrade: websocket` (code websocket_required).",
        428: "No expected version given.",
        429: "Too many requests from this address or with this token (reads and writes are counted apart), or "
        "past a quota (code too_many_games, too_many_open_games, too_many_streams or rate_limited; `limit` names "
        "the setting): wait Retry-After seconds. Limits and quotas: see the API description.",
        414: "The URL is longer than 2,048 characters.",
        500: "An error of the service's own; nothing was changed. The X-Request-ID header names it in the logs.",
        503: "The game store (Redis) is unreachable, and nothing was changed; or, where the store keeps replicas, no "
        "replica confirmed a command in time. Retry after Retry-After seconds with the same Idempotency-Key: a "
        "command is applied once.",
    }
    found = {
        str(c): {
            "description": text[c],
            "content": copy.deepcopy(PROBLEM),
        }  # each its own: examples are set per response
        for c in sorted({*codes, 414, 500, 503, *([429] if limited else [])})
    }
    found["503"]["headers"] = {"Retry-After": RETRY_AFTER}
    if "403" in found:
        found["403"]["headers"] = {"WWW-Authenticate": INSUFFICIENT_SCOPE}
    if limited:
        found["429"]["headers"] = {"Retry-After": RETRY_AFTER, **RATE_HEADERS}
    return found


def _limits_text() -> str:
    from application.games.sweeps import UNSTARTED_GAME_SECONDS
    from application.lobby.open_games import OPEN_GAMES_PER_ACCOUNT

    from .quotas import DEFAULTS as QUOTAS
    from .ratelimit import LIMITS

    return (
        "\n\n**Rate limits** (fixed one-minute windows, shared by every web process): per client address, "
        f"{LIMITS['RATE_LIMIT_READS']} reads (GET) and {LIMITS['RATE_LIMIT_WRITES']} writes; per valid seat token, "
        f"{LIMITS['RATE_LIMIT_TOKEN_READS']} reads and {LIMITS['RATE_LIMIT_TOKEN_WRITES']} writes. A made-up token "
        "counts against the address only. Responses carry `RateLimit-Limit`, `RateLimit-Remaining` and "
        "`RateLimit-Reset`; a 429 carries `Retry-After`. `/healthz` and `/readyz` are not limited.\n"
        "\n**Quotas** (429 with `Retry-After`; the problem's `limit` names the setting): per client address (an "
        f"IPv6 client per /64), {QUOTAS['QUOTA_GAMES_PER_ADDRESS']} games created (`POST /games`, "
        f"`POST /open-games`; rematches do not count) and {QUOTAS['QUOTA_STREAMS_PER_ADDRESS']} event streams open "
        f"at once; per account, {QUOTAS['QUOTA_GAMES_PER_ACCOUNT']} games created, {OPEN_GAMES_PER_ACCOUNT} "
        f"open games at once and {QUOTAS['QUOTA_STREAMS_PER_ACCOUNT']} streams of its news (`GET /me/stream`) "
        f"open at once; per seat token, {QUOTAS['QUOTA_STREAMS_PER_TOKEN']} event streams open at once. "
        f"A game never started is removed {UNSTARTED_GAME_SECONDS // 86400} days after its creation (see "
        "docs/operations.md). A turn is taken back at most 3 times (a rule: P17).\n"
    )


STALE_ETAG = {
    "description": "On a `stale_version` problem: the game's version now, quoted, to decide again against.",
    "schema": {"type": "string"},
}
RETRY_AFTER = {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
INSUFFICIENT_SCOPE = {
    "description": 'With insufficient_scope or session_required (RFC 6750): `Bearer error="insufficient_scope", '
    'scope="<the scope needed>"`.',
    "schema": {"type": "string"},
}
RATE_HEADERS = {
    "RateLimit-Limit": {
        "description": "Requests allowed in the current window by the tightest limit that applies.",
        "schema": {"type": "integer"},
    },
    "RateLimit-Remaining": {"description": "Requests left in that window.", "schema": {"type": "integer"}},
    "RateLimit-Reset": {
        "description": "When that window ends, in seconds since the Unix epoch.",
        "schema": {"type": "integer"},
    },
}


TAGS = {
    "games": "Create, list, join and look at games.",
    "lobby": "Open games to join, rematches, ratings and the leaderboard.",
    "tournaments": "Swiss and round robin tournaments at tables of 2 to 4: join, withdraw, rounds and standings.",
    "play": "Your legal commands, and playing one.",
    "follow": "Events as they happen, and the game at any past version.",
    "webhooks": "Signed POSTs to your server when your turn begins, and more.",
    "chat": "A game's chat rooms: the seats', and the spectators' (which the seats read too).",
    "audit": "The full log and the re-judged game, once it has ended.",
    "accounts": "Sign in without a password (an email link), personal access tokens for programs, and your "
    "games on every device.",
    "alerts": "Word that it is your turn, on the channels you choose (email, Web Push, Discord, Slack), "
    "and not too often: quiet hours, muted games, nothing while you watch the game.",
    "service": "This document, the rulings, the building catalogue, health, and the play-by-web pages.",
    "people": "Profiles, the friends list, mutes and blocks, who may challenge you, and private notes.",
    "oauth": "OAuth 2.1 for apps: register an app, people allow it on the consent page, the app exchanges the "
    "code (PKCE) for short-lived access tokens and rotating refresh tokens; a person lists and revokes the apps.",
    "moderation": "Report a chat message or a person; moderators see the reports, hide messages, suspend accounts, "
    "and every action is logged.",
}


def paths(converter: FieldConverterMixin, operations: list[Operation] = OPERATIONS) -> dict[str, dict[str, Any]]:
    """The declared ``operations`` by path, in their order (``routes.OPERATIONS``: the service's)."""
    found: dict[str, dict[str, Any]] = {}
    for operation in operations:
        found.setdefault(operation.path, {})[operation.method] = _operation(operation, converter)
    return found


def _operation(operation: Operation, converter: FieldConverterMixin) -> dict[str, Any]:
    doc: dict[str, Any] = {"operationId": operation.id, "summary": operation.summary}
    if operation.description:
        doc["description"] = operation.description
    if operation.deprecated is not None:
        doc["deprecated"] = True
        doc["description"] = "\n\n".join(filter(None, (operation.description, operation.deprecated.text())))
    if operation.security is not None:
        doc["security"] = operation.requirements()
    segments = instance(PathParameters).fields
    parameters = [_parameter(segments[name], "path", converter) for name in re.findall(r"\{(\w+)\}", operation.path)]
    for location, declared in (("query", operation.query), ("header", operation.headers)):
        if declared is not None:
            parameters += [_parameter(field, location, converter) for field in instance(declared).fields.values()]
    if parameters:
        doc["parameters"] = parameters
    if operation.body is not None:
        doc["requestBody"] = {"required": True, "content": _json(operation.body.__name__)}
    doc["responses"] = {str(status): _reply(reply) for status, reply in operation.responses.items()}
    if operation.deprecated is not None:
        deprecation.documented(doc["responses"], {str(status) for status in operation.responses})
    if operation.problems is not None:
        # the session cookie's Origin check (service/sessions.py); a token without the scope needed
        unsafe = (403,) if operation.method != "get" or operation.scope else ()
        # whoever may sign in may send a personal access token that is unknown or was revoked
        signs_in = (401,) if operation.security and any("personalToken" in way for way in operation.security) else ()
        limited = operation.rate_limited and operation.blueprint is not pages  # the limits are the API's
        doc["responses"].update(_problems(*operation.problems, *unsafe, *signs_in, limited=limited))
    doc["tags"] = [operation.tag]
    return doc


def _parameter(field: fields.Field[Any], location: str, converter: FieldConverterMixin) -> dict[str, Any]:
    schema = converter.field2property(field)
    description = schema.pop("description", None)
    parameter: dict[str, Any] = {"name": field.data_key or field.name, "in": location}
    if location == "path" or field.required:
        parameter["required"] = True
    parameter["schema"] = schema
    if description:
        parameter["description"] = description
    return parameter


def _reply(reply: Reply) -> dict[str, Any]:
    doc: dict[str, Any] = {"description": reply.description}
    if reply.body is not None:
        doc["content"] = reply.body if isinstance(reply.body, dict) else _json(reply.body.__name__)
    if reply.headers is not None:
        doc["headers"] = dict(reply.headers)  # its own: headers are added to each response later
    return doc


def referred_to(*parts: Any) -> list[str]:
    """The names of the schemas ``parts`` of the document refer to (``$ref``), each once, in the
    order they first do."""
    found: dict[str, None] = {}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(openapi_types.REF):
                found[ref.removeprefix(openapi_types.REF)] = None
            for value in node.values():
                visit(value)
        elif isinstance(node, list | tuple):
            for value in node:
                visit(value)

    visit(parts)
    return list(found)


def _components(spec: APISpec, *parts: Any) -> None:
    """Make the schemas that ``parts`` refer to components, under their class names; apispec adds
    the schemas they nest as it meets them."""
    declared = schemas.declared()
    for name in referred_to(*parts):
        if name not in declared:
            raise LookupError(f"the document refers to the schema {name}, which service/schemas does not declare")
        if name not in spec.components.schemas:  # unless met nested in an earlier one
            spec.components.schema(name, schema=declared[name])


def described() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The operations and the schemas they refer to, as apispec writes them, and the webhooks
    (added last: build_spec's later steps are about the operations)."""
    marshmallow = MarshmallowPlugin()
    spec = APISpec(
        title="Blue Moon City",
        version=API_VERSION,
        openapi_version="3.1.0",
        plugins=[marshmallow],
        info={"description": (Path(__file__).parent / "api_intro.md").read_text() + _limits_text()},
        servers=[{"url": "/", "description": "The service that serves this document."}],
    )
    spec.components.security_scheme(
        "seatToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "The seat token returned when the game was created or the seat joined.",
        },
    )
    spec.components.security_scheme(
        "personalToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal access token (`bmp_...`, POST /me/tokens): acts for the person, in every "
            "game where they hold a seat, as far as its scopes go. Each operation's security requirement names the "
            "scope it needs; a token without it is refused with 403 `insufficient_scope`. The scopes:\n\n"
            f"{scopes.listed()}\n\nA token holds those chosen when it was made (left out: "
            f"{', '.join(scopes.DEFAULT_TOKEN_SCOPES)}; tokens made before scopes hold the same), never `account`, "
            f"and lasts until revoked or the `expires_in_days` chosen (at most {scopes.MAX_TOKEN_DAYS}): an expired "
            "token is 401 as an unknown one.",
        },
    )
    spec.components.security_scheme(
        "session",
        {
            "type": "apiKey",
            "in": "cookie",
            "name": "bm_session",
            "description": "The page's session, set by signing in (POST /auth/email-link/use, /signin, "
            "/auth/device-code, /auth/passkeys/sign-in, a passkey sign-up); named `__Host-bm_session` when the "
            "service is reached over https (`PUBLIC_URL`). A request that signs in, and an unsafe request the "
            "session authenticates, must come from the service's own origin (else 403 cross_origin). The session "
            "holds every scope; its requirements name the operation's scope all the same.",
        },
    )
    assert marshmallow.converter is not None  # set up by APISpec
    operations = paths(marshmallow.converter)
    webhooks = {kind: _webhook(kind) for kind in [*WEBHOOK_KINDS, CHAT_KIND, TEST_KIND]}
    # the problems every operation may answer, and each type of a person's news (PersonEvent's variants)
    _components(spec, operations, webhooks, _problems(limited=False), openapi_types.person_event_data())
    for path, item in operations.items():
        spec.path(path=path, operations=item)
    return spec.to_dict(), webhooks


def build_spec(recorded: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The document, with ``recorded`` (operationId -> request and response bodies, from
    cli/openapi_examples.py) as examples."""
    document, webhooks = described()
    _tags_and_examples(document, recorded)
    _links(document)
    openapi_types.command_variants(document)
    openapi_types.event_variants(document)
    openapi_types.person_event_variants(document, recorded["personEvents"])
    openapi_types.name_enums(document)
    openapi_components.pages_apart(document)
    openapi_components.share(document, shared_headers())
    openapi_components.examples_apart(document, lambda example: len(_dump(example).splitlines()))
    document["webhooks"] = webhooks
    return document


_GAME = {"game": "$response.body#/game"}
#: operationId -> status -> link name -> (target operationId, parameters, request body or None): how the
#: values one answer returns feed the next call (OpenAPI links; the stateful fuzzing follows them).
#: Links carry no seat token: a token is a secret the client keeps, not a value to pass along.
LINKS: dict[str, dict[str, dict[str, tuple[str, dict[str, str], str | None]]]] = {
    "createGame": {
        "201": {
            "view": ("getGame", _GAME, None),
            "events": ("listEvents", _GAME, None),
            "stream": ("streamEvents", _GAME, None),
            "atVersion": ("getGameAtVersion", {**_GAME, "version": "$response.body#/version"}, None),
            "join": ("joinSeat", {**_GAME, "seat": "$response.body#/seats/1/seat"}, None),
            "spectatorsChat": ("listChatMessages", {**_GAME, "room": "spectators"}, None),
        }
    },
    "joinSeat": {"201": {"view": ("getGame", _GAME, None)}},
}


def _links(document: dict[str, Any]) -> None:
    operations = {op["operationId"]: op for item in document["paths"].values() for op in item.values()}
    for source, by_status in LINKS.items():
        for status, links in by_status.items():
            found = {}
            for name, (target, parameters, body) in links.items():
                link: dict[str, Any] = {"operationId": target, "parameters": parameters}
                if body is not None:
                    link["requestBody"] = body
                found[name] = link
            operations[source]["responses"][status]["links"] = found


REQUEST_ID_PARAMETER = {
    "name": "X-Request-ID",
    "in": "header",
    "schema": {"type": "string"},
    "description": "Your id for this request, logged and echoed back; when absent or longer than 100 characters, "
    "one is made up.",
}
REQUEST_ID_HEADER = {"description": "The request's id as logged: yours, or one made up.", "schema": {"type": "string"}}


def shared_headers() -> dict[str, tuple[str, dict[str, Any]]]:
    """The response headers written once under ``components/headers``: component name -> (header, definition)."""
    return {
        "X-Request-ID": ("X-Request-ID", REQUEST_ID_HEADER),
        **{name: (name, definition) for name, definition in RATE_HEADERS.items()},
        "Retry-After": ("Retry-After", RETRY_AFTER),
        "InsufficientScope": ("WWW-Authenticate", INSUFFICIENT_SCOPE),
        "ETag": ("ETag", ETAG["ETag"]),
        "ViewETag": ("ETag", VIEW_ETAG["ETag"]),
        "StaleETag": ("ETag", STALE_ETAG),
        "SessionSet": ("Set-Cookie", SESSION_SET["Set-Cookie"]),
        "SessionCleared": ("Set-Cookie", SESSION_CLEARED["Set-Cookie"]),
        **{name: (name, definition) for name, definition in PAGE_HEADERS.items()},
        **{name: (name, definition) for name, definition in SSE_HEADERS.items()},
        **deprecation.HEADERS,
        "NoStore": ("Cache-Control", oauth_routes.NO_STORE["Cache-Control"]),
        "BasicChallenge": ("WWW-Authenticate", oauth_routes.CHALLENGE["WWW-Authenticate"]),
        "AppRedirect": ("Location", oauth_routes.APP_REDIRECT["Location"]),
    }


def _tags_and_examples(document: dict[str, Any], recorded: dict[str, dict[str, Any]]) -> None:
    """Describe the tags and give every operation examples recorded from the real API."""
    document["tags"] = [{"name": tag, "description": text} for tag, text in TAGS.items()]
    for item in document["paths"].values():
        for operation in item.values():
            op = operation["operationId"]
            operation.setdefault("parameters", []).append(REQUEST_ID_PARAMETER)
            for status, response in _problems(limited=False).items():  # any URL may be too long; any code may fail
                if status in ("414", "500"):
                    operation["responses"].setdefault(status, response)
            limited = "429" in operation["responses"]
            for response in operation["responses"].values():
                response.setdefault("headers", {})["X-Request-ID"] = REQUEST_ID_HEADER
                if "text/html" in response.get("content", {}):  # a page: its browser policy (service/browser_policy.py)
                    response["headers"].update(PAGE_HEADERS)
                if limited:  # every answer of a limited operation tells where its client stands
                    response["headers"] = {**RATE_HEADERS, **response["headers"]}
            tagged = any("ETag" in r["headers"] for code, r in operation["responses"].items() if code.startswith("2"))
            for status in ("409", "412"):
                if tagged and status in operation["responses"]:  # a stale_version problem names the game's version
                    operation["responses"][status]["headers"]["ETag"] = STALE_ETAG
            example = recorded[op]
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    parameter["example"] = recorded["parameters"][parameter["name"]]
            if example["request"] is not None:
                operation["requestBody"]["content"]["application/json"]["example"] = example["request"]
            for status, response in operation["responses"].items():
                if status.startswith("2") and "content" in response and example["response"] is not None:
                    next(iter(response["content"].values()))["example"] = example["response"]
            if "problem" in example:
                status, problem = example["problem"]
                operation["responses"][str(status)]["content"]["application/problem+json"]["example"] = problem


def _webhook(kind: str) -> dict[str, Any]:
    """A delivery as the receiver gets it (OpenAPI 3.1's top-level ``webhooks``)."""
    signed = {
        "webhook-id": "The message id (`msg_…`), the same on every retry: use it to ignore duplicates.",
        "webhook-timestamp": "Seconds since the Unix epoch when this attempt was signed.",
        "webhook-signature": "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the webhook's secret.",
    }
    return {
        "post": {
            "operationId": f"on_{kind.replace('.', '_')}",
            "summary": f"A `{kind}` delivery.",
            "parameters": [
                {"name": name, "in": "header", "required": True, "schema": {"type": "string"}, "description": text}
                for name, text in signed.items()
            ],
            "requestBody": {"required": True, "content": _json("WebhookMessage")},
            "responses": {"2XX": {"description": "Received. Any other answer, or none within 5 s, is retried."}},
        }
    }


class _NoAliases(yaml.SafeDumper):
    """Write repeated parts out in full: anchors and aliases confuse some client generators."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


SHORT_ITEM = 40  #: a list of plain values each at most this long is written in flow style, wrapped at 120


def _short_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    """A list of plain values (``required``, an ``enum``, a scope, card ids) in flow style, as people
    write them: ``required: [game, version]``, a long one wrapped at 120 columns; a list of objects
    or of long texts one item a line."""
    plain = all(isinstance(item, int | float | bool) or (isinstance(item, str) and "\n" not in item) for item in data)
    short = bool(data) and plain and all(len(str(item)) <= SHORT_ITEM for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=short)


_NoAliases.add_representer(list, _short_list)


def _dump(document: Any) -> str:
    return yaml.dump(document, Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=120)


def render(recorded: dict[str, dict[str, Any]]) -> str:
    return _dump(build_spec(recorded))
