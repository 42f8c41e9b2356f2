"""A finished game's log and audit, computed once and then served from Redis.

A game that has ended takes no more events, so its published log (every event, unredacted) and
its audit (every shuffle derived again, every command judged again) never change: computing
them on every request let anyone spend a web worker's CPU at will. Each is kept under its
game's own key for ``FINISHED_DOCUMENT_SECONDS`` (a day) after it was computed, and computed
again, the same, by the first request after that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from application import settings
from application.games.codec import dumps
from events import keys

FINISHED_DOCUMENT_SECONDS = settings.FINISHED_DOCUMENT_SECONDS.read()


def finished_document(client: Any, game: str, part: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The finished game's ``part`` (``log`` or ``audit``): kept, else ``compute``d and kept.
    ``compute`` must refuse (raise) for a game that has not ended: only an ended game's is kept."""
    key = keys.finished_document(game, part)
    kept = client.get(key)
    if kept is not None:
        found: dict[str, Any] = orjson.loads(kept)
        return found
    document = compute()
    client.set(key, dumps(document), ex=FINISHED_DOCUMENT_SECONDS)
    return document
