"""One contract for every event store backend: in memory, fakeredis, and a real Redis."""

from __future__ import annotations

import json

import fakeredis
import pytest

from domain import Options, decide, fold, legal_commands, new_game
from events import keys
from events.redis_store import RedisStore
from events.serialization import SCHEMA, from_record
from events.store import (
    HashWrite,
    IdempotencyConflict,
    InMemoryStore,
    InvalidRecord,
    OutboxWrite,
    WrongExpectedVersion,
)

SEED = b"contract"


@pytest.fixture(params=["memory", "fakeredis", "redis"])
def store(request):
    if request.param == "memory":
        return InMemoryStore()
    if request.param == "fakeredis":
        return RedisStore(fakeredis.FakeRedis())
    return RedisStore(request.getfixturevalue("real_redis"))


def opening():
    return new_game(Options(3), SEED)


def test_append_then_read_returns_the_same_events_in_order(store, game_id):
    events = opening()
    outcome = store.append(game_id, 0, events, command_id="create", command_hash="h")
    assert (outcome.first, outcome.last, outcome.duplicate) == (1, len(events), False)
    stored = store.read(game_id)
    assert [s.event for s in stored] == events
    assert [s.seq for s in stored] == list(range(1, len(events) + 1))
    assert all(s.game == game_id and s.command == "create" for s in stored)
    assert store.version(game_id) == len(events)


def test_read_a_range_by_version(store, game_id):
    events = opening()
    store.append(game_id, 0, events)
    assert [s.seq for s in store.read(game_id, after=2, until=4)] == [3, 4]
    assert [s.event for s in store.read(game_id, after=3)] == events[3:]
    assert store.read(game_id, after=len(events)) == []


def test_a_stale_version_is_refused_with_the_current_version(store, game_id):
    events = opening()
    store.append(game_id, 0, events)
    with pytest.raises(WrongExpectedVersion) as stale:
        store.append(game_id, 2, events[:1])
    assert stale.value.current == len(events)
    assert store.version(game_id) == len(events)


def test_a_repeated_command_id_returns_the_original_outcome_and_writes_nothing(store, game_id):
    events = opening()
    first = store.append(game_id, 0, events, command_id="c1", command_hash="same")
    again = store.append(game_id, 0, events, command_id="c1", command_hash="same")
    assert again.duplicate and (again.first, again.last) == (first.first, first.last)
    assert store.version(game_id) == len(events)
    digest, outcome = store.command(game_id, "c1")
    assert digest == "same" and outcome.last == first.last


def test_a_command_id_reused_for_another_command_is_refused(store, game_id):
    events = opening()
    store.append(game_id, 0, events, command_id="c1", command_hash="one")
    with pytest.raises(IdempotencyConflict):
        store.append(game_id, len(events), events[:1], command_id="c1", command_hash="two")
    assert store.version(game_id) == len(events)


def test_an_append_that_fails_validation_writes_nothing(store, game_id):
    events = opening()
    good = [
        {
            "type": "GameCreated",
            "schema": "1",
            "game": game_id,
            "seq": "1",
            "at": "t",
            "actor": "system",
            "command": "",
            "data": "{}",
        }
    ]
    bad = [*good, dict(good[0], type="")]
    with pytest.raises(InvalidRecord):
        store._append_records(game_id, 0, bad, "cmd", "h", [OutboxWrite(game_id, "work", 1)])
    assert store.outbox_entry(game_id) is None
    assert store.version(game_id) == 0 and store.command(game_id, "cmd") is None
    store.append(game_id, 0, events, command_id="cmd", command_hash="h")  # the id is still free
    assert store.version(game_id) == len(events)


def test_snapshot_plus_tail_equals_the_full_fold(store, game_id):
    import random

    events = opening()
    state = fold(events)
    rnd = random.Random(3)
    for _ in range(40):
        events += decide(state, rnd.choice(list(legal_commands(state, state.turn.seat))))
        state = fold(events)
    store.append(game_id, 0, events[:30])
    mid = fold(events[:30])
    assert store.save_snapshot(game_id, mid)
    store.append(game_id, 30, events[30:])
    assert store.snapshot(game_id).version == 30
    assert store.load(game_id) == store.load(game_id, snapshots=False) == fold(events)
    assert store.state_at(game_id, 12) == fold(events[:12])


