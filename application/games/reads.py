"""What a request reads of a game, in one round trip.

A request on a game needs the caller's seat (the owner of their token), the game's settings
(its meta, webhooks, the accounts that keep its seats, its clock, its pending turn), the events
after the state this process kept (application/games/repository.py) and, for a command, the records
of its Idempotency-Key (one for each seat it may be sent by: application/games/command_ids.py). The game's own keys share one slot (events/keys.py), so one script reads
them all and answers with one JSON document: redis-py's parser costs per reply element, and the
replies of seven commands cost it twice what one document does. The token's owner is a key of
its own slot, read in the same pipeline the first time this process meets the token; a token
never changes hands, so its owner is then remembered and the read is the script alone.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError

from domain import Game
from events import keys, redis_store
from events.archive import Archive
from events.redis_store import decode_entry
from events.serialization import StoredEvent
from events.store import Appended

OWNERS = 10_000  #: seat tokens whose owner a process remembers (about 200 bytes each)

# KEYS: the game's meta, webhooks, seat accounts, clock, its shard's outbox payloads, its
# commands and its stream. ARGV: the game's turn entry in the outbox (its id), the version this
# process keeps ('' for none), then the command ids whose records to read (none or more).
# Answers one JSON array: the meta (HGETALL's flat list), the webhooks, the seat accounts and the
# clock likewise, the turn's outbox payload, the commands' records (HMGET's list, false for
# each absent one; false when none was asked for), the stream's entries after the
# kept version (an empty list or object when none: Lua's cjson writes an empty table as {})
# and the stream's length (false without a kept version). Stream ids are 0-<seq> from 0-1 on
# and never trimmed, so the length says whether the stream still holds the kept version, and
# the usual request, on a game that has not moved, reads no entry: XLEN, not XRANGE (which
# cost the read script half its time).
READ = """
local seen = false
if #ARGV > 2 then seen = redis.call('HMGET', KEYS[6], unpack(ARGV, 3)) end
local entries, length = {}, false
if ARGV[2] ~= '' then
  length = redis.call('XLEN', KEYS[7])
  if length > tonumber(ARGV[2]) then entries = redis.call('XRANGE', KEYS[7], '0-' .. (ARGV[2] + 1), '+') end
end
return cjson.encode({
  redis.call('HGETALL', KEYS[1]), redis.call('HVALS', KEYS[2]), redis.call('HGETALL', KEYS[3]),
  redis.call('HGETALL', KEYS[4]), redis.call('HGET', KEYS[5], ARGV[1]), seen, entries, length
})
"""


@dataclass(frozen=True)
class GameRead:
    """What one round trip read of a game for a request (``GameService.read``)."""

    seat: int | None  #: the caller's seat (None without a token)
    settings: dict[str, Any]
    state: Game | None  #: the current state, when this process kept an earlier one (else load it)
    #: the command ids whose records were read, each with its record (its command's hash and
    #: outcome) or None when the id names no command yet
    records: dict[str, tuple[str, Appended] | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Found:
    """The replies of a read, as Redis gave them (hashes as dicts of text)."""

    meta: dict[str, str]
    webhooks: list[str]
    accounts: dict[str, str]
    clock: dict[str, str]
    pending: str | None  #: the payload of the game's turn in the outbox
    seen: dict[str, str | None]  #: each command id's record (``hash|first|last``), None when absent
    #: the events after the kept version, or None when the stream no longer holds that version
    #: (Redis lost its last writes); empty without a kept version
    events: list[StoredEvent] | None
    owner: Any  #: the token's owner (``game:seat``), or None


class GameReader:
    def __init__(self, client: Any, owners: int = OWNERS, archive: Archive | None = None) -> None:
        self.client = client
        self.archive = archive  #: finished games moved out of Redis (events/archive.py)
        self._read = client.register_script(READ)  #: for its sha; run in a pipeline below
        self._owners: OrderedDict[str, Any] = OrderedDict()  #: token key -> owner, the known ones
        self._size = owners
        self._lock = threading.Lock()

    def read(self, game: str, token_key: str | None, command_ids: list[str], kept: int | None) -> Found:
        """``game``'s keys, the owner under ``token_key`` (a token's key), the records of
        ``command_ids`` and the events after version ``kept`` (none when None): one round trip
        on one Redis, two on a cluster."""
        names = read_keys(game)
        args = [game, "" if kept is None else str(kept), *command_ids]
        owner = self._owners.get(token_key) if token_key is not None else None
        if owner is not None or token_key is None:
            document = redis_store.run_script(self.client, self._read, names, args)
        elif isinstance(self.client, RedisCluster):  # a cluster's pipelines run no scripts
            document = self._read(keys=names, args=args)
            owner = self._remember(token_key, self.client.get(token_key))
        else:
            document, found = self._pipelined(names, args, token_key)
            owner = self._remember(token_key, found)
        meta, hooks, accounts, clock, pending, seen, entries, length = orjson.loads(document)
        if not meta and self.archive is not None and (parts := self.archive.parts(game)) is not None:
            return _archived(self, self.archive, game, parts, token_key, owner, command_ids, kept)
        events: list[StoredEvent] | None = []
        if kept is not None and length < kept:  # Redis lost writes this process saw
            events = None
        elif entries:
            events = [decode_entry(_pairs(fields)) for _, fields in entries]
        records = {command_id: found or None for command_id, found in zip(command_ids, seen or ())}
        return Found(
            _pairs(meta), hooks or [], _pairs(accounts), _pairs(clock), pending or None, records, events, owner
        )

    def _remember(self, token_key: str, owner: Any) -> Any:
        """Keep a token's owner once it has one: a token is never given to another seat."""
        if owner is not None:
            with self._lock:
                self._owners[token_key] = owner
                while len(self._owners) > self._size:
                    self._owners.popitem(last=False)
        return owner

    def _pipelined(self, names: list[str], args: list[str], token_key: str) -> list[Any]:
        """The script and the token's owner in one pipeline; a server that lost its scripts (a
        restart, a failover) is given it again, once."""
        for attempt in (1, 2):
            try:
                with self.client.pipeline(transaction=False) as pipe:
                    pipe.evalsha(self._read.sha, len(names), *names, *args)
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


def _archived(
    reader: GameReader,
    archive: Archive,
    game: str,
    parts: dict[str, Any],
    token_key: str | None,
    owner: Any,
    command_ids: list[str],
    kept: int | None,
) -> Found:
    """What ``read`` finds of a game moved to the archive: the same records, read there."""
    if token_key is not None and owner is None:
        digest = token_key.removeprefix(keys.token(""))
        owner = reader._remember(token_key, archive.owners([digest]).get(digest))
    commands = parts.get("commands", {})
    return Found(
        parts["meta"],
        list(parts.get("webhooks", {}).values()),
        parts.get("accounts", {}),
        parts.get("clock", {}),
        None,
        {command_id: commands.get(command_id) for command_id in command_ids},
        [] if kept is None else [decode_entry(fields) for fields in archive.events(game, after=kept)],
        owner,
    )
