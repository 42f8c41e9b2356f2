"""The event store on Redis Streams. One Lua script per write checks everything, then writes.

Stream entry ids are ``0-<seq>``, so an event's id is its sequence number and a range read
by version is one XRANGE. Streams are never trimmed. Command ids live in a per-game hash for
the life of the game. Production settings: see docs/operations.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from . import keys
from .archive import Archive
from .serialization import StoredEvent, from_record
from .store import (
    Appended,
    EventStore,
    HashWrite,
    IdempotencyConflict,
    IndexWrite,
    InvalidRecord,
    NotReplicated,
    OutboxWrite,
    WrongExpectedVersion,
)

FIELDS = ("type", "schema", "at", "actor", "meta", "data")
REPLICAS_RECHECK = 1.0  #: seconds a primary's count of connected replicas is trusted
log = logging.getLogger("bluemoon.store")

# A Lua function shared by the append script and the index's own (events/projection.py): store a
# game's summary in its shard's index (KEYS: summaries, then the listings all, active and
# finished) unless a newer one is there; a finished game leaves "active". 1 when stored.
RECORD_SUMMARY = """
local function record_summary(summaries, all, active, finished, game, version, summary, listing, status)
  local old = redis.call('HGET', summaries, game)
  if old and cjson.decode(old).version >= version then return 0 end
  redis.call('HSET', summaries, game, summary)
  redis.call('ZADD', all, 0, listing)
  if status == 'finished' then
    redis.call('ZREM', active, listing)
    redis.call('ZADD', finished, 0, listing)
  else
    redis.call('ZADD', active, 0, listing)
  end
  return 1
end
"""

# KEYS: stream, commands, the shard's outbox payloads, due and tries, then with an index write
# the shard's index summaries and listings (all, active, finished), then a record in the game's
# slot (HashWrite, the game's clock), and last, optionally, the game's live channel. ARGV: expected, command id, command hash, game, count, then count *
# len(FIELDS) values, then optionally the number of outbox writes and for each its entry name,
# payload ('' clears the entry) and due (ms), and after them optionally the index write: the
# summary, the listing entry and the status, and then the number of a record's fields (its key
# comes after the index's keys), each field and its value. Every check comes before the first write, so a
# refused or malformed append writes nothing; outbox entries and the summary are written with
# the events or not at all. With a live channel the append is announced to the live feeds, in
# the same slot: on a single Redis the shard's channel (keys.appended) gets '<game> <version>
# <records>' by PUBLISH (SPUBLISH needs Redis 7), the records a JSON array of ANNOUNCED_FIELDS
# arrays; on a Redis Cluster the game's own channel (keys.live) gets the new version by sharded
# pub/sub.
APPEND = (
    RECORD_SUMMARY
    + """
local expected = tonumber(ARGV[1])
local cid, chash, game, n = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local width = 6
local tail = 5 + (n or 0) * width
local writes = tonumber(ARGV[tail + 1] or '0')
if expected == nil or n == nil or n < 1 or writes == nil then
  return redis.error_reply('INVALID append arguments')
