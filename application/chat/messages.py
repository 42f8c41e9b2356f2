"""A game's chat rooms as stored: one Redis stream per room in the game's slot, apart from the
game's events (chat never changes the game; the audit never sees it).

A message is never rewritten: deleting it (its author) or hiding it (a moderator) records the
removal beside it, and every read shows a removed message as removed, without its words.
Rooms are capped at MOST_MESSAGES (the oldest go first).

Each write also appends a notice to the game's chat notices (``keys.chat_notices``), numbered
``0-<n>`` across both rooms, and announces it as an append is announced, in one script in the
game's slot: the live feeds (application/chat/notices.py) wake the game's open streams with it.
A message's id is its notice's (``0-<n>``), so no two messages of a game share one.
"""

from __future__ import annotations

import json
import time
from typing import Any

from redis.cluster import RedisCluster

from events import keys
from events.redis_store import RedisStore, text

ROOMS = ("seats", "spectators")  #: the seats' room; the spectators' room (seats may read it)
MOST_MESSAGES = 2000  #: a room keeps its latest 2,000 messages (a documented number)
LONGEST_MESSAGE = 500  #: characters in one message
NOTICES_KEPT = 500  #: notices kept for the live feeds (about: ``MAXLEN ~``); the rooms keep the messages
MARK_MS = 24 * 3600 * 1000  #: a retried request's mark is kept this long after the game's last chat write

# KEYS: room, notices, marks, announcement channel. ARGV: mark ('' for none), most messages, notices
# kept, mark lifetime (ms), 'publish' or 'spublish', game, room, then the message's fields as pairs.
# Returns the message's id, and 1 when it was made now (0: the mark's earlier message).
ADD = """
if ARGV[1] ~= '' then
  local made = redis.call('HGET', KEYS[3], ARGV[1])
  if made then return {made, 0} end
end
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local n = 1
if #top > 0 then n = tonumber(string.sub(top[1][1], 3)) + 1 end
local id = '0-' .. n
local fields = {}
for i = 8, #ARGV do table.insert(fields, ARGV[i]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], id, 'seq', n, 'kind', 'message', 'room', ARGV[7], 'id', id,
  unpack(fields))
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], id, unpack(fields))
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], id)
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
if ARGV[5] == 'publish' then redis.call('PUBLISH', KEYS[4], ARGV[6] .. ' ' .. n)
else redis.call('SPUBLISH', KEYS[4], n) end
return {id, 1}
"""

# KEYS: removals, notices, announcement channel, then each room. ARGV: message, record, notices kept,
# 'publish' or 'spublish', game, then each room's name. Returns the room of the message removed now,
# or '' (no such message, or removed already: the first removal stands).
REMOVE = """
local room, author = '', ''
for i = 4, #KEYS do
  local found = redis.call('XRANGE', KEYS[i], ARGV[1], ARGV[1])
  if #found > 0 then
    room = ARGV[i + 2]
    local fields = found[1][2]
    for j = 1, #fields, 2 do if fields[j] == 'author' then author = fields[j + 1] end end
  end
end
if room == '' or redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return '' end
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local n = 1
if #top > 0 then n = tonumber(string.sub(top[1][1], 3)) + 1 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '0-' .. n, 'seq', n, 'kind', 'removed', 'room', room,
  'message', ARGV[1], 'author', author, 'removal', ARGV[2])
if ARGV[4] == 'publish' then redis.call('PUBLISH', KEYS[3], ARGV[5] .. ' ' .. n)
else redis.call('SPUBLISH', KEYS[3], n) end
return room
"""


class ChatMessages:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client
        self._add = self.client.register_script(ADD)
        self._remove = self.client.register_script(REMOVE)
        self._cluster = isinstance(self.client, RedisCluster)

    def add(
        self, game: str, room: str, author: str, seat: int | None, words: str, name: str = "", mark: str = ""
    ) -> dict[str, Any]:
        """Keep a message (already checked) in ``room``; its id is its notice's (``0-<n>``).
        ``name``: the author's name as shown then; ``mark``: a retried request's, so that its
        message is made once (the first's is answered again)."""
        fields = {
            "author": author,
            "seat": "" if seat is None else str(seat),
            "text": words,
            "at": str(int(time.time() * 1000)),
            "name": name,
        }
        names = [keys.chat(game, room), keys.chat_notices(game), keys.chat_marks(game), self._channel(game)]
        args: list[Any] = [mark, MOST_MESSAGES, NOTICES_KEPT, MARK_MS, self._publish, game, room]
        args += [part for pair in fields.items() for part in pair]
        made, _ = self.store.durably(names[0], lambda c: self._add(keys=names, args=args, client=c))
        if mark:
            return self.one(game, room, text(made)) or _shown(game, room, text(made), fields, None)
        return _shown(game, room, text(made), fields, None)

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
        first removal stands, and a notice tells the live feeds. False when it was removed
        already, or no room of the game holds it."""
        names = [keys.chat_removed(game), keys.chat_notices(game), self._channel(game)]
        names += [keys.chat(game, room) for room in ROOMS]
        record = json.dumps({"how": how, "by": by, "at": int(time.time() * 1000)})
        args: list[Any] = [message, record, NOTICES_KEPT, self._publish, game, *ROOMS]
        return bool(text(self.store.durably(names[0], lambda c: self._remove(keys=names, args=args, client=c))))

    @property
    def _publish(self) -> str:
        return "spublish" if self._cluster else "publish"

    def _channel(self, game: str) -> str:
        return keys.chat_live(game) if self._cluster else keys.chat_news(game)

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
        "name": fields.get("name", ""),
        "at": int(fields["at"]),
        "removed": removed["how"] if removed else None,
    }
