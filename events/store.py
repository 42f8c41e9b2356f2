"""The event store: append-only streams per game, exactly-once commands, snapshots.

``EventStore`` holds what every backend shares (loading a state from a snapshot plus the
events after it); ``InMemoryStore`` and ``RedisStore`` implement the storage primitives with
the same contract, which ``tests/contract`` checks against each of them.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from domain import Event, Game, evolve, fold

from . import keys
from .serialization import StoredEvent, from_record, now, to_record
from .snapshots import SNAPSHOT_SCHEMA, decode_state, encode_state

SNAPSHOT_EVERY = 50  #: write a snapshot when this many events follow the last one


class StoreError(Exception):
    """Base of the store's refusals."""


class WrongExpectedVersion(StoreError):
    """Someone appended first: the caller's view of the game is stale."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, the game is at {current}")
        self.expected = expected
        self.current = current


class IdempotencyConflict(StoreError):
    """A command id was reused for a different command."""


class NotReplicated(StoreError):
    """An append the primary took but no replica confirmed in time (WAIT): it may be lost in a
    failover. The caller retries with the same command id, which applies it at most once."""


class StreamBehind(StoreError):
    """The stream is shorter than a state this process knew: Redis lost its last writes."""


class InvalidRecord(StoreError):
    """A record failed validation; nothing was written."""


@dataclass(frozen=True, slots=True)
class Appended:
    """The outcome of an append: the events' sequence numbers, and whether this was a
    replay of a command already applied (then nothing new was written)."""

    first: int
    last: int
    duplicate: bool = False
    stored: list[StoredEvent] = field(default_factory=list)  #: what was written (not on a replay)


@dataclass(frozen=True, slots=True)
class OutboxWrite:
    """What an append does to one outbox entry (work the events ask for: a bot's turn, a
    webhook delivery), in the same atomic write: set the entry ``name`` to ``payload`` due at
    ``due_ms`` (epoch milliseconds), or clear it (``payload`` None). Dispatchers turn due
    entries into jobs (events/outbox.py), so no acknowledged command loses the work it started."""

    name: str
    payload: str | None
    due_ms: int = 0


@dataclass(frozen=True, slots=True)
class HashWrite:
    """Fields of a record in the game's slot (``key``) written by the append with its events: a
    record kept beside the stream that must never be behind an acknowledged append (the game's
    clock) and costs no round trip of its own."""

    key: str
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class IndexWrite:
    """The game's summary in the index of its shard (events/projection.py), written by the
    append with its events: the lobby is never behind an acknowledged append, and the summary
    costs no round trip of its own. As every index write, it never replaces a newer summary."""

    summary: str  #: the summary document, JSON; its ``version`` is the append's last
    listing: str  #: the game's name in the shard's listings (``projection.entry``)
    status: str  #: ``active`` or ``finished``


@dataclass(frozen=True, slots=True)
class Snapshot:
    version: int
    state: Game


class EventStore(ABC):
    """One game = one append-only stream, numbered from 1; the version is its length."""

    @abstractmethod
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
    ) -> Appended: ...

    @abstractmethod
    def outbox_entry(self, name: str) -> tuple[str, int] | None:
        """The outbox entry's payload and when it is due (epoch ms), if there is one."""

    @abstractmethod
    def read(self, game: str, after: int = 0, until: int | None = None) -> list[StoredEvent]:
        """Events with after < seq <= until, in order."""

    @abstractmethod
    def version(self, game: str) -> int: ...

    @abstractmethod
    def command(self, game: str, command_id: str) -> tuple[str, Appended] | None:
        """The hash and outcome recorded for a command id, if any."""

    def confirmed(self, game: str, command_id: str, seen: tuple[str, Appended]) -> tuple[str, Appended] | None:
        """``seen``, the record of ``command_id`` a caller read, once it is as durable as an
        append: a replay answers its command as acknowledged, and the append that wrote the record
        may have been refused as unconfirmed. None when the record is gone (the store lost that
        write), so the command is applied afresh. A store without replicas has nothing to wait for."""
        return seen

    @abstractmethod
    def _write_snapshot(self, game: str, version: int, schema: int, state: str) -> bool: ...

    @abstractmethod
    def _read_snapshot(self, game: str) -> tuple[int, int, str] | None: ...

    @abstractmethod
    def games(self) -> list[str]:
        """Every game id with a stream, for rebuilding projections."""

    def append(
        self,
        game: str,
        expected: int,
        events: Sequence[Event],
        *,
        actor: str = "system",
        command_id: str = "",
        command_hash: str = "",
        meta: str = "{}",
        outbox: Sequence[OutboxWrite] = (),
        writes_for: Callable[[list[StoredEvent]], Sequence[OutboxWrite | HashWrite]] | None = None,
        index: IndexWrite | None = None,
        record: HashWrite | None = None,
    ) -> Appended:
        """Append atomically if the stream is at ``expected``, writing ``outbox``, the game's
        ``index`` summary and its ``record`` fields with the events, and what ``writes_for``
        makes of the events as they will be stored (outbox writes, and the record if it makes
        one: an append writes at most one); a known command id with the same hash returns its
        original outcome and writes nothing."""
        if not events:
            raise InvalidRecord("nothing to append")
        at = now()
        records = [to_record(e, game, expected + i + 1, actor, command_id, at, meta) for i, e in enumerate(events)]
        stored = [
            StoredEvent(game, expected + i + 1, r["type"], int(r["schema"]), at, actor, command_id, meta, e)
            for i, (r, e) in enumerate(zip(records, events))
        ]
        made = list(writes_for(stored)) if writes_for else []
        writes = [*outbox, *(w for w in made if isinstance(w, OutboxWrite))]
        beside = [r for r in (record, *(w for w in made if isinstance(w, HashWrite))) if r is not None]
        if len(beside) > 1:
            raise InvalidRecord(f"an append to {game} writes at most one record, not {len(beside)}")
        record = beside[0] if beside else None
        if any(keys.owner(write.name) != game for write in writes):  # its shard's outbox is in its slot
            raise InvalidRecord(f"an append to {game} writes only {game}'s outbox entries")
        if record is not None and not record.key.startswith(keys.tag(game)):  # one slot: the game's
            raise InvalidRecord(f"an append to {game} writes only records in {game}'s slot")
        outcome = self._append_records(game, expected, records, command_id, command_hash, writes, index, record)
        if outcome.duplicate:
            return outcome
        return replace(outcome, stored=stored)

    def save_snapshot(self, game: str, state: Game) -> bool:
        """Store a snapshot unless one as new or newer is there; True when written."""
        return self._write_snapshot(game, state.version, SNAPSHOT_SCHEMA, encode_state(state))

    def snapshot(self, game: str) -> Snapshot | None:
        """The latest snapshot of the current schema, or None."""
        found = self._read_snapshot(game)
        if found is None or found[1] != SNAPSHOT_SCHEMA:
            return None
        return Snapshot(found[0], decode_state(found[2]))

    def load(self, game: str, *, snapshots: bool = True) -> Game | None:
        """The current state: the latest snapshot plus the events after it, writing a fresh
        snapshot once SNAPSHOT_EVERY events follow it; ``snapshots=False`` folds from the start
        and writes nothing. A snapshot newer than the stream (Redis lost its last writes in a
        crash, a failover or a restore) is passed over, and the game is folded from the start.
        Keeping recent states between requests is the application's (application/games/repository.py)."""
        snap = self.snapshot(game) if snapshots else None
        if snap is None:
            state, snapshotted = self._fold_all(game), 0
        else:
            try:
                state, snapshotted = self.advance(game, snap.state), snap.version
            except StreamBehind:
                state, snapshotted = self._fold_all(game), 0
        if snapshots and state is not None and state.version - snapshotted >= SNAPSHOT_EVERY:
            self.save_snapshot(game, state)
        return state

    def _fold_all(self, game: str) -> Game | None:
        everything = self.read(game)
        return fold(s.event for s in everything) if everything else None

    def advance(self, game: str, state: Game) -> Game:
        """``state`` with the events after it applied; StreamBehind when the stream no longer
        holds ``state``'s last event."""
        return caught_up(game, state, self.read(game, after=state.version - 1))

    def state_at(self, game: str, version: int) -> Game | None:
        """The state after ``version`` events (time travel), folded from the start."""
        state = None
        for stored in self.read(game, until=version):
            state = evolve(state, stored.event)
        return state


