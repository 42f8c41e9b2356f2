"""A person's stream: what happens to them across all their games, one Redis stream per account.

A game's append cannot write it: the stream lives in the account's slot (``{acct:<id>}``), the
game in its shard's, and a Redis Cluster runs a script in one slot only. So the append writes an
outbox entry for each person it concerns, and that entry's job writes here
(application/person_stream/, workers/person_stream_jobs.py); so does the rating job.

A write is one script in the account's slot: the write's ``mark`` is checked and recorded with its
entries, so a job run twice (retried after a crash, or handed on twice) writes once. Entries are
numbered ``0-<n>``, n counting up from 1 for the account's lifetime (``keys.person_stream_last``,
which outlives trimming and lapsing): a client resumes after the number it has, and a number that
jumps by more than one tells it that entries were trimmed away. Each write is announced on the
account's channel, as an append is on its game's, so the live feeds (events/feed.py, ``PEOPLE``)
wake the person's open streams.

Retention: the last ``LENGTH`` entries (about: ``MAXLEN ~`` trims whole nodes of 100, so up to
100 more are kept), and the stream and its marks lapse ``IDLE_DAYS`` after their last write. A
write to an account that no longer exists is dropped (a deletion removes the stream).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.cluster import RedisCluster

from . import keys
from .feed import Followed
from .redis_store import RedisStore, text

LENGTH = 1_000  #: entries kept per person (``XADD MAXLEN ~``)
IDLE_DAYS = 30  #: a stream with no new entry for this long lapses (its numbering goes on)
MARKS_KEPT = 1_000  #: write marks kept per person: a job retried after more writes than this would write again
MARK_DIGITS = 16  #: a mark is kept as this many hex digits of its SHA-256 (64 bits: no two of a person's meet)

# KEYS: stream, last, marks, account, news channel. ARGV: mark, length, marks kept, lapse (ms),
# 'publish' or 'spublish', account, then for each entry its type, game, at and data (JSON).
# Returns -1 when the account is gone (nothing written), 0 when the mark was taken already, else
# the last entry's number.
WRITE = """
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
for i = 7, #ARGV, 4 do
  last = last + 1
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '0-' .. last,
    'seq', last, 'type', ARGV[i], 'game', ARGV[i + 1], 'at', ARGV[i + 2], 'data', ARGV[i + 3])
end
redis.call('SET', KEYS[2], last)
redis.call('ZADD', KEYS[3], last, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if ARGV[5] == 'publish' then
  redis.call('PUBLISH', KEYS[5], ARGV[6] .. ' ' .. last)
else
  redis.call('SPUBLISH', KEYS[5], last)
end
return last
"""


@dataclass(frozen=True)
class PersonEvent:
    """One entry of a person's stream, as read."""

    seq: int  #: its number: the id a client resumes after
    type: str
    game: str
    at: str  #: when it happened (ISO 8601, UTC)
    data: dict[str, Any]

    def document(self) -> dict[str, Any]:
        """As the API serves it."""
        return {"id": self.seq, "type": self.type, "game": self.game, "at": self.at, "data": self.data}


@dataclass(frozen=True)
class News:
    """An entry to write: what happened, in which game, when, and its fields."""

    type: str
    game: str
    at: str
    data: dict[str, Any]


def decode(fields: dict[Any, Any]) -> PersonEvent:
    """An entry's fields as read by XRANGE."""
    found = {text(k): text(v) for k, v in fields.items()}
    return PersonEvent(int(found["seq"]), found["type"], found["game"], found["at"], json.loads(found["data"]))


def _last(client: Any, account: str) -> int:
    return int(client.get(keys.person_stream_last(account)) or 0)


#: What a live feed follows for people's streams (events/feed.py): entries numbered as above,
#: announced on each account's channel.
PEOPLE = Followed(
    keys.person_stream,
    decode,
    _last,
    keys.PERSON_STREAM_NEWS,
    keys.person_stream_news,
    keys.account_of,
)


class PersonStreams:
    """Writing and reading people's streams (see module doc)."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client
        self._write = self.client.register_script(WRITE)

    def write(self, account: str, mark: str, news: Sequence[News]) -> int:
        """Append ``news`` to the account's stream unless a write marked ``mark`` was taken: the
        last entry's number; 0 for a mark taken already, -1 for an account that is gone."""
        if not news:
            return 0
        names = [
            keys.person_stream(account),
            keys.person_stream_last(account),
            keys.person_stream_marks(account),
            keys.account(account),
            keys.person_stream_news(account),
        ]
        publish = "spublish" if isinstance(self.client, RedisCluster) else "publish"
        kept = hashlib.sha256(mark.encode()).hexdigest()[:MARK_DIGITS]  # an entry's name is ~70 bytes
        args: list[Any] = [kept, LENGTH, MARKS_KEPT, IDLE_DAYS * 86_400_000, publish, account]
        for item in news:
            args += [item.type, item.game, item.at, json.dumps(item.data, sort_keys=True)]
        return int(self.store.durably(names[0], lambda c: self._write(keys=names, args=args, client=c)))

    def last(self, account: str) -> int:
        """The number of the account's last entry (0 before the first)."""
        return _last(self.client, account)

    def read(self, account: str, after: int, count: int) -> list[PersonEvent]:
        """Up to ``count`` entries after number ``after``, oldest first."""
        raw = self.client.xrange(keys.person_stream(account), min=f"0-{after + 1}", count=count)
        return [decode(fields) for _, fields in raw]

    def forget(self, account: str) -> None:
        """The account is deleted: its stream goes with it."""
        self.client.delete(
            keys.person_stream(account), keys.person_stream_last(account), keys.person_stream_marks(account)
        )
