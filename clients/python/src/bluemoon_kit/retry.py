"""Retries that cannot apply anything twice.

A request whose answer is lost (the connection breaks, the read times out, a 502/503/504 or a short
429 comes back) is sent again exactly as it was: the same body, the same ``If-Match`` and the same
``Idempotency-Key``, so the service gives the first answer again instead of applying a command or a
create a second time. A ``POST`` or ``PATCH`` sent without a key gets a random one (a UUID) before
its first attempt, so that every retry of it carries the same.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable

import httpx

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
KEYED_METHODS = frozenset({"POST", "PATCH"})


class RetryingTransport(httpx.BaseTransport):
    """Sends each request up to ``attempts`` times through ``inner``, waiting ``backoff`` seconds
    and twice as long each time after (with jitter), or the ``Retry-After`` the service asked for
    when it is at most ``longest_wait`` (a longer one, such as an hour's quota, is answered as it
    is: waiting is the caller's decision)."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        attempts: int = 4,
        backoff: float = 0.25,
        longest_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.inner = inner or httpx.HTTPTransport()
        self.attempts, self.backoff, self.longest_wait, self._sleep = attempts, backoff, longest_wait, sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method in KEYED_METHODS and "Idempotency-Key" not in request.headers:
            request.headers["Idempotency-Key"] = str(uuid.uuid4())
        for attempt in range(1, self.attempts + 1):
            last = attempt == self.attempts
            try:
                response = self.inner.handle_request(request)
            except httpx.TransportError:
                if last:
                    raise
                self._sleep(self._pause(attempt))
                continue
            if last or response.status_code not in RETRIED_STATUSES:
                return response
            asked = _seconds(response.headers.get("Retry-After"))
            if asked is not None and asked > self.longest_wait:
                return response
            response.close()
            self._sleep(self._pause(attempt) if asked is None else asked)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _pause(self, attempt: int) -> float:
        return min(self.longest_wait, self.backoff * 2.0 ** (attempt - 1) * random.uniform(0.5, 1.5))

    def close(self) -> None:
        self.inner.close()


def _seconds(retry_after: str | None) -> float | None:
    """Retry-After as seconds, when it is given as seconds (the service always does)."""
    if retry_after is None or not retry_after.strip().isdigit():
        return None
    return float(retry_after)
