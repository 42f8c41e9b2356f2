"""A game's chat notices as the live feeds follow them: each message posted and each removal, in
order, numbered ``0-<n>`` across the game's rooms (written with the message: messages.py).

A feed (events/feed.py) follows them as it follows a game's events, on channels of their own, so a
game's open streams and long polls wake for chat without it ever entering the game's log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from events import keys
from events.feed import Followed
from events.redis_store import text


@dataclass(frozen=True)
class ChatNotice:
    """One notice: a ``message`` posted (``message`` holds it as a read shows it) or one
    ``removed`` (``message`` holds its id, room and how it was removed, without words)."""

    seq: int  #: its number: a posted message's id is ``0-<seq>``
    kind: str  #: ``message`` or ``removed``
    room: str
    author: str  #: whose words it is about (a reader who mutes or blocks them never gets it)
    message: dict[str, Any]


def decode(fields: dict[Any, Any]) -> ChatNotice:
    found = {text(k): text(v) for k, v in fields.items()}
    seq, room = int(found["seq"]), found["room"]
    if found["kind"] == "removed":
        removal = json.loads(found["removal"])
        shown = {"id": found["message"], "room": room, "removed": removal["how"]}
        return ChatNotice(seq, "removed", room, found["author"], shown)
    return ChatNotice(seq, "message", room, found["author"], _message(found))


def _message(found: dict[str, str]) -> dict[str, Any]:
    return {
        "id": found["id"],
        "room": found["room"],
        "author": found["author"],
        "seat": int(found["seat"]) if found.get("seat") else None,
        "name": found.get("name", ""),
        "text": found["text"],
        "at": int(found["at"]),
        "removed": None,
    }


def last(client: Any, game: str) -> int:
    """The number of the game's last chat notice (0 before the first)."""
    found = client.xrevrange(keys.chat_notices(game), "+", "-", count=1)
    return int(text(found[0][0]).split("-")[1]) if found else 0


def read(client: Any, game: str, after: int, count: int) -> list[ChatNotice]:
    """Up to ``count`` notices after number ``after``, oldest first."""
    entries = client.xrange(keys.chat_notices(game), min=f"0-{after + 1}", count=count)
    return [decode(fields) for _, fields in entries]


#: What a live feed follows for chat: each game's notices, announced on its shard's channel (a
#: single Redis) or the game's sharded one (a cluster).
CHAT = Followed(keys.chat_notices, decode, last, keys.CHAT_NEWS, keys.chat_live, keys.game_of)
