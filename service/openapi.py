"""The OpenAPI document, built from the marshmallow schemas (written to openapi.yaml by
``python -m cli.write_openapi``, with examples recorded by cli/openapi_examples.py).

The schemas are the single source; the paths below only say which schema each operation
takes and returns. tests/api/test_openapi.py fails when the committed file is out of date.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from . import live, openapi_types, schemas
from .api import MAX_VERSION

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def _json(schema: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def _problems(*codes: int, limited: bool = True) -> dict[str, Any]:
    """The problems an operation answers with: ``codes``, and on every operation 414 (an
    over-long URL) and 503 (Redis unreachable, with Retry-After); 429 where rate limited."""
    text = {
        400: "Unreadable request (bad JSON).",
        401: "No seat token.",
        403: "The token may not do this.",
        404: "No such game, seat or version.",
        409: "Illegal move (code names the rule), stale version, seat taken, or not finished.",
        412: "If-Match named a stale version.",
        413: "Body too large.",
        415: "Body is not JSON.",
        422: "Malformed request: see errors.",
        428: "No expected version given.",
        429: "Too many requests from this address or with this token (reads and writes are counted apart): "
        "wait Retry-After seconds. Limits: see the API description.",
        414: "The URL is longer than 2,048 characters.",
        500: "An error of the service's own; nothing was changed. The X-Request-ID header names it in the logs.",
        503: "The game store (Redis) is unreachable; nothing was changed. Retry after Retry-After seconds.",
    }
    found = {
        str(c): {"description": text[c], "content": PROBLEM}
        for c in sorted({*codes, 414, 500, 503, *([429] if limited else [])})
    }
    found["503"]["headers"] = {"Retry-After": RETRY_AFTER}
    if limited:
        found["429"]["headers"] = {"Retry-After": RETRY_AFTER, **RATE_HEADERS}
    return found


def _limits_text() -> str:
    from .ratelimit import LIMITS

    return (
        "\n\n**Rate limits** (fixed one-minute windows, shared by every web process): per client address, "
        f"{LIMITS['RATE_LIMIT_READS']} reads (GET) and {LIMITS['RATE_LIMIT_WRITES']} writes; per valid seat token, "
        f"{LIMITS['RATE_LIMIT_TOKEN_READS']} reads and {LIMITS['RATE_LIMIT_TOKEN_WRITES']} writes. A made-up token "
        "counts against the address only. Responses carry `RateLimit-Limit`, `RateLimit-Remaining` and "
        "`RateLimit-Reset`; a 429 carries `Retry-After`. `/healthz` and `/readyz` are not limited.\n"
    )


RETRY_AFTER = {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
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


SSE_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The event's seq: send it back as Last-Event-ID to resume."},
        "event": {"type": "string", "description": "The event's type, e.g. ContributionMade."},
        "data": {"type": "string", "description": "The Event object as JSON (see components.schemas.Event)."},
        "retry": {"type": "string"},
    },
}
GAME = {"name": "game", "in": "path", "required": True, "schema": {"type": "string"}, "description": "Game id."}
AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
HOOK = {"name": "hook", "in": "path", "required": True, "schema": {"type": "string"}, "description": "Webhook id."}
OPTIONAL_AUTH: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
ETAG = {
    "ETag": {
        "description": 'The game\'s version, quoted (`"12"`); on a compressed response with the '
        'encoding appended (`"12:gzip"`). Send it back unchanged in If-Match or If-None-Match.',
        "schema": {"type": "string"},
    }
}


def paths() -> dict[str, dict[str, Any]]:
    return {
        "/games": {
            "post": {
                "operationId": "createGame",
                "summary": "Create a game; human seats get their secret token now.",
                "requestBody": {"required": True, "content": _json("CreateGame")},
                "responses": {
                    "201": {"description": "Created.", "content": _json("Created"), "headers": ETAG},
                    **_problems(400, 413, 415, 422, 429),
                },
            },
            "get": {
                "operationId": "listGames",
                "summary": "List games, newest first; with a token, your games.",
                "security": OPTIONAL_AUTH,
                "parameters": [
                    {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["active", "finished"]}},
                    {
                        "name": "my_turn",
                        "in": "query",
                        "schema": {"type": "boolean"},
                        "description": "Only games where it is the token's seat's turn.",
                    },
                ],
                "responses": {"200": {"description": "Games.", "content": _json("GameList")}, **_problems(401, 422)},
            },
        },
        "/games/{game}": {
            "get": {
                "operationId": "getGame",
                "summary": "The game as your seat (with a token) or a spectator sees it.",
                "security": OPTIONAL_AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "If-None-Match",
                        "in": "header",
                        "schema": {"type": "string"},
                        "description": "An ETag you hold: when the game is still at that version the answer is 304 "
                        "with no body.",
                    },
                ],
                "responses": {
                    "200": {"description": "The view.", "content": _json("GameView"), "headers": ETAG},
                    "304": {"description": "Not modified since the If-None-Match version."},
                    **_problems(403, 404),
                },
            }
        },
        "/games/{game}/seats/{seat}/join": {
            "post": {
                "operationId": "joinSeat",
                "summary": "Take an open seat with its invite; returns the seat token.",
                "parameters": [GAME, {"name": "seat", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "requestBody": {"required": True, "content": _json("Join")},
                "responses": {
                    "201": {"description": "Joined.", "content": _json("Joined")},
                    **_problems(400, 403, 404, 409, 413, 415, 422, 429),
                },
            }
        },
        "/games/{game}/legal": {
            "get": {
                "operationId": "legalCommands",
                "summary": "Every legal command for your seat, ready to post back.",
                "description": "Compact by default: contributions are the minimal payments (one per combination of "
                "interchangeable cards), and the Reset is one `end_turn` plus `end_turn_discards`, the "
                "cards it may discard, instead of every combination of them.",
                "security": AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "expand",
                        "in": "query",
                        "schema": {"type": "boolean", "default": False},
                        "description": "Also list `end_turn` with every combination of discards.",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "Legal commands (empty when it is not your turn).",
                        "content": _json("Legal"),
                        "headers": ETAG,
                    },
                    **_problems(401, 403, 404, 422),
                },
            }
        },
        "/games/{game}/commands": {
            "post": {
                "operationId": "postCommand",
                "summary": "Play a command, exactly once per Idempotency-Key.",
                "security": AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 200},
                        "description": "Retrying with the same key returns the original outcome and changes nothing.",
                    },
                    {
                        "name": "If-Match",
                        "in": "header",
                        "schema": {"type": "string"},
                        "description": "The version you played against, quoted (or send expected_version).",
                    },
                ],
                "requestBody": {"required": True, "content": _json("CommandRequest")},
                "responses": {
                    "200": {
                        "description": "Applied (or replayed).",
                        "content": _json("CommandResult"),
                        "headers": ETAG,
                    },
                    **_problems(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 429),
                },
            }
        },
        "/games/{game}/events": {
            "get": {
                "operationId": "listEvents",
                "summary": "Events after a version, redacted for you; long-poll with wait.",
                "description": (
                    f"At most {live.PAGE} events per page, oldest first; pass `next_after` as `after` for the "
                    f"next page. With `wait`, when there is no event after `after` yet, the request waits up to "
                    f"`wait` seconds (at most {live.MAX_WAIT:g}) for one, and answers 200 with an empty page if "
                    "none comes."
                ),
                "security": OPTIONAL_AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "after",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION, "default": 0},
                        "description": "The last version you have; events after it are returned.",
                    },
                    {
                        "name": "wait",
                        "in": "query",
                        "schema": {"type": "number", "minimum": 0, "maximum": live.MAX_WAIT, "default": 0},
                        "description": f"Seconds (0 to {live.MAX_WAIT:g}) to wait for a new event when there is none yet.",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "A page of events (empty when `wait` passed with none).",
                        "content": _json("EventPage"),
                    },
                    **_problems(403, 404, 422),
                },
            }
        },
        "/games/{game}/stream": {
            "get": {
                "operationId": "streamEvents",
                "summary": "Server-Sent Events: each event as 'id: <seq>', 'event: <type>', 'data: <Event JSON>'; resume with Last-Event-ID.",
                "description": (
                    f"The stream starts with `retry: {live.SSE_RETRY_MS}` (EventSource reconnects after "
                    f"{live.SSE_RETRY_MS} ms), then sends every event after `after` (or after `Last-Event-ID`), "
                    f"then each new event as it happens. When {live.SSE_KEEPALIVE:g} s pass without an event it "
                    f"sends a comment line (`: keep-alive`). After {live.SSE_SECONDS:g} s the stream ends "
                    "cleanly with a comment; EventSource then reconnects with `Last-Event-ID` and misses nothing."
                ),
                "security": OPTIONAL_AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "after",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION},
                        "description": "Start after this version; takes precedence over Last-Event-ID.",
                    },
                    {
                        "name": "Last-Event-ID",
                        "in": "header",
                        "schema": {"type": "string", "pattern": "^ *[0-9]{0,15} *$"},
                        "description": "The last event id received (what EventSource sends when it reconnects). "
                        "Empty counts as absent: the stream starts after version 0.",
                    },
                ],
                "responses": {
                    "200": {
                        "description": f"An event stream that ends after {live.SSE_SECONDS:g} s; reconnect to resume. "
                        "The schema is that of one event of the stream.",
                        "content": {"text/event-stream": {"schema": SSE_EVENT}},
                        "headers": {
                            "Cache-Control": {"description": "`no-cache`.", "schema": {"type": "string"}},
                            "X-Accel-Buffering": {
                                "description": "`no`: tells a proxy in front not to buffer the stream.",
                                "schema": {"type": "string"},
                            },
                        },
                    },
                    **_problems(403, 404, 422),
                },
            }
        },
        "/games/{game}/webhooks": {
            "post": {
                "operationId": "createWebhook",
                "summary": "Ask to be told by a signed POST (Standard Webhooks) when your turn begins, and more.",
                "description": "The response holds the signing `secret`, shown only now. Each delivery is a POST with "
                "`webhook-id`, `webhook-timestamp` and `webhook-signature` headers (see the top-level "
                "`webhooks`); retried with back-off (5 s, 30 s, 2 min, 10 min, 1 h) on a timeout or a "
                "non-2xx answer, with the same `webhook-id`; a webhook whose deliveries fail 5 times in a "
                "row is disabled.",
                "security": AUTH,
                "parameters": [GAME],
                "requestBody": {"required": True, "content": _json("WebhookRequest")},
                "responses": {
                    "201": {
                        "description": "Created; keep the secret.",
                        "content": _json("WebhookCreated"),
                        "headers": {"Location": {"description": "The webhook.", "schema": {"type": "string"}}},
                    },
                    **_problems(400, 401, 403, 404, 413, 415, 422),
                },
            },
            "get": {
                "operationId": "listWebhooks",
                "summary": "Your seat's webhooks (without their secrets).",
                "security": AUTH,
                "parameters": [GAME],
                "responses": {
                    "200": {"description": "Webhooks.", "content": _json("WebhookList")},
                    **_problems(401, 403, 404),
                },
            },
        },
        "/games/{game}/webhooks/{hook}": {
            "delete": {
                "operationId": "deleteWebhook",
                "summary": "Stop a webhook; its pending deliveries are dropped.",
                "security": AUTH,
                "parameters": [GAME, HOOK],
                "responses": {"204": {"description": "Deleted."}, **_problems(401, 403, 404)},
            },
        },
        "/games/{game}/webhooks/{hook}/deliveries": {
            "get": {
                "operationId": "listWebhookDeliveries",
                "summary": "The webhook's last delivery attempts: time, status, duration.",
                "security": AUTH,
                "parameters": [GAME, HOOK],
                "responses": {
                    "200": {"description": "Attempts, newest first.", "content": _json("DeliveryLog")},
                    **_problems(401, 403, 404),
                },
            },
        },
        "/games/{game}/versions/{version}": {
            "get": {
                "operationId": "getGameAtVersion",
                "summary": "The game as you saw it at a past version (time travel).",
                "security": OPTIONAL_AUTH,
                "parameters": [
                    GAME,
                    {
                        "name": "version",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 1, "maximum": 2**53 - 1},
                    },
                ],
                "responses": {
                    "200": {"description": "The view then.", "content": _json("GameView"), "headers": ETAG},
                    **_problems(403, 404),
                },
            }
        },
        "/games/{game}/log": {
            "get": {
                "operationId": "getLog",
                "summary": "The full, unredacted event log and the seed, once the game has ended.",
                "parameters": [GAME],
                "responses": {"200": {"description": "The log.", "content": _json("Log")}, **_problems(404, 409)},
            }
        },
        "/games/{game}/audit": {
            "get": {
                "operationId": "auditGame",
                "summary": "Re-derive every shuffle from the revealed seed and judge every recorded command again.",
                "description": "Each event's `meta.command` (with `meta.seat` and `meta.version`) records the command "
                "that caused it; the audit replays the rules on each and compares the events, checks "
                "every copy of the seed, and says whether the setup was drawn or given explicitly.",
                "parameters": [GAME],
                "responses": {"200": {"description": "The checks.", "content": _json("Audit")}, **_problems(404, 409)},
            }
        },
        "/openapi.yaml": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1",
                        "content": {
                            "application/yaml": {"schema": {"type": "object", "description": "This document as YAML."}}
                        },
                    }
                },
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapiJson",
                "summary": "This document, as JSON.",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/rulings": {
            "get": {
                "operationId": "rulings",
                "summary": "The rulings the service plays by, with the building catalogue.",
                "responses": {
                    "200": {"description": "Markdown", "content": {"text/markdown": {"schema": {"type": "string"}}}}
                },
            }
        },
        "/catalogue": {
            "get": {
                "operationId": "catalogue",
                "summary": "Every building's spaces and rewards (static: cacheable for a day).",
                "responses": {
                    "200": {
                        "description": "The building catalogue",
                        "content": _json("Catalogue"),
                        "headers": {
                            "Cache-Control": {"schema": {"type": "string"}, "example": "public, max-age=86400"}
                        },
                    }
                },
            }
        },
        "/": {
            "get": {
                "operationId": "lobby",
                "summary": "The play-by-web lobby: create a game, share its seats, list your games.",
                "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}},
            }
        },
        "/play/{game}": {
            "get": {
                "operationId": "playPage",
                "summary": "A seat's page (`#token=…` in the fragment) or a spectator's, built on this API alone.",
                "parameters": [GAME],
                "responses": {
                    "200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}},
                    "404": {"description": "Not a game id the service makes.", "content": PROBLEM},
                },
            }
        },
        "/docs": {
            "get": {
                "operationId": "docs",
                "summary": "Interactive documentation (works offline).",
                "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}},
            }
        },
        "/healthz": {
            "get": {
                "operationId": "health",
                "summary": "The process is up.",
                "responses": {"200": {"description": "OK", "content": _json("Health")}},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "ready",
                "summary": "Redis is reachable; `redis` says whether it is configured to keep games.",
                "responses": {
                    "200": {"description": "Ready", "content": _json("Health")},
                    **_problems(503, limited=False),
                },
            }
        },
    }


COMPONENTS = [
    "CreateGame",
    "Created",
    "Join",
    "Joined",
    "GameList",
    "GameView",
    "Command",
    "CommandRequest",
    "Legal",
    "CommandResult",
    "EventPage",
    "Log",
    "Audit",
    "Problem",
    "Health",
    "Catalogue",
    "WebhookRequest",
    "WebhookCreated",
    "WebhookList",
    "DeliveryLog",
    "WebhookMessage",
]


def build_spec(recorded: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The document, with ``recorded`` (operationId -> request and response bodies) as examples."""
    spec = APISpec(
        title="Blue Moon City",
        version="1.0.0",
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={"description": (Path(__file__).parent / "api_intro.md").read_text() + _limits_text()},
    )
    spec.components.security_scheme(
        "seatToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "The seat token returned when the game was created or the seat joined.",
        },
    )
    for name in COMPONENTS:
        spec.components.schema(name, schema=getattr(schemas, name))
    for path, operations in paths().items():
        spec.path(path=path, operations=operations)
    document = spec.to_dict()
    _tags_and_examples(document, recorded)
    _links(document)
    openapi_types.command_variants(document)
    openapi_types.event_variants(document)
    openapi_types.name_enums(document)
    document["webhooks"] = {kind: _webhook(kind) for kind in schemas.WEBHOOK_KINDS}
    return document


