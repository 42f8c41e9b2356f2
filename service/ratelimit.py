"""Rate limits: fixed windows counted in Redis (so every web process shares them).

Two keys are limited, reads and writes apart: the client's address (the peer, or the address
the configured number of trusted proxies report in X-Forwarded-For), and each *valid* seat
token. A token counts only once the service knows it: a client rotating made-up tokens is
limited by its address, and made-up tokens are never remembered. Responses carry
``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` of the tightest limit (the
one with the fewest requests left); a 429 also ``Retry-After``. A Redis that cannot count lets
the request through: the limits guard the service, they must not stop it.

Written here rather than taken from flask-limiter, which counted each limit and then read each
window again for the headers, in round trips of their own: four to five a request, which cost a
web worker as much CPU as the rest of a command. Here a request's counters are counted and
their windows read in one round trip (application/counters.py).
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections import OrderedDict
from typing import Any, NamedTuple

import redis
from flask import Blueprint, Flask, Response, current_app, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from application import counters
from application.accounts.account_service import TOKEN_PREFIX
from application.games.game_service import digest
from application.refusals import ServiceError
from application.settings import DECLARED
from events import keys

#: Per client address, and per valid token. Watchers count once per connection, so a page
#: that keeps one SSE stream open costs one read per reconnect.
SCOPES = {  #: what each limit counts (and names its counters by)
    "RATE_LIMIT_READS": "reads-by-address",
    "RATE_LIMIT_WRITES": "writes-by-address",
    "RATE_LIMIT_TOKEN_READS": "reads-by-token",
    "RATE_LIMIT_TOKEN_WRITES": "writes-by-token",
}
LIMITS = {name: DECLARED[name].default for name in SCOPES}  #: the defaults (application/settings.py)
SETTINGS = {scope: name for name, scope in SCOPES.items()}  #: the setting of each limit
_KNOWN_TOKENS = 10_000  #: valid token digests remembered per process (tokens are never revoked)
READ_METHODS, WRITE_METHODS = ("GET", "HEAD"), ("POST", "PUT", "PATCH", "DELETE")
PROBES = ("/healthz", "/readyz")  #: never limited
PREFIX = "ratelimit"  #: no hash tag: the counters spread over every slot of a cluster
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_LIMIT = re.compile(r"\s*(\d+)\s*(?:per|/)\s*(\d*)\s*(second|minute|hour|day)s?\s*")


class RateLimited(ServiceError):
    status, code, title = 429, "rate_limited", "Too Many Requests"


class Limit(NamedTuple):
    scope: str  #: what is counted: reads or writes, by address or by token
    amount: int  #: requests allowed in a window
    seconds: int  #: the window

    @classmethod
    def parse(cls, scope: str, text: str) -> Limit:
        """``"300 per minute"``, ``"10/hour"`` or ``"5 per 10 seconds"``."""
        found = _LIMIT.fullmatch(text)
        if found is None:
            raise ValueError(f"the limit of {scope}, {text!r}, is not one such as '300 per minute'")
        amount, many, unit = found.groups()
        return cls(scope, int(amount), int(many or 1) * _SECONDS[unit])


class Counted(NamedTuple):
    limit: Limit
    total: int
    left_ms: int

    @property
    def remaining(self) -> int:
        return max(0, self.limit.amount - self.total)


class RateLimits:
    """The limits of a process: ``check`` before a request to the API, ``headers`` on its answer."""

    def __init__(self, client: Any, config: dict[str, Any]) -> None:
        self.client = client
        parsed = {name: Limit.parse(SCOPES[name], str(config.get(name) or DECLARED[name].read())) for name in SCOPES}
        self.by_address = {"read": parsed["RATE_LIMIT_READS"], "write": parsed["RATE_LIMIT_WRITES"]}
        self.by_token = {"read": parsed["RATE_LIMIT_TOKEN_READS"], "write": parsed["RATE_LIMIT_TOKEN_WRITES"]}
        self._known: OrderedDict[str, None] = OrderedDict()  #: valid token digests, the recent ones

    def check(self) -> None:
        """Count the request against its limits; 429 past any of them."""
        kind = "read" if request.method in READ_METHODS else "write" if request.method in WRITE_METHODS else None
        if kind is None or request.path in PROBES:
            return
        self.count(kind, client_address(), self._valid_token())

    def count(self, kind: str, address: str, token: str | None) -> None:
        """Count one ``kind`` ("read" or "write") for ``address`` and the valid seat token's digest
        ``token``: a request's, or a command on a play socket (service/play_socket.py); 429 past any."""
        limits = [(self.by_address[kind], f"addr:{address}")]
        if token is not None:
            limits.append((self.by_token[kind], f"token:{token}"))
        try:
            found = counters.count(self.client, [(_key(limit, who), limit.seconds) for limit, who in limits])
        except redis.RedisError as error:
            current_app.logger.warning("rate limits not counted: %s", error)
            return
        counted = [Counted(limit, c.total, c.left_ms) for (limit, _), c in zip(limits, found)]
        g.rate_limit = min(counted, key=lambda c: (c.remaining, -c.left_ms))
        over = [c for c in counted if c.total > c.limit.amount]
        if over:
            worst = max(over, key=lambda c: c.left_ms)
            g.rate_limit = worst
            whose = "from this address" if worst.limit.scope.endswith("address") else "with this token"
            setting = SETTINGS[worst.limit.scope]
            raise RateLimited(
                f"more than {worst.limit.amount} {kind}s in {worst.limit.seconds} s {whose} ({setting}); "
                "wait Retry-After seconds",
                retry_after=_seconds(worst.left_ms),
                limit=setting,
            )

    @staticmethod
    def headers(response: Response) -> Response:
        counted = g.get("rate_limit")
        if counted is not None:
            response.headers["RateLimit-Limit"] = str(counted.limit.amount)
            response.headers["RateLimit-Remaining"] = str(counted.remaining)
            response.headers["RateLimit-Reset"] = str(int(time.time()) + _seconds(counted.left_ms))
        return response

    def _valid_token(self) -> str | None:
        """The digest of the request's seat token if the service issued it, else None."""
        header = request.headers.get("Authorization", "")
        token = header[7:].split(",")[0].strip() if header[:7].lower() == "bearer " else ""
        if not token or len(token) > 200 or token.startswith(TOKEN_PREFIX):  # a personal token is no seat's
            return None
        found = digest(token)
        if found not in self._known:
            if self.client.get(keys.token(found)) is None:
                return None
            self._known[found] = None
            while len(self._known) > _KNOWN_TOKENS:
                self._known.popitem(last=False)
        self._known.move_to_end(found)
        return found