end
-- after the outbox writes: the index write (3 values) or not, then the record's field count
-- and its fields and values; what is left after the writes is odd without the index
local indexed, fields_at, fields = false, tail, 0
if #ARGV ~= tail then
  indexed = (#ARGV - tail - 1 - 3 * writes) % 2 == 0
  fields_at = tail + 1 + 3 * writes + (indexed and 3 or 0)
  fields = tonumber(ARGV[fields_at + 1] or '')
  if fields == nil or #ARGV ~= fields_at + 1 + 2 * fields then
    return redis.error_reply('INVALID append arguments')
  end
end
for i = 0, n - 1 do
  local base = 5 + i * width
  if ARGV[base + 1] == '' or not string.match(ARGV[base + 2], '^%d+$')
     or string.sub(ARGV[base + 6], 1, 1) ~= '{' then
    return redis.error_reply('INVALID record ' .. (i + 1))
  end
end
if cid ~= '' then
  local seen = redis.call('HGET', KEYS[2], cid)
  if seen then
    local h, first, last = string.match(seen, '^(.*)|(%d+)|(%d+)$')
    if h == chash then
      redis.call('HSET', KEYS[2], cid, seen)  -- a write, so that a WAIT after a replay covers the original
      return {'duplicate', tonumber(first), tonumber(last)}
    end
    return {'mismatch', tonumber(first), tonumber(last)}
  end
end
local current = redis.call('XLEN', KEYS[1])
if current ~= expected then return {'conflict', current, current} end
for i = 0, n - 1 do
  local base = 5 + i * width
  local seq = current + i + 1
  redis.call('XADD', KEYS[1], '0-' .. seq,
    'type', ARGV[base + 1], 'schema', ARGV[base + 2], 'game', game, 'seq', seq,
    'at', ARGV[base + 3], 'actor', ARGV[base + 4], 'command', cid, 'meta', ARGV[base + 5],
    'data', ARGV[base + 6])
end
if cid ~= '' then
  redis.call('HSET', KEYS[2], cid, chash .. '|' .. (current + 1) .. '|' .. (current + n))
end
for w = 0, writes - 1 do
  local name, payload, due = ARGV[tail + 2 + 3 * w], ARGV[tail + 3 + 3 * w], ARGV[tail + 4 + 3 * w]
  if payload == '' then
    redis.call('HDEL', KEYS[3], name)
    redis.call('ZREM', KEYS[4], name)
  else
    redis.call('HSET', KEYS[3], name, payload)
    redis.call('ZADD', KEYS[4], tonumber(due), name)
  end
  redis.call('HDEL', KEYS[5], name)
end
local live = 6
if indexed then
  local at = tail + 1 + 3 * writes
  record_summary(KEYS[6], KEYS[7], KEYS[8], KEYS[9], game, current + n, ARGV[at + 1], ARGV[at + 2], ARGV[at + 3])
  live = 10
end
if fields > 0 then
  for f = 1, fields do
    redis.call('HSET', KEYS[live], ARGV[fields_at + 2 * f], ARGV[fields_at + 2 * f + 1])
  end
  live = live + 1
end
if KEYS[live] and string.sub(KEYS[live], -9) == ':appended' then
  -- the records ride along, so that a process watching the game needs no read of them
  local records = {}
  for i = 0, n - 1 do
    local base = 5 + i * width
    records[i + 1] = {ARGV[base + 1], ARGV[base + 2], current + i + 1, ARGV[base + 3], ARGV[base + 4], cid,
      ARGV[base + 5], ARGV[base + 6]}
  end
  redis.call('PUBLISH', KEYS[live], game .. ' ' .. (current + n) .. ' ' .. cjson.encode(records))
elseif KEYS[live] then
  redis.call('SPUBLISH', KEYS[live], current + n)
end
return {'ok', current + 1, current + n}
"""
)

# KEYS: a game's commands. ARGV: a command id. Its record, written again as it is (a write, so
# that a WAIT after it covers the append that made it, as APPEND's duplicate branch does); nil
# and no write when there is none.
CONFIRM = """
local seen = redis.call('HGET', KEYS[1], ARGV[1])
if seen then redis.call('HSET', KEYS[1], ARGV[1], seen) end
return seen
"""

# KEYS: snapshot. ARGV: version, schema, state. Never replaces a newer snapshot of the
# same schema; a snapshot of another schema is always replaced.
SNAPSHOT = """
local old = redis.call('HMGET', KEYS[1], 'version', 'schema')
if old[1] and old[2] == ARGV[2] and tonumber(old[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'schema', ARGV[2], 'state', ARGV[3])
return 1
"""


def text(value: Any) -> str:
    """A Redis reply as text, whether the client decodes replies or not."""
    return value.decode() if isinstance(value, bytes) else str(value)


#: the fields of each record an announcement carries, in order (see APPEND)
ANNOUNCED_FIELDS = ("type", "schema", "seq", "at", "actor", "command", "meta", "data")


def announced_records(game: str, records: bytes | str) -> list[StoredEvent]:
    """The records an append's announcement carried (APPEND), as a read of the stream gives them."""
    return [
        from_record({"game": game, **dict(zip(ANNOUNCED_FIELDS, map(str, values), strict=True))})
        for values in orjson.loads(records)
    ]


def decode_entry(fields: dict[Any, Any]) -> StoredEvent:
    """A stream entry's fields as read by XRANGE or XREAD."""
    return from_record({text(k): text(v) for k, v in fields.items()})


def _bulk(value: Any) -> bytes:
    """An argument as a RESP bulk string (text as UTF-8, numbers as their digits)."""
    data = value if isinstance(value, bytes) else str(value).encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


def run_script(client: Any, script: Script, keys: Sequence[str], args: Sequence[Any]) -> Any:
    """``script(keys=keys, args=args)``: on a plain redis-py client (one Redis), packed in one piece
    and sent on a pooled connection, with redis-py's retry on a dropped connection but without its
    per-command machinery (argument encoding one by one, metrics, hooks), which cost a request's
    two scripts (its read and its append) more CPU than the rest of their round trips. A server
    that lost its scripts (a restart, a failover) is given it again, once. Other clients (a
    cluster, a pipeline, fakeredis) run it as redis-py does."""
    if type(client) is not redis.Redis:
        return script(keys=keys, args=args, client=client)
    head = b"*%d\r\n$7\r\nEVALSHA\r\n%s%s" % (3 + len(keys) + len(args), _bulk(script.sha), _bulk(len(keys)))
    packed = b"".join([head, *map(_bulk, keys), *map(_bulk, args)])
    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        for attempt in (1, 2):
            try:
                return connection.retry.call_with_retry(
                    lambda: _round_trip(connection, packed), lambda _error: connection.disconnect()
                )
            except NoScriptError:
                if attempt == 2:
                    raise
                client.script_load(script.script)
    finally:
        pool.release(connection)
    raise AssertionError("unreachable")


def _round_trip(connection: Any, packed: bytes) -> Any:
    connection.send_packed_command([packed])
    return connection.read_response()


def run_commands(client: Any, commands: Sequence[Sequence[Any]]) -> list[Any]:
    """``commands`` in one round trip, their replies as Redis gives them (no redis-py reply
    callbacks: ``SET`` answers b"OK" or None): on a plain redis-py client packed in one piece, as
    ``run_script`` sends a script; on other clients (a cluster, fakeredis) a pipeline. A
    connection whose replies were not all read is closed, so that none is read by the next user."""
    if type(client) is not redis.Redis:
        with client.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return list(pipe.execute())
    packed = b"".join(b"*%d\r\n%s" % (len(command), b"".join(map(_bulk, command))) for command in commands)

    def trip() -> list[Any]:
        connection.send_packed_command([packed])
        return [connection.read_response() for _ in commands]

    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        return connection.retry.call_with_retry(trip, lambda _error: connection.disconnect())
    except BaseException:
        connection.disconnect()
        raise
    finally:
        pool.release(connection)


def command_record(seen: Any) -> tuple[str, Appended] | None:
    """A command id's entry in the game's commands hash (``hash|first|last``) as ``command`` gives it."""
    if seen is None:
        return None
    digest, first, last = text(seen).rsplit("|", 2)
    return digest, Appended(int(first), int(last), duplicate=True)


class RedisStore(EventStore):
    """Works with redis-py clients: a real server, a cluster client, or fakeredis."""

    def __init__(
        self,
        client: Any,
        *,
        publish: bool = False,
        replicas: int = 0,
        wait_ms: int = 1000,
        archive: Archive | None = None,
    ) -> None:
        self.client = client
        self.archive = archive  #: finished games moved out of Redis: read from it when Redis has none
        self.publish = publish  #: announce each append to the live feeds (see APPEND)
        self.replicas = replicas  #: replicas that must confirm each append before it is acknowledged
        self.wait_ms = wait_ms  #: how long they may take; then NotReplicated
        self._replicas_seen: dict[str, tuple[float, int]] = {}  #: primary -> (when looked up, replicas connected)
        self._append = client.register_script(APPEND)
        self._snapshot = client.register_script(SNAPSHOT)
        self._confirm = client.register_script(CONFIRM)

    def _append_records(
        self,
        game: str,
        expected: int,
        records: list[dict[str, str]],
        command_id: str,
        command_hash: str,
        outbox: Sequence[OutboxWrite],
        index: IndexWrite | None = None,
        record: HashWrite | None = None,
    ) -> Appended:
        args: list[Any] = [expected, command_id, command_hash, game, len(records)]
        for r in records:
            args += [r.get(f, "{}") if f == "meta" else r[f] for f in FIELDS]
        shard = keys.shard(game)
        names = [keys.stream(game), keys.commands(game), *keys.outbox(shard)]  # one slot
        if outbox or index or record:
            args.append(len(outbox))
            for write in outbox:
                args += [write.name, write.payload or "", write.due_ms]
            if index:
                names += [keys.index_summaries(shard), *(keys.index_listing(shard, name) for name in keys.LISTINGS)]
                args += [index.summary, index.listing, index.status]
            if record is not None and record.fields:
                names.append(record.key)
                args.append(len(record.fields))
                for field, value in record.fields:
                    args += [field, value]
            else:
                args.append(0)
        if self.publish:
            names.append(keys.live(game) if isinstance(self.client, RedisCluster) else keys.appended(game))
        try:
            status, first, last = (
                run_script(self.client, self._append, names, args)
                if not self.replicas
                else self._confirmed(names, args)
            )
        except redis.ResponseError as error:
            if "INVALID" in str(error):
                raise InvalidRecord(str(error)) from error
            raise
        status = text(status)
        if status == "conflict":
            raise WrongExpectedVersion(expected, int(first))
        if status == "mismatch":
            raise IdempotencyConflict(f"command id {command_id} was used for another command")
        return Appended(int(first), int(last), duplicate=status == "duplicate")

    def _confirmed(self, names: list[str], args: list[Any]) -> list[Any]:
        """The append, then WAIT on the same connection (see ``_waited``)."""
        reply = self.durably(
            names[0],
            lambda pipe: self._append(keys=names, args=args, client=pipe),
            wrote=lambda reply: text(reply[0]) in ("ok", "duplicate"),  # a conflict wrote nothing
        )
        return list(reply)

    def confirmed(self, game: str, command_id: str, seen: tuple[str, Appended]) -> tuple[str, Appended] | None:
        """With replicas, the record as the primary has it now, once ``replicas`` confirmed it
        (``durably``): a retry found in a read of the record would otherwise answer 200 for an
        append that was refused 503 and that no replica has yet."""
        if not self.replicas:
            return seen
        name = keys.commands(game)
        found = self.durably(
            name, lambda pipe: self._confirm(keys=[name], args=[command_id], client=pipe), wrote=lambda r: r is not None
        )
        return command_record(found)

    def durably(self, key: str, write: Callable[[Any], Any], wrote: Callable[[Any], bool] = bool) -> Any:
        """``write`` (given a client, it writes ``key``) as durably as an append: with replicas
        configured, the write on the key's primary, then WAIT on the same connection (a pipeline of the
        two: WAIT covers the writes of its own connection) for ``replicas`` of them; returns the
        write's reply. Fewer confirmations raise NotReplicated: the write is not acknowledged. A
        primary with fewer replicas connected than that (ROLE; its replica was promoted away, died,
        or lost its link) takes no write at all until one is back: a replica cut off but alive can
        still be elected in its place, so a write only the primary holds may be lost with it."""
        if not self.replicas:
            return write(self.client)
        node = self.client.get_node_from_key(key) if isinstance(self.client, RedisCluster) else None
        primary = self.client.get_redis_connection(node) if node is not None else self.client
        name = node.name if node is not None else ""
        connected = self._connected_replicas(primary, name)
        if connected < self.replicas:
            raise NotReplicated(
                f"the primary {name or 'of the store'} has {connected} of {self.replicas} replicas connected: "
                "it takes no writes until one is back"
            )
        with primary.pipeline(transaction=False) as pipe:
            write(pipe)
            pipe.execute_command("WAIT", self.replicas, self.wait_ms)
            reply, confirmed = pipe.execute(raise_on_error=False)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(confirmed, redis.ResponseError) and str(confirmed).startswith("UNBLOCKED"):
            # The primary was demoted while it waited (a failover under a stopped node): its
            # write may be dropped when it resyncs with the new primary.
            raise NotReplicated(f"the primary was demoted before a replica confirmed the write ({confirmed})")
        if isinstance(confirmed, Exception):
            raise confirmed
        if wrote(reply) and int(confirmed) < self.replicas:
            self._replicas_seen.pop(name, None)  # look again before the next write: one may be gone
            raise NotReplicated(
                f"{int(confirmed)} of {self.replicas} replicas confirmed the write within {self.wait_ms} ms"
            )
        return reply

    def _connected_replicas(self, primary: Any, name: str) -> int:
        """How many replicas ``primary`` has connected now (ROLE), looked up at most once a second."""
        checked, count = self._replicas_seen.get(name, (0.0, 0))
        if time.monotonic() - checked > REPLICAS_RECHECK:
            role = primary.execute_command("ROLE")
            count = len(role[2]) if text(role[0]) == "master" else 0
            if count < self.replicas:
                log.warning(
                    "the primary %s has %d of %d replicas connected: it takes no writes until one is back",
                    name or "of the store",
                    count,
                    self.replicas,
                )
            self._replicas_seen[name] = (time.monotonic(), count)
        return count

    def read(self, game: str, after: int = 0, until: int | None = None) -> list[StoredEvent]:
        if (until is not None and until <= after) or after >= 2**63 - 1:
            return []
        if until is not None:
            until = min(until, 2**63 - 1)
        end = f"0-{until}" if until is not None else "+"
        entries: list[tuple[Any, dict[Any, Any]]] = self.client.xrange(keys.stream(game), f"0-{after + 1}", end)
        if not entries and (archive := self.moved(game)) is not None:
            return [decode_entry(fields) for fields in archive.events(game, after, until)]
        return [decode_entry(fields) for _, fields in entries]

    def version(self, game: str) -> int:
        found = int(self.client.xlen(keys.stream(game)))
        archive = self.moved(game) if not found else None
        return archive.version(game) if archive is not None else found

    def outbox_entry(self, name: str) -> tuple[str, int] | None:
        payloads, due_times, _ = keys.outbox_of(name)
        payload = self.client.hget(payloads, name)
        due = self.client.zscore(due_times, name)
        return None if payload is None or due is None else (text(payload), int(due))

    def command(self, game: str, command_id: str) -> tuple[str, Appended] | None:
        found = self.client.hget(keys.commands(game), command_id)
        archive = self.moved(game) if found is None else None
        if archive is not None and (parts := archive.parts(game)) is not None:
            found = parts.get("commands", {}).get(command_id)
        return command_record(found)

    def moved(self, game: str) -> Archive | None:
        """The archive, when ``game`` may be in it: Redis has no settings of it (every game's are
        written before its first event, and leave with the rest of it). One EXISTS, asked only after
        an empty answer from Redis: the archive is asked only about games Redis does not hold."""
        return self.archive if self.archive is not None and not self.client.exists(keys.meta(game)) else None

    def _write_snapshot(self, game: str, version: int, schema: int, state: str) -> bool:
        return bool(run_script(self.client, self._snapshot, [keys.snapshot(game)], [version, schema, state]))

    def _read_snapshot(self, game: str) -> tuple[int, int, str] | None:
        version, schema, state = self.client.hmget(keys.snapshot(game), "version", "schema", "state")
        if version is None or schema is None or state is None:
            return None
        return int(version), int(schema), text(state)

    def games(self) -> list[str]:
        return [keys.game_of(text(key)) for key in self.client.scan_iter(match=keys.STREAMS, count=1000)]
