"""A game's chat notices (fakeredis): one numbering across both rooms, so no two messages of a
game share an id; each write and removal is a notice the live feeds read; a retried request's
mark makes its message once."""

from __future__ import annotations

import fakeredis

from application.chat import notices
from application.chat.messages import ChatMessages
from events.redis_store import RedisStore


def test_both_rooms_share_one_numbering_and_each_removal_is_a_notice_without_words():
    client = fakeredis.FakeRedis()
    chat = ChatMessages(RedisStore(client))
    ids = [chat.add("g1", room, "ada", 0, f"hi {n}")["id"] for n, room in enumerate(["seats", "spectators", "seats"])]
    assert ids == ["0-1", "0-2", "0-3"]
    assert chat.remove("g1", "0-2", "deleted", "ada")
    assert not chat.remove("g1", "0-9", "deleted", "ada")  # no room holds it: nothing recorded
    assert chat.one("g1", "seats", "0-1")["removed"] is None  # the other room's message of the same game stays
    found = notices.read(client, "g1", 0, 10)
    assert [(n.seq, n.kind, n.room) for n in found] == [
        (1, "message", "seats"),
        (2, "message", "spectators"),
        (3, "message", "seats"),
        (4, "removed", "spectators"),
    ]
    assert found[3].message == {"id": "0-2", "room": "spectators", "removed": "deleted"} and found[3].author == "ada"
    assert found[0].message["text"] == "hi 0" and notices.last(client, "g1") == 4
    assert [n.seq for n in notices.read(client, "g1", 2, 10)] == [3, 4] and notices.last(client, "g2") == 0


def test_a_retried_requests_mark_makes_its_message_once():
    chat = ChatMessages(RedisStore(fakeredis.FakeRedis()))
    first = chat.add("g1", "seats", "ada", 0, "rematch?", mark="m1")
    again = chat.add("g1", "seats", "ada", 0, "rematch?", mark="m1")
    assert first["id"] == again["id"] and len(chat.read("g1", "seats")) == 1