def counted_address(address: str | None) -> str:
    """The key a client address is counted under by every per-address limit: an IPv4 address
    as it is (an IPv4-mapped IPv6 address as its IPv4), an IPv6 address as its /64, the block
    one subscriber is given (counted address by address, one client would hold 2^64 budgets)."""
    try:
        found = ipaddress.ip_address(address or "")
    except ValueError:
        return address or "unknown"
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return str(found)


def client_address() -> str:
    """The request's client address as every per-address limit counts it (``counted_address``)."""
    return counted_address(request.remote_addr)


def _key(limit: Limit, who: str) -> str:
    return f"{PREFIX}:{limit.scope}:{limit.seconds}:{who}"


def _seconds(ms: int) -> int:
    """Whole seconds, rounded up: a client that waits them finds the window gone."""
    return max(1, -(-ms // 1000))


def install(app: Flask, api: Blueprint, client: Any) -> RateLimits | None:
    """Limit ``api``'s routes; ``RATE_LIMIT=0`` turns limits off (benchmarks, tests)."""
    if app.config.get("TRUSTED_PROXIES"):
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=int(app.config["TRUSTED_PROXIES"]))  # type: ignore[method-assign]
    if not app.config.get("RATE_LIMIT", 1):
        return None
    limits = app.extensions["rate_limits"] = RateLimits(client, app.config)

    @app.before_request
    def _count() -> None:
        if api.name in request.blueprints:  # the API and the blueprints nested in it
            limits.check()

    app.after_request(limits.headers)
    return limits
