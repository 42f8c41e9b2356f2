"""A game's chat in its live feeds: beside the game's events in its SSE stream (``event: chat``,
``event: chat.removed``, without ``id``) and in its long poll (``chat``, after ``chat_after``).

Each watcher gets only the notices of the rooms it reads, and none about a person it mutes or
blocks (read again for each batch, so a mute made while a stream is open holds at once). The
notices come from the chat's own feed (``Components.chat_feed``), never from the game's log.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from application.chat import notices
from application.chat.notices import ChatNotice
from application.chat.rooms import GameChat, Reader
from application.games.codec import dumps
from events.feed import wait_any
from events.serialization import StoredEvent

from . import live
from .schemas.chat import notice_document

if TYPE_CHECKING:
    from application.wiring import Components


def _next(c: Components, game: str, after: int) -> list[ChatNotice]:
    kept = c.chat_feed.since(game, after)
    return kept[: live.PAGE] if kept is not None else notices.read(c.client, game, after, live.PAGE)


def _visible(batch: list[ChatNotice], reader: Callable[[], Reader]) -> list[dict[str, Any]]:
    return [notice_document(n) for n in GameChat.visible(batch, reader())] if batch else []


def beside(c: Components, game: str, reader: Callable[[], Reader]) -> live.Beside:
    """The game's chat from now on, as SSE frames for ``reader`` (who watches)."""

    def encoded(batch: list[ChatNotice]) -> bytes:
        return b"".join(
            b"event: %s\ndata: %s\n\n" % (doc["type"].encode(), dumps(doc)) for doc in _visible(batch, reader)
        )

    return live.Beside(c.chat_feed, notices.last(c.client, game), lambda after: _next(c, game, after), encoded)


def poll(
    c: Components, game: str, after: int, chat_after: int, wait: float, version: int, reader: Callable[[], Reader]
) -> tuple[list[StoredEvent], int, list[dict[str, Any]], int]:
    """The long poll with chat: the events after ``after`` and the chat notices after
    ``chat_after`` that ``reader`` may have, waiting up to ``wait`` seconds for either; and the
    game's version and the chat's next cursor."""
    ends = time.monotonic() + wait
    with c.feed.watching(game), c.chat_feed.watching(game):
        while True:
            stored = live.read_next(c, game, after)
            batch = _next(c, game, chat_after)
            chat_after = batch[-1].seq if batch else chat_after
            shown = _visible(batch, reader)
            left = ends - time.monotonic()
            if stored or shown or left <= 0 or c.feed.closing:
                return stored, max(version, stored[-1].seq if stored else 0), shown, chat_after
            if not batch:  # nothing at all came: wait (a batch of others' notices is looked past at once)
                wait_any([(c.feed, game, after), (c.chat_feed, game, chat_after)], left)
