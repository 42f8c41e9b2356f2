"""What a request reads of a game, in one round trip.

A request on a game needs the caller's seat (the owner of their token), the game's settings
(its meta, webhooks, the accounts that keep its seats, its clock, its pending turn), the events
after the state this process kept (application/repository.py) and, for a command, the record of
its Idempotency-Key. The game's own keys share one slot (events/keys.py), so one script reads
them all and answers with one JSON document: redis-py's parser costs per reply element, and the
replies of seven commands cost it twice what one document does. The token's owner is a key of
its own slot, read in the same pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

from domain import Game
from events import keys
from events.redis_store import decode_entry
from events.serialization import StoredEvent
from events.store import Appended

# KEYS: the game's meta, webhooks, seat accounts, clock, its shard's outbox payloads, its
# commands and its stream. ARGV: the game's turn entry in the outbox (its id), a command id
# ('' for none), the first stream id to read ('' for none). Answers one JSON array: the meta
# (HGETALL's flat list), the webhooks, the seat accounts and the clock likewise, the turn's
# outbox payload and the command's record (false when absent), and the stream's entries (an
# empty list or object when none: Lua's cjson writes an empty table as {}).
READ = """
local seen = false
if ARGV[2] ~= '' then seen = redis.call('HGET', KEYS[6], ARGV[2]) end
local entries = {}
if ARGV[3] ~= '' then entries = redis.call('XRANGE', KEYS[7], ARGV[3], '+') end
return cjson.encode({
  redis.call('HGETALL', KEYS[1]), redis.call('HVALS', KEYS[2]), redis.call('HGETALL', KEYS[3]),
  redis.call('HGETALL', KEYS[4]), redis.call('HGET', KEYS[5], ARGV[1]), seen, entries
})
"""


@dataclass(frozen=True)
class GameRead:
    """What one round trip read of a game for a request (``GameService.read``)."""

    seat: int | None  #: the caller's seat (None without a token)
    settings: dict[str, Any]
    state: Game | None  #: the current state, when this process kept an earlier one (else load it)
    key: str | None = None  #: the command id whose record was read
    seen: tuple[str, Appended] | None = None  #: that record: its command's hash and outcome


@dataclass(frozen=True)
class Found:
    """The replies of a read, as Redis gave them (hashes as dicts of text)."""

    meta: dict[str, str]
    webhooks: list[str]
    accounts: dict[str, str]
    clock: dict[str, str]
    pending: str | None  #: the payload of the game's turn in the outbox
    seen: str | None  #: the command id's record (``hash|first|last``)
    events: list[StoredEvent]
    owner: Any  #: the token's owner (``game:seat``), or None


class GameReader:
    def __init__(self, client: Any) -> None:
        self.client = client
        self._read = client.register_script(READ)  #: for its sha; run in a pipeline below

    def read(self, game: str, token_key: str | None, command_id: str | None, after: int | None) -> Found:
        """``game``'s keys, the owner under ``token_key`` (a token's key) and the events after
        version ``after`` (none when None): one round trip on one Redis, two on a cluster."""
        names = read_keys(game)
        args = [game, command_id or "", "" if after is None else f"0-{after + 1}"]
        if isinstance(self.client, RedisCluster):  # a cluster's pipelines run no scripts
            document = self._read(keys=names, args=args)
            owner = [self.client.get(token_key)] if token_key is not None else []
        else:
            document, *owner = self._pipelined(names, args, token_key)
        meta, hooks, accounts, clock, pending, seen, entries = orjson.loads(document)
        return Found(
            _pairs(meta),
            hooks or [],
            _pairs(accounts),
            _pairs(clock),
            pending or None,
            seen or None,
            [decode_entry(_pairs(fields)) for _, fields in entries or ()],
            owner[0] if owner else None,
        )

    def _pipelined(self, names: list[str], args: list[str], token_key: str | None) -> list[Any]:
        """The script and the token's owner in one pipeline; a server that lost its scripts (a
        restart, a failover) is given it again, once."""
        for attempt in (1, 2):
            try:
                with self.client.pipeline(transaction=False) as pipe:
                    pipe.evalsha(self._read.sha, len(names), *names, *args)
                    if token_key is not None:
                        pipe.get(token_key)
                    return list(pipe.execute())
            except NoScriptError:
                if attempt == 2:
                    raise
                self.client.script_load(READ)
        raise AssertionError("unreachable")


def read_keys(game: str) -> list[str]:
    """The keys READ reads: ``game``'s own, all in its slot."""
    return [
        keys.meta(game),
        keys.webhooks(game),
        keys.seat_accounts(game),
        keys.clock(game),
        keys.outbox_of(game)[0],
        keys.commands(game),
        keys.stream(game),
    ]


def _pairs(flat: list[str] | dict[str, Any]) -> dict[str, str]:
    """HGETALL's flat list as a dict (an empty one comes as {})."""
    return dict(zip(flat[::2], flat[1::2])) if flat else {}  # type: ignore[index]
