"""A game's chat rooms as stored, on fakeredis: kept apart from the game, removals recorded beside."""

from __future__ import annotations

import fakeredis

from application.chat.messages import ChatMessages
from events import keys
from events.redis_store import RedisStore


def test_messages_are_kept_in_order_and_removed_ones_lose_their_words():
    chat = ChatMessages(RedisStore(fakeredis.FakeRedis()))
    sent = [chat.add("g1", "seats", "ada", 0, f"hello {n}") for n in range(12)]
    assert [m["text"] for m in chat.read("g1", "seats")] == [f"hello {n}" for n in range(12)]
    assert chat.read("g1", "seats", after=sent[9]["id"]) == sent[10:]
    assert chat.remove("g1", sent[3]["id"], "deleted", "ada")
    assert not chat.remove("g1", sent[3]["id"], "hidden", "mod")  # the first removal stands
    shown = chat.one("g1", "seats", sent[3]["id"])
    assert shown is not None and shown["text"] is None and shown["removed"] == "deleted"
    around = chat.around("g1", "seats", sent[6]["id"], each_side=2)
    assert [m["id"] for m in around] == [m["id"] for m in sent[4:9]]
    assert chat.read("g1", "spectators") == [] and chat.read("g2", "seats") == []


def test_a_rooms_keys_are_in_its_games_slot():
    game = "abc123"
    tag = keys.tag(game)
    assert keys.chat(game, "seats").startswith(tag) and keys.chat_removed(game).startswith(tag)
    assert keys.stream(game) != keys.chat(game, "seats")
