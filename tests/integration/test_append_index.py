"""An append writes the game's lobby summary with its events, in the same script: the summary
is there exactly when the events are, and like every index write it never goes backwards."""

from __future__ import annotations

import fakeredis
import pytest

from domain import Options, fold, new_game
from events import keys
from events.projection import GameIndex, entry
from events.redis_store import RedisStore
from events.store import IdempotencyConflict, OutboxWrite, WrongExpectedVersion

CREATED = "2026-01-01T00:00:00+00:00"
EVENTS = new_game(Options(2), b"append-index")


def _listed(client, game: str) -> set[str]:
    """The shard listings that hold the game."""
    name = entry(game, CREATED)
    return {
        listing
        for listing in keys.LISTINGS
        if client.zscore(keys.index_listing(keys.shard(game), listing), name) is not None
    }


@pytest.fixture(params=["fakeredis", "redis"])
def client(request):
    return fakeredis.FakeRedis() if request.param == "fakeredis" else request.getfixturevalue("real_redis")


def test_the_summary_is_written_with_the_events(client, game_id):
    store, index = RedisStore(client), GameIndex(client)
    store.append(game_id, 0, EVENTS[:3], index=GameIndex.write(game_id, fold(EVENTS[:3]), CREATED))
    assert index.get(game_id)["version"] == 3
    store.append(
        game_id,
        3,
        EVENTS[3:],
        outbox=[OutboxWrite(game_id, '{"turn": 1}', 5)],
        index=GameIndex.write(game_id, fold(EVENTS), CREATED),
    )
    assert index.get(game_id)["version"] == len(EVENTS)
    assert store.outbox_entry(game_id) == ('{"turn": 1}', 5)
    assert _listed(client, game_id) == {"all", "active"}


def test_a_refused_append_writes_no_summary(client, game_id):
    store, index = RedisStore(client), GameIndex(client)
    store.append(game_id, 0, EVENTS[:3], command_id="c", command_hash="h")
    with pytest.raises(WrongExpectedVersion):
        store.append(game_id, 2, EVENTS[3:], index=GameIndex.write(game_id, fold(EVENTS), CREATED))
    with pytest.raises(IdempotencyConflict):
        store.append(
            game_id,
            3,
            EVENTS[3:],
            command_id="c",
            command_hash="other",
            index=GameIndex.write(game_id, fold(EVENTS), CREATED),
        )
    assert index.get(game_id) is None and _listed(client, game_id) == set()


def test_a_replayed_command_leaves_the_summary_as_it_is(client, game_id):
    store, index = RedisStore(client), GameIndex(client)
    store.append(
        game_id,
        0,
        EVENTS[:3],
        command_id="c",
        command_hash="h",
        index=GameIndex.write(game_id, fold(EVENTS[:3]), CREATED),
    )
    store.append(game_id, 3, EVENTS[3:], index=GameIndex.write(game_id, fold(EVENTS), CREATED))
    replay = store.append(
        game_id,
        0,
        EVENTS[:3],
        command_id="c",
        command_hash="h",
        index=GameIndex.write(game_id, fold(EVENTS[:3]), CREATED),
    )
    assert replay.duplicate
    assert index.get(game_id)["version"] == len(EVENTS)


def test_an_append_never_puts_an_older_summary_over_a_newer_one(client, game_id):
    store, index = RedisStore(client), GameIndex(client)
    index.record(game_id, fold(EVENTS), CREATED)  # a newer summary, written first by a racing writer
    store.append(game_id, 0, EVENTS[:3], index=GameIndex.write(game_id, fold(EVENTS[:3]), CREATED))
    assert index.get(game_id)["version"] == len(EVENTS)