def test_a_snapshot_never_replaces_a_newer_one(store, game_id):
    events = opening()
    store.append(game_id, 0, events)
    newer = fold(events)
    older = fold(events[:3])
    assert store.save_snapshot(game_id, newer)
    assert not store.save_snapshot(game_id, older)
    assert store.snapshot(game_id).version == newer.version


def test_a_snapshot_of_another_schema_is_ignored(store, game_id):
    events = opening()
    store.append(game_id, 0, events)
    store._write_snapshot(game_id, 3, 999, "{}")
    assert store.snapshot(game_id) is None
    assert store.load(game_id) == fold(events)


def test_a_v1_event_written_by_hand_is_upcast_on_read():
    record = {
        "type": "ContributionMade",
        "schema": "1",
        "game": "g",
        "seq": "9",
        "at": "2026-01-01T00:00:00Z",
        "actor": "0",
        "command": "",
        "data": json.dumps({"seat": 0, "building": "earth_temple", "space": 2, "cards": ["red-3a"]}),
    }
    stored = from_record(record)
    assert stored.schema == SCHEMA["ContributionMade"] == 2
    assert stored.event.colour == "red" and stored.event.hoax == () and stored.event.cards == ("red-3a",)


def test_a_game_created_before_rules_had_versions_plays_by_rules_1():
    data = {"players": 2, "edition": "cmon", "expansion": False, "layout": "standard", "grid": [["courtyard", 2, 2]]}
    record = {"type": "GameCreated", "schema": "1", "game": "g", "seq": "1", "at": "t", "actor": "system"}
    stored = from_record({**record, "command": "", "data": json.dumps({**data, "commitment": "c", "seed": None})})
    assert stored.schema == SCHEMA["GameCreated"] == 2 and stored.event.rules == 1


def test_upcasting_through_the_store(store, game_id):
    store.append(game_id, 0, opening()[:1])
    raw = {
        "type": "ContributionMade",
        "schema": "1",
        "game": game_id,
        "seq": "2",
        "at": "t",
        "actor": "0",
        "command": "",
        "data": json.dumps({"seat": 0, "building": "royal_palace", "space": 0, "cards": ["red-3a"], "colour": "red"}),
    }
    store._append_records(game_id, 1, [raw], "", "", [])
    assert store.read(game_id, after=1)[0].event.hoax == ()


def test_games_lists_every_stream(store, game_id):
    store.append(game_id, 0, opening())
    assert game_id in store.games()


def test_the_game_index_is_rebuilt_from_the_streams(real_redis, game_id):
    from events.projection import GameIndex

    store = RedisStore(real_redis)
    events = opening()
    store.append(game_id, 0, events)
    index = GameIndex(real_redis)
    index.record(game_id, fold(events[:3]), "2026-01-01T00:00:00+00:00")
    index.record(game_id, fold(events), "2026-01-01T00:00:00+00:00")
    index.record(game_id, fold(events[:4]), "2026-01-01T00:00:00+00:00")  # older: ignored
    assert index.get(game_id)["version"] == len(events)
    real_redis.hdel(keys.index_summaries(keys.shard(game_id)), game_id)
    assert index.get(game_id) is None
    count, broken = index.rebuild(store)
    assert count >= 1 and game_id not in broken
    rebuilt = index.get(game_id)
    assert rebuilt["version"] == len(events) and rebuilt["turn"] == fold(events).turn.seat


def test_a_long_lived_process_keeps_writing_snapshots(store, game_id):
    """A process whose cache always holds the game still snapshots every SNAPSHOT_EVERY events,
    so that a cold process never folds a long tail."""
    import random

    from events.store import SNAPSHOT_EVERY

    store.append(game_id, 0, opening())
    rnd = random.Random(4)
    for _ in range(SNAPSHOT_EVERY * 3):
        state = store.load(game_id)
        if state.finished:
            break
        store.append(game_id, state.version, decide(state, rnd.choice(list(legal_commands(state, state.turn.seat)))))
    newest = store.load(game_id)
    snap = store.snapshot(game_id)
    assert snap is not None and newest.version - snap.version < SNAPSHOT_EVERY + 20
    assert snap.state == fold(s.event for s in store.read(game_id, until=snap.version))


