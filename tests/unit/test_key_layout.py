"""The key layout is ready for a Redis Cluster: a game's keys and its shard's outbox share one
hash slot, and games spread evenly over the primaries of a cluster."""

from __future__ import annotations

import bisect
import random
import uuid
from collections import Counter

from redis.crc import key_slot

from events import keys


def _slot(key: str) -> int:
    return key_slot(key.encode())


def test_a_games_keys_and_its_shards_outbox_share_one_hash_slot():
    game = uuid.UUID(int=7).hex
    names = [keys.stream(game), keys.commands(game), keys.snapshot(game), keys.meta(game), keys.webhooks(game)]
    names += [keys.webhook_log(game, "wh_1"), *keys.outbox_of(game), *keys.outbox_of(f"wh:{game}:msg_1")]
    assert {_slot(name) for name in names} == {keys.slot(keys.SHARD_TAGS[keys.shard(game)])}


def test_each_shard_tag_lies_in_the_middle_of_its_own_share_of_the_slots():
    assert all(keys.slot(tag) in keys.band(i) for i, tag in enumerate(keys.SHARD_TAGS))
    assert [keys.slot(tag) * keys.SHARDS // keys.SLOTS for tag in keys.SHARD_TAGS] == list(range(keys.SHARDS))


def test_ten_thousand_new_games_spread_within_5_percent_over_three_primaries():
    rnd = random.Random(20)
    games = [uuid.UUID(int=rnd.getrandbits(128), version=4).hex for _ in range(10_000)]
    # Redis's own split of the slots among 3 primaries: 0-5460, 5461-10922, 10923-16383
    primary = Counter(bisect.bisect([5461, 10923], _slot(keys.stream(game))) for game in games)
    assert sorted(primary) == [0, 1, 2]
    assert all(abs(n - 10_000 / 3) <= 0.05 * 10_000 / 3 for n in primary.values()), primary


def test_a_key_names_its_game_and_an_outbox_entry_its_owner():
    game = uuid.UUID(int=9).hex
    assert keys.game_of(keys.stream(game)) == game == keys.game_of(keys.webhook_log(game, "wh_x"))
    assert keys.owner(game) == game == keys.owner(f"wh:{game}:msg_2:deadline")
