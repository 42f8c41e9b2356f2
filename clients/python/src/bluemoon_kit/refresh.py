"""A bearer token that is refreshed when the service says it is no longer good.

Short-lived tokens (an OAuth app's access token) run out while a program is running. Given a
``refresh`` callable that returns a new token (for OAuth: the refresh-token grant), a request
answered 401 is sent once more with the new token; a second 401 is the caller's to see, so a
refresher that cannot help does not loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator

import httpx


class RefreshingToken(httpx.Auth):
    """``Authorization: Bearer <token>`` on each request; on a 401, ``refresh()`` once, and again."""

    def __init__(self, token: str, refresh: Callable[[], str] | None = None) -> None:
        self.token = token
        self._refresh = refresh
        self._lock = threading.Lock()

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        sent = self.token
        request.headers["Authorization"] = f"Bearer {sent}"
        response = yield request
        if response.status_code != 401 or self._refresh is None:
            return
        with self._lock:
            if self.token == sent:  # not already refreshed by a request answered 401 at the same time
                self.token = self._refresh()
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request
