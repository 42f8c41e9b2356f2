"""A game's chat rooms as stored: one Redis stream per room in the game's slot, apart from the
game's events (chat never changes the game; the audit never sees it).

A message is never rewritten: deleting it (its author) or hiding it (a moderator) records the
removal beside it, and every read shows a removed message as removed, without its words.
Rooms are capped at MOST_MESSAGES (the oldest go first).
"""

from __future__ import annotations

import json
import time
from typing import Any

from events import keys
from events.redis_store import RedisStore, text

ROOMS = ("seats", "spectators")  #: the seats' room; the spectators' room (seats may read it)
MOST_MESSAGES = 2000  #: a room keeps its latest 2,000 messages (a documented number)
LONGEST_MESSAGE = 500  #: characters in one message


class ChatMessages:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def add(self, game: str, room: str, author: str, seat: int | None, words: str) -> dict[str, Any]:
        """Keep a message (already checked) in ``room``; its id is the stream entry's id."""
        key = keys.chat(game, room)
        fields = {
            "author": author,
            "seat": "" if seat is None else str(seat),
            "text": words,
            "at": str(int(time.time() * 1000)),
        }
        entry = self.store.durably(key, lambda c: c.xadd(key, fields, maxlen=MOST_MESSAGES, approximate=False))
        return _shown(game, room, text(entry), fields, None)

    def read(self, game: str, room: str, after: str = "-", count: int = 100) -> list[dict[str, Any]]:
        """Up to ``count`` messages of ``room`` after the id ``after`` (exclusive), oldest first."""
        start = "-" if after == "-" else "(" + after
        entries = self.client.xrange(keys.chat(game, room), start, "+", count=count)
        return self._with_removals(game, room, entries)

    def around(self, game: str, room: str, message: str, each_side: int = 5) -> list[dict[str, Any]]:
        """The message and up to ``each_side`` messages before and after it, as a report keeps them."""
        key = keys.chat(game, room)
        before = list(reversed(self.client.xrevrange(key, "(" + message, "-", count=each_side)))
        rest = self.client.xrange(key, message, "+", count=each_side + 1)
        return self._with_removals(game, room, before + rest)

    def one(self, game: str, room: str, message: str) -> dict[str, Any] | None:
        found = self.client.xrange(keys.chat(game, room), message, message)
        shown = self._with_removals(game, room, found)
        return shown[0] if shown else None

    def remove(self, game: str, message: str, how: str, by: str) -> bool:
        """Record ``message`` as ``deleted`` (by its author) or ``hidden`` (by a moderator); the
        first removal stands. False when it was removed already."""
        key = keys.chat_removed(game)
        record = json.dumps({"how": how, "by": by, "at": int(time.time() * 1000)})
        return bool(self.store.durably(key, lambda c: c.hsetnx(key, message, record)))

    def _with_removals(self, game: str, room: str, entries: list[Any]) -> list[dict[str, Any]]:
        if not entries:
            return []
        ids = [text(entry_id) for entry_id, _ in entries]
        removals = self.client.hmget(keys.chat_removed(game), ids)
        return [
            _shown(
                game,
                room,
                message,
                {text(k): text(v) for k, v in fields.items()},
                json.loads(removed) if removed else None,
            )
            for message, (_, fields), removed in zip(ids, entries, removals)
        ]


def _shown(
    game: str, room: str, message: str, fields: dict[str, str], removed: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "id": message,
        "game": game,
        "room": room,
        "author": fields["author"],
        "seat": int(fields["seat"]) if fields.get("seat") else None,
        "text": None if removed else fields["text"],
        "at": int(fields["at"]),
        "removed": removed["how"] if removed else None,
    }
