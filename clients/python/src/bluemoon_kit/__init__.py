"""Our layer over the generated client (``bluemoon_client``): a client whose requests are retried
without being applied twice and whose token is refreshed when it runs out, and streams followed
with resume.

    from bluemoon_kit import connect, follow
    api = connect("https://bluemoon.example", token, refresh=get_new_token)
    for event in follow(api.get_httpx_client(), f"/games/{game}/stream"):
        print(event.json())
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
from bluemoon_client import AuthenticatedClient, Client

from bluemoon_kit.refresh import RefreshingToken
from bluemoon_kit.retry import RetryingTransport
from bluemoon_kit.stream import ServerEvent, StreamRefused, follow

__all__ = ["RefreshingToken", "RetryingTransport", "ServerEvent", "StreamRefused", "connect", "follow"]


def connect(
    base_url: str,
    token: str | None = None,
    *,
    refresh: Callable[[], str] | None = None,
    attempts: int = 4,
    timeout: float = 30.0,
    transport: httpx.BaseTransport | None = None,
) -> AuthenticatedClient | Client:
    """A generated client for ``base_url`` (pass it as ``client=`` to any ``bluemoon_client.api``
    function) whose requests are retried ``attempts`` times in all with their Idempotency-Key and
    If-Match kept, sending ``token`` and, on a 401, once more with ``refresh()``'s token.
    ``transport`` is what sends a request (httpx's own by default). For the generated functions'
    ``sync`` and ``sync_detailed``: the transport is synchronous, so not for their ``asyncio``."""
    httpx_args = {"transport": RetryingTransport(transport, attempts=attempts)}
    if token is None:
        return Client(base_url=base_url, timeout=httpx.Timeout(timeout), httpx_args=httpx_args)
    return AuthenticatedClient(
        base_url=base_url,
        token=token,
        timeout=httpx.Timeout(timeout),
        httpx_args={**httpx_args, "auth": RefreshingToken(token, refresh)},
    )