def test_outbox_entries_are_written_with_their_events_and_only_with_them(store, game_id):
    events = opening()
    other = f"wh:{game_id}:delivery"
    store.append(
        game_id, 0, events[:2], outbox=[OutboxWrite(game_id, "bot turn at 2", 1000), OutboxWrite(other, "hook", 5)]
    )
    assert store.outbox_entry(game_id) == ("bot turn at 2", 1000) and store.outbox_entry(other) == ("hook", 5)
    with pytest.raises(WrongExpectedVersion):  # refused: neither events nor outbox written
        store.append(game_id, 0, events[2:], outbox=[OutboxWrite(game_id, "never", 5)])
    assert store.outbox_entry(game_id) == ("bot turn at 2", 1000)
    store.append(game_id, 2, events[2:3])  # no outbox write: the entries stay
    assert store.outbox_entry(game_id) == ("bot turn at 2", 1000)
    store.append(game_id, 3, events[3:], outbox=[OutboxWrite(game_id, None)])  # the work is over
    assert store.outbox_entry(game_id) is None and store.version(game_id) == len(events)
    assert store.outbox_entry(other) == ("hook", 5)


def test_an_append_that_writes_another_games_outbox_entry_is_refused_and_writes_nothing(store, game_id):
    """A game's outbox entries live in its shard's outbox, in its hash slot: another game's
    entry may lie in another slot, which one script on a cluster cannot write."""
    with pytest.raises(InvalidRecord):
        store.append(game_id, 0, opening()[:2], outbox=[OutboxWrite(f"wh:{game_id}x:delivery", "hook", 5)])
    assert store.version(game_id) == 0 and store.outbox_entry(f"wh:{game_id}x:delivery") is None


def _record(store, key: str) -> dict[str, str]:
    if isinstance(store, InMemoryStore):
        return store.records.get(key, {})
    return {k.decode(): v.decode() for k, v in store.client.hgetall(key).items()}


def test_a_record_in_the_games_slot_is_written_with_its_events_and_only_with_them(store, game_id):
    """The game's clock is such a record: never behind an acknowledged turn."""
    events, key = opening(), keys.clock(game_id)
    store.append(game_id, 0, events[:2], record=HashWrite(key, (("turn", "1"), ("banks", "{}"))))
    assert _record(store, key) == {"turn": "1", "banks": "{}"}
    with pytest.raises(WrongExpectedVersion):  # refused: neither events nor the record written
        store.append(game_id, 0, events[2:], record=HashWrite(key, (("turn", "never"),)))
    assert _record(store, key) == {"turn": "1", "banks": "{}"}
    outbox = [OutboxWrite(game_id, "bot turn at 3", 1000)]
    store.append(game_id, 2, events[2:3], outbox=outbox, record=HashWrite(key, (("turn", "2"),)))
    assert _record(store, key) == {"turn": "2", "banks": "{}"} and store.outbox_entry(game_id) == (
        "bot turn at 3",
        1000,
    )
    other = next(g for g in (f"{game_id}{i}" for i in range(100)) if keys.tag(g) != keys.tag(game_id))
    with pytest.raises(InvalidRecord):  # another game's record lies in another slot
        store.append(game_id, 3, events[3:], record=HashWrite(keys.clock(other), (("turn", "3"),)))
    assert store.version(game_id) == 3 and _record(store, keys.clock(other)) == {}


def test_what_writes_for_makes_of_the_stored_events_is_written_with_them(store, game_id):
    """The reactions' writes (application/reactions/): outbox entries and at most one record,
    made of the events as the append stores them."""
    events, key = opening(), keys.clock(game_id)
    seen = []

    def made(stored):
        seen.extend(s.seq for s in stored)
        last = str(stored[-1].seq)
        return [OutboxWrite(game_id, f"turn at {last}", 7), HashWrite(key, (("turn", last),))]

    store.append(game_id, 0, events[:2], writes_for=made)
    assert seen == [1, 2] and store.outbox_entry(game_id) == ("turn at 2", 7) and _record(store, key) == {"turn": "2"}
    with pytest.raises(InvalidRecord):  # one record an append
        store.append(game_id, 2, events[2:3], record=HashWrite(key, (("turn", "x"),)), writes_for=made)
    assert store.version(game_id) == 2 and _record(store, key) == {"turn": "2"}
