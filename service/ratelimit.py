"""Rate limits, by flask-limiter with its counters in Redis (so every web process shares them).

Two keys are limited, reads and writes apart: the client's address (the peer, or the address
the configured number of trusted proxies report in X-Forwarded-For), and each *valid* seat
token. A token counts only once the service knows it: a client rotating made-up tokens is
limited by its address, and made-up tokens are never remembered. Responses carry
``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset``; a 429 also ``Retry-After``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Flask, current_app, g, request
from flask_limiter import Limiter
from werkzeug.middleware.proxy_fix import ProxyFix

from events import keys

#: Per client address, and per valid token. Watchers count once per connection, so a page
#: that keeps one SSE stream open costs one read per reconnect.
LIMITS = {
    "RATE_LIMIT_READS": "1200 per minute",
    "RATE_LIMIT_WRITES": "300 per minute",
    "RATE_LIMIT_TOKEN_READS": "600 per minute",
    "RATE_LIMIT_TOKEN_WRITES": "120 per minute",
}
_KNOWN_TOKENS = 10_000  #: valid token digests remembered per process (tokens are never revoked)
READ_METHODS, WRITE_METHODS = ["GET", "HEAD"], ["POST", "PUT", "PATCH", "DELETE"]


def client_address() -> str:
    return "addr:" + (request.remote_addr or "unknown")


class _ValidTokens:
    """Which bearer tokens the service issued; only hits are remembered (bounded)."""

    def __init__(self) -> None:
        self._known: OrderedDict[str, None] = OrderedDict()

    def digest(self) -> str | None:
        """The request's token digest if the token is valid, else None (once per request)."""
        if "valid_token" not in g:
            g.valid_token = self._check()
        return g.valid_token

    def _check(self) -> str | None:
        header = request.headers.get("Authorization", "")
        token = header[7:].split(",")[0].strip() if header.lower().startswith("bearer ") else ""
        if not token or len(token) > 200:
            return None
        digest = hashlib.sha256(token.encode()).hexdigest()
        if digest not in self._known:
            if current_app.extensions["bluemoon"].client.get(keys.token(digest)) is None:
                return None
            self._known[digest] = None
            while len(self._known) > _KNOWN_TOKENS:
                self._known.popitem(last=False)
        self._known.move_to_end(digest)
        return digest

    def key(self) -> str:
        return f"token:{self.digest()}"

    def absent(self) -> bool:
        return self.digest() is None


def install(app: Flask, api: Blueprint, storage_uri: str) -> Limiter | None:
    """Limit ``api``'s routes; ``RATE_LIMIT=0`` turns limits off (benchmarks, tests)."""
    if app.config.get("TRUSTED_PROXIES"):
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=int(app.config["TRUSTED_PROXIES"]))  # type: ignore[method-assign]
    if not app.config.get("RATE_LIMIT", 1):
        return None
    app.config.update(
        RATELIMIT_HEADERS_ENABLED=True,
        RATELIMIT_HEADER_LIMIT="RateLimit-Limit",
        RATELIMIT_HEADER_REMAINING="RateLimit-Remaining",
        RATELIMIT_HEADER_RESET="RateLimit-Reset",
        RATELIMIT_KEY_PREFIX="ratelimit",  # no hash tag: the counters spread over every slot of a cluster
        RATELIMIT_STORAGE_OPTIONS={"socket_timeout": 2.0, "socket_connect_timeout": 2.0},
        RATELIMIT_SWALLOW_ERRORS=True,  # a Redis blip must not turn every request into a 500
    )
    limiter = Limiter(client_address, app=app, storage_uri=storage_uri, strategy="fixed-window")
    limiter.request_filter(lambda: request.path in ("/healthz", "/readyz"))  # probes are never limited
    tokens = _ValidTokens()
    config: dict[str, Any] = {name: app.config.get(name, default) for name, default in LIMITS.items()}
    limiter.limit(
        config["RATE_LIMIT_READS"],
        methods=READ_METHODS,
        key_func=client_address,
        scope="reads-by-address",
        per_method=False,
    )(api)
    limiter.limit(
        config["RATE_LIMIT_WRITES"],
        methods=WRITE_METHODS,
        key_func=client_address,
        scope="writes-by-address",
        per_method=False,
    )(api)
    limiter.limit(
        config["RATE_LIMIT_TOKEN_READS"],
        methods=READ_METHODS,
        key_func=tokens.key,
        scope="reads-by-token",
        per_method=False,
        exempt_when=tokens.absent,
    )(api)
    limiter.limit(
        config["RATE_LIMIT_TOKEN_WRITES"],
        methods=WRITE_METHODS,
        key_func=tokens.key,
        scope="writes-by-token",
        per_method=False,
        exempt_when=tokens.absent,
    )(api)
    return limiter
