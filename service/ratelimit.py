"""A fixed-window rate limit on writes, per client, kept in Redis so every web process shares it."""
from __future__ import annotations

import hashlib
import time
from typing import Any

from werkzeug.exceptions import TooManyRequests

WINDOW = 60


class RateLimiter:
    def __init__(self, client: Any, per_minute: int) -> None:
        self.client = client
        self.per_minute = per_minute

    def check(self, who: str) -> None:
        if not self.per_minute:
            return
        window = int(time.time() // WINDOW)
        key = "{ratelimit}:" + hashlib.sha256(who.encode()).hexdigest()[:32] + f":{window}"
        pipe = self.client.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, WINDOW * 2)
        count, _ = pipe.execute()
        if count > self.per_minute:
            error = TooManyRequests(f"more than {self.per_minute} writes a minute; retry after {WINDOW - int(time.time()) % WINDOW} s")
            error.retry_after = WINDOW - int(time.time()) % WINDOW  # type: ignore[attr-defined]
            raise error
