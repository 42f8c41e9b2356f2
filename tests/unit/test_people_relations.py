"""Follow, mute, block, what a person allows, and suspensions, on fakeredis."""

from __future__ import annotations

import fakeredis
import pytest

from application.people.relations import NotAllowed, Relations, SelfRelation, TooManyRelations
from application.people.suspensions import AccountSuspended, Suspensions
from application.refusals import ServiceError
from events.redis_store import RedisStore


@pytest.fixture
def store() -> RedisStore:
    return RedisStore(fakeredis.FakeRedis())


def test_a_follow_is_one_way_and_counted_on_the_followed(store):
    relations = Relations(store)
    relations.follow("ada", "bob")
    relations.follow("ada", "bob")  # a retry changes nothing
    assert relations.following("ada") == ["bob"] and relations.following("bob") == []
    assert relations.follows("ada", "bob") and not relations.follows("bob", "ada")
    assert relations.follower_count("bob") == 1
    relations.unfollow("ada", "bob")
    assert relations.following("ada") == [] and relations.follower_count("bob") == 0


def test_a_blocked_person_cannot_follow_and_a_block_ends_their_following(store):
    relations = Relations(store)
    relations.follow("mallory", "ada")
    relations.block("ada", "mallory")
    assert relations.following("mallory") == [] and relations.follower_count("ada") == 0
    with pytest.raises(NotAllowed) as refused:
        relations.follow("mallory", "ada")
    assert "block" not in refused.value.detail  # they see that they cannot, not why
    assert relations.blocks("ada", "mallory") and not relations.blocks("mallory", "ada")
    relations.unblock("ada", "mallory")
    relations.follow("mallory", "ada")


def test_nobody_follows_mutes_or_blocks_themselves(store):
    relations = Relations(store)
    for act in (relations.follow, relations.mute, relations.block):
        with pytest.raises(SelfRelation):
            act("ada", "ada")
    assert not relations.following("ada") and not relations.muted("ada") and not relations.blocked("ada")


def test_mutes_are_a_set_per_person(store):
    relations = Relations(store)
    relations.mute("ada", "bob")
    assert relations.muted("ada") == {"bob"} and relations.muted("bob") == set()
    relations.unmute("ada", "bob")
    assert relations.muted("ada") == set()


def test_who_may_challenge_follows_the_challenged_persons_policy(store):
    relations = Relations(store)
    assert relations.privacy("ada") == {"challenges": "everyone", "friends_public": True}
    assert relations.may_challenge("bob", "ada") and not relations.may_challenge("ada", "ada")
    relations.set_privacy("ada", challenges="followed")
    assert not relations.may_challenge("bob", "ada")
    relations.follow("ada", "bob")
    assert relations.may_challenge("bob", "ada")
    relations.set_privacy("ada", challenges="nobody", friends_public=False)
    assert relations.privacy("ada") == {"challenges": "nobody", "friends_public": False}
    assert not relations.may_challenge("bob", "ada")
    relations.set_privacy("ada", challenges="everyone")
    relations.block("ada", "bob")
    assert not relations.may_challenge("bob", "ada")


def test_relations_are_capped(store, monkeypatch):
    monkeypatch.setattr("application.people.relations.MOST_RELATIONS", 2)
    relations = Relations(store)
    relations.mute("ada", "b1")
    relations.mute("ada", "b2")
    relations.mute("ada", "b2")  # already there: no new place taken
    with pytest.raises(TooManyRelations):
        relations.mute("ada", "b3")
    assert relations.muted("ada") == {"b1", "b2"}


def test_a_suspension_refuses_until_it_ends_and_can_be_lifted(store):
    suspensions = Suspensions(store)
    suspensions.refuse_if_suspended("ada")
    found = suspensions.suspend("ada", 3600, "abuse in chat", by="mod")
    assert found["reason"] == "abuse in chat" and found["by"] == "mod"
    with pytest.raises(AccountSuspended) as refused:
        suspensions.refuse_if_suspended("ada")
    assert refused.value.extra["until"] == found["until"]
    suspensions.refuse_if_suspended("bob")
    suspensions.refuse_if_suspended(None)
    suspensions.lift("ada")
    suspensions.refuse_if_suspended("ada")


def test_a_suspension_has_a_bounded_length(store):
    suspensions = Suspensions(store)
    for seconds in (0, -5, 366 * 24 * 3600):
        with pytest.raises(ServiceError):
            suspensions.suspend("ada", seconds, "x", by="mod")
    assert suspensions.suspension("ada") is None