def caught_up(game: str, state: Game, stored: Sequence[StoredEvent]) -> Game:
    """``state`` with ``stored`` applied: the stream as read from ``state``'s own last event on
    (its first entry proves the stream still holds that state). StreamBehind when it does not."""
    if not stored or stored[0].seq != state.version:
        raise StreamBehind(f"{game}: the stream is shorter than version {state.version}")
    for s in stored[1:]:
        state = evolve(state, s.event)
    return state


def _check(records: list[dict[str, str]]) -> None:
    for r in records:
        if not r.get("type") or not r.get("schema", "").isdigit() or not r.get("data", "").startswith("{"):
            raise InvalidRecord(f"malformed record {r.get('type')!r}")


class InMemoryStore(EventStore):
    """A store in this process's memory: for unit tests and the contract's reference."""

    def __init__(self) -> None:
        self._streams: dict[str, list[dict[str, str]]] = {}
        self._commands: dict[str, dict[str, tuple[str, Appended]]] = {}
        self._snapshots: dict[str, tuple[int, int, str]] = {}
        self._outbox: dict[str, tuple[str, int]] = {}
        self.records: dict[str, dict[str, str]] = {}  #: the records appends wrote (HashWrite)
        self._lock = threading.Lock()

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
        """As RedisStore's, but an index summary is not kept: this store has no index."""
        with self._lock:
            _check(records)
            seen = self._commands.get(game, {}).get(command_id) if command_id else None
            if seen is not None:
                if seen[0] != command_hash:
                    raise IdempotencyConflict(f"command id {command_id} was used for another command")
                return Appended(seen[1].first, seen[1].last, duplicate=True)
            stream = self._streams.setdefault(game, [])
            if len(stream) != expected:
                raise WrongExpectedVersion(expected, len(stream))
            stream.extend(records)
            for write in outbox:
                if write.payload is None:
                    self._outbox.pop(write.name, None)
                else:
                    self._outbox[write.name] = (write.payload, write.due_ms)
            if record is not None:
                self.records.setdefault(record.key, {}).update(record.fields)
            outcome = Appended(expected + 1, expected + len(records))
            if command_id:
                self._commands.setdefault(game, {})[command_id] = (command_hash, outcome)
            return outcome

    def read(self, game: str, after: int = 0, until: int | None = None) -> list[StoredEvent]:
        stream = self._streams.get(game, [])
        return [from_record(r) for r in stream[after:until]]

    def version(self, game: str) -> int:
        return len(self._streams.get(game, []))

    def outbox_entry(self, name: str) -> tuple[str, int] | None:
        return self._outbox.get(name)

    def command(self, game: str, command_id: str) -> tuple[str, Appended] | None:
        return self._commands.get(game, {}).get(command_id)

    def _write_snapshot(self, game: str, version: int, schema: int, state: str) -> bool:
        with self._lock:
            old = self._snapshots.get(game)
            if old is not None and old[1] == schema and old[0] >= version:
                return False
            self._snapshots[game] = (version, schema, state)
            return True

    def _read_snapshot(self, game: str) -> tuple[int, int, str] | None:
        return self._snapshots.get(game)

    def games(self) -> list[str]:
        return list(self._streams)
