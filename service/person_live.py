"""A person's stream, live: the long poll (``GET /me/events?wait=``) and the SSE stream
(``GET /me/stream``), as a game's (service/live.py) but on the people's feed.

Both wait on this process's people's feed (``Components.person_feed``: events/feed.py following
events/person_streams.py), so an open stream holds no thread and no Redis connection while it
waits, and one subscription of the process hears every person's news.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from application.games.codec import dumps
from events.person_streams import PersonEvent

from . import live

if TYPE_CHECKING:
    from application.wiring import Components


def _next(c: Components, account: str, after: int) -> list[PersonEvent]:
    """The next page after ``after``: from the feed's kept entries, else from the stream."""
    kept = c.person_feed.since(account, after)
    return kept[: live.PAGE] if kept is not None else c.person_streams.read(account, after, live.PAGE)


def poll(c: Components, account: str, after: int, wait: float) -> list[PersonEvent]:
    """A page of the person's news after ``after``, waiting up to ``wait`` seconds for some."""
    found = c.person_streams.read(account, after, live.PAGE)
    if found or wait <= 0:
        return found
    with c.person_feed.watching(account):
        last = c.person_feed.wait(account, after, wait)
        return _next(c, account, after) if last > after else []


def _frames(batch: list[PersonEvent]) -> bytes:
    return b"".join(
        b"id: %d\nevent: %s\ndata: %s\n\n" % (item.seq, item.type.encode(), dumps(item.document())) for item in batch
    )


def frames(c: Components, account: str, after: int, *, lifetime: float, keepalive: float) -> Iterator[bytes]:
    """The SSE body: the person's news after ``after``, then each item as it comes (live.followed)."""
    return live.followed(
        c.person_feed,
        account,
        after,
        lambda position: _next(c, account, position),
        _frames,
        lifetime=lifetime,
        keepalive=keepalive,
    )
