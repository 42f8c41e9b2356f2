"""An HTTP client for tests: every response is checked against openapi.yaml, and bot turns
handed to the workers are played in-process (the RQ worker tests use real workers)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import yaml
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import (
    WerkzeugOpenAPIRequest,
    WerkzeugOpenAPIResponse,
)
from werkzeug.test import EnvironBuilder

from workers.turn_jobs import play


def first_sse_event(body: bytes | str) -> dict[str, str]:
    """The first event of an SSE body as a dict: the document describes one event."""
    text = body.decode() if isinstance(body, bytes) else body
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "data" in fields:
            return fields
    return {}


def api_and_pages() -> dict[str, Any]:
    """openapi.yaml with its pages (``x-pages``, which client generators skip) among its paths, so
    that the pages' answers are checked as the API's are."""
    document = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
    for path, item in document.pop("x-pages", {}).items():
        document["paths"].setdefault(path, {}).update(item)
    return document


DOCUMENT = api_and_pages()
SPEC = OpenAPI.from_dict(
    DOCUMENT,
    config=Config(
        extra_media_type_deserializers={
            "application/problem+json": json.loads,
            "text/event-stream": lambda body: first_sse_event(body),
            "application/yaml": yaml.safe_load,
            "text/html": lambda body: body.decode() if isinstance(body, bytes) else body,
            "text/markdown": lambda body: body.decode() if isinstance(body, bytes) else body,
            "application/x-ndjson": lambda body: body.decode() if isinstance(body, bytes) else body,
        }
    ),
)


#: Headers whose meaning an operation documents (the rest are HTTP's own, or the CORS ones).
MEANINGFUL = (
    "Location",
    "Set-Cookie",
    "ETag",
    "Retry-After",
    "WWW-Authenticate",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "Content-Security-Policy",
    "Referrer-Policy",
    "Deprecation",
    "Sunset",
    "Link",
)


def _documented_headers() -> list[tuple[re.Pattern[str], str, dict[str, set[str]]]]:
    """(path pattern, method, status -> documented header names) for every operation; a response
    written once under ``components/responses`` is looked up there."""
    shared = DOCUMENT["components"].get("responses", {})
    found = []
    for path, item in DOCUMENT["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path)) + "$")
        for method, operation in item.items():
            responses = {
                status: shared[r["$ref"].rsplit("/", 1)[1]] if "$ref" in r else r
                for status, r in operation["responses"].items()
            }
            headers = {status: set(r.get("headers", {})) for status, r in responses.items()}
            found.append((pattern, method.upper(), headers))
    return found


DOCUMENTED_HEADERS = _documented_headers()


def undocumented_headers(method: str, path: str, response: Any) -> set[str]:
    """The meaningful headers of ``response`` that its operation does not document for its status."""
    for pattern, verb, headers in DOCUMENTED_HEADERS:
        if verb == method and pattern.match(path.split("?")[0]):
            allowed = headers.get(str(response.status_code), set())
            return {name for name in MEANINGFUL if name in response.headers and name not in allowed}
    return set()


class CheckedClient:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.http = app.test_client()
        self.tickets: list[Any] = []
        self.checked = 0

    def request(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = dict(kw.pop("headers", {}) or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = self.http.open(path, method=method, headers=headers, **kw)
        self.check(EnvironBuilder(path=path, method=method, headers=headers, **kw).get_request(), response)
        undocumented = undocumented_headers(method, path, response)
        assert not undocumented, f"{method} {path} {response.status_code} sent undocumented {sorted(undocumented)}"
        return response

    def check(self, request: Any, response: Any) -> None:
        SPEC.validate_response(WerkzeugOpenAPIRequest(request), WerkzeugOpenAPIResponse(response))
        self.checked += 1

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        return self.request("POST", path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.request("DELETE", path, **kw)

    def patch(self, path: str, **kw: Any) -> Any:
        return self.request("PATCH", path, **kw)

    def put(self, path: str, **kw: Any) -> Any:
        return self.request("PUT", path, **kw)

    def run_workers(self) -> int:
        """Play every queued bot turn, as a worker would; returns how many were played."""
        service = self.app.extensions["bluemoon"].service
        played = 0
        while self.tickets:
            t = self.tickets.pop(0)
            if t.reason == "bot":
                play(service, t.game, t.seat, t.turn, t.played_as or t.level, t.reason)
                played += 1
        return played


def pick(commands: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    """A human's choice from the legal list: now and then a take-back (P17), so that whole
    games and their audits include some; else contributions and offerings first (so games
    end), then moves toward somewhere useful, else the Reset."""
    if any(c["type"] == "take_back" for c in commands) and rnd.random() < 0.05:
        return {"type": "take_back"}
    for kind in ("offer", "contribute", "use_action"):
        options = [c for c in commands if c["type"] == kind and not (kind == "use_action" and c.get("to"))]
        if options:
            return rnd.choice(options)
    moves = [c for c in commands if c["type"] == "move"]
    if moves and rnd.random() < 0.7:
        return rnd.choice(moves)
    return next(c for c in commands if c["type"] == "end_turn")