TAGS = {
    "games": ("Create, list, join and look at games.", ["createGame", "listGames", "getGame", "joinSeat"]),
    "play": ("Your legal commands, and playing one.", ["legalCommands", "postCommand"]),
    "follow": (
        "Events as they happen, and the game at any past version.",
        ["listEvents", "streamEvents", "getGameAtVersion"],
    ),
    "webhooks": (
        "Signed POSTs to your server when your turn begins, and more.",
        ["createWebhook", "listWebhooks", "deleteWebhook", "listWebhookDeliveries"],
    ),
    "audit": ("The full log and the re-judged game, once it has ended.", ["getLog", "auditGame"]),
    "service": (
        "This document, the rulings, the building catalogue, health, and the play-by-web pages.",
        ["openapi", "openapiJson", "rulings", "catalogue", "docs", "health", "ready", "lobby", "playPage"],
    ),
}


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


def _tags_and_examples(document: dict[str, Any], recorded: dict[str, dict[str, Any]]) -> None:
    """Tag every operation and give it examples recorded from the real API."""
    document["tags"] = [{"name": tag, "description": text} for tag, (text, _) in TAGS.items()]
    tag_of = {op: tag for tag, (_, ops) in TAGS.items() for op in ops}
    for item in document["paths"].values():
        for operation in item.values():
            op = operation["operationId"]
            operation["tags"] = [tag_of[op]]
            operation.setdefault("parameters", []).append(REQUEST_ID_PARAMETER)
            for status, response in _problems(limited=False).items():  # any URL may be too long; any code may fail
                if status in ("414", "500"):
                    operation["responses"].setdefault(status, response)
            for response in operation["responses"].values():
                response.setdefault("headers", {})["X-Request-ID"] = REQUEST_ID_HEADER
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


def render(recorded: dict[str, dict[str, Any]]) -> str:
    return yaml.dump(build_spec(recorded), Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=120)
