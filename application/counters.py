"""Counters of fixed windows in Redis, for the rate limits and the sign-in attempts: each
counted, and its window read, in one round trip of plain commands (``run_commands``; a
cluster's pipeline sends them to each counter's node, where a script would not run).

A window starts with its first count (``SET NX EX``), ``INCR`` keeps its expiry, and ``PTTL``
tells when it ends. A counter whose window ended between the ``SET`` and the ``INCR`` is made
again by the ``INCR`` without an expiry, and would count for good: it is given its expiry at
once (``PTTL`` says -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from events.redis_store import run_commands


class Count(NamedTuple):
    total: int  #: the counts in the window, this one included
    left_ms: int  #: until the window ends


def count(client: Any, counters: Sequence[tuple[str, int]]) -> list[Count]:
    """One more for each ``(key, window in seconds)``, in one pipeline."""
    replies = run_commands(
        client,
        [
            part
            for key, seconds in counters
            for part in (("SET", key, 0, "EX", seconds, "NX"), ("INCR", key), ("PTTL", key))
        ],
    )
    found, unbounded = [], []
    for at, (key, seconds) in enumerate(counters):
        counted, left = int(replies[3 * at + 1]), int(replies[3 * at + 2])
        if left < 0:
            unbounded.append((key, seconds))
            left = seconds * 1000
        found.append(Count(counted, left))
    if unbounded:
        with client.pipeline(transaction=False) as pipe:
            for key, seconds in unbounded:
                pipe.expire(key, seconds)
            pipe.execute()
    return found
