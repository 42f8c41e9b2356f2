"""The request id (the web's ``X-Request-ID``) follows a request into the work it causes, so
that one id finds in the logs a command, the bot's reply, the turn alerts and the webhooks.

The web process binds the id for each request; each outbox entry an append writes carries the
id bound then (``stamped``, in its JSON payload); the dispatcher binds an entry's id while it
hands the entry on, and the hand-off puts it in the RQ job's meta; the worker binds it while
the job runs, so the job's log lines and the entries its own appends write (a bot's reply, its
alerts) carry it on. A context variable: each request's greenlet and each thread sees its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

FIELD = "request_id"  #: the key in outbox payloads, job meta and log lines
_current: ContextVar[str | None] = ContextVar(FIELD, default=None)


def current() -> str | None:
    """The id of the request whose work this is, if any."""
    return _current.get()


def bind(request_id: str | None) -> Token[str | None]:
    """Work done from now on is the request ``request_id``'s, until ``unbind``."""
    return _current.set(request_id)


def unbind(token: Token[str | None]) -> None:
    _current.reset(token)


@contextmanager
def bound(request_id: str | None) -> Iterator[None]:
    """Work done inside the block is the request ``request_id``'s (None: no request's)."""
    token = bind(request_id)
    try:
        yield
    finally:
        unbind(token)


def stamped(payload: str | None) -> str | None:
    """An outbox entry's payload with the current request id in it (a JSON object's ``request_id``),
    unchanged when no request is bound or the payload is not an object."""
    request_id = current()
    if payload is None or request_id is None or not payload.startswith("{"):
        return payload
    return json.dumps({**json.loads(payload), FIELD: request_id}, sort_keys=True)


def of_payload(payload: str) -> str | None:
    """The request id an outbox entry's payload carries, if any."""
    if not payload.startswith("{"):
        return None
    found = json.loads(payload).get(FIELD)
    return found if isinstance(found, str) else None
