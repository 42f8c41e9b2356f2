"""What browsers and mobile clients on other networks need beyond the API itself: CORS, so a
web page on any origin can call the API (seat tokens travel in the Authorization header, never
in cookies, so no origin can act for a player without its token), and compression, since
clients pay for every byte of views and `/legal` (never the SSE stream, which must not be
buffered)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from flask import Flask, Response, request
from flask_compress import Compress
from flask_cors import CORS

from application.settings import CORS_ORIGINS

#: Request headers a browser on another origin may send (answered in preflights).
ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-Request-ID",
]
#: Response headers a script on another origin may read.
EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "X-Request-ID",
    "Deprecation",  # a deprecated operation's three (service/deprecation.py)
    "Sunset",
    "Link",
]
#: Compressed when the client accepts it; text/event-stream is not among them, on purpose.
COMPRESSED = [
    "application/json",
    "application/problem+json",
    "application/yaml",
    "text/markdown",
    "text/html",
    "text/css",
    "application/javascript",
    "text/javascript",
]


def install(app: Flask) -> None:
    origins = CORS_ORIGINS.read()
    CORS(
        app,
        origins=[o.strip() for o in origins.split(",")] if origins != "*" else "*",
        send_wildcard=origins == "*",
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        supports_credentials=False,
        max_age=600,
    )
    if origins == "*":
        _same_answer_for_every_origin(app)
    app.config.update(
        COMPRESS_MIMETYPES=COMPRESSED,
        COMPRESS_ALGORITHM=["gzip", "br"],
        COMPRESS_MIN_SIZE=500,
        COMPRESS_STREAMS=False,
        COMPRESS_LEVEL=6,
        COMPRESS_BR_LEVEL=4,
    )
    Compress(app)
    app.after_request(_private_to_its_caller)


def _private_to_its_caller(response: Response) -> Response:
    """An answer to a request that says who asks (a token, the session) is that caller's: a
    seat's view holds its hand. Shared caches must not keep it, and a browser's cache must not
    give it (or a 304 for it) to a request made with another token."""
    headers = request.headers
    if "Authorization" in headers or "Cookie" in headers:  # (header lookups: no parsing, every request pays this)
        vary = response.headers.get("Vary")
        response.headers["Vary"] = f"{vary}, Authorization, Cookie" if vary else "Authorization, Cookie"
        if "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "private"
    return response


def _same_answer_for_every_origin(app: Flask) -> None:
    """With every origin allowed, flask-cors gives every request that is not a preflight the
    same headers, whatever its Origin (or none): ``Access-Control-Allow-Origin: *`` and the
    exposed headers. Its hook works them out anew for each request (a fifth of a bare request's
    time); this one takes them from its first answer and adds them as they are, and leaves
    preflights, Private Network Access requests and responses that already carry CORS headers
    to flask-cors."""
    hooks = app.after_request_funcs[None]
    at = next(i for i, hook in enumerate(hooks) if getattr(hook, "__name__", "") == "cors_after_request")
    worked_out = cast(Callable[[Response], Response], hooks[at])  # flask-cors's own, a plain function
    known: list[tuple[str, Any]] = []

    def cors_after_request(response: Response) -> Response:
        if (
            request.method == "OPTIONS"
            or "HTTP_ACCESS_CONTROL_REQUEST_PRIVATE_NETWORK" in request.environ
            or "Access-Control-Allow-Origin" in response.headers
        ):
            return worked_out(response)
        if not known:
            known.extend((k, v) for k, v in worked_out(Response()).headers.items() if k.startswith("Access-Control-"))
        response.headers.extend(known)
        return response

    hooks[at] = cors_after_request
