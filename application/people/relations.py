"""Follow, mute and block: what one person chooses about another.

Each is one-way and kept under the chooser's own key (a block of B is in A's ``blocks``), so
asking "does A keep B away?" reads one key of A's slot, on a cluster too. Following is also
written into the followed person's ``followers`` (their count on a profile); the two writes are
separate (two slots), and each is idempotent, so a retried follow heals a half-done one.

A block is never announced: the blocked person hears ``NotAllowed`` ("you cannot do that"),
never that they are blocked. Muting hides words only; a muted person may still play with you.
"""

from __future__ import annotations

import time
from enum import Enum
from typing import Any

from application.refusals import ServiceError
from events import keys
from events.redis_store import RedisStore, text

#: The most people one account may follow, mute or block, each (a documented quota).
MOST_RELATIONS = 1000


class ChallengePolicy(str, Enum):
    """Who may challenge a person to a game."""

    EVERYONE = "everyone"
    FOLLOWED = "followed"  #: the people the challenged person follows
    NOBODY = "nobody"


class NotAllowed(ServiceError):
    """The other person does not let you do this. It never says why (a block is private)."""

    status, code, title = 403, "not_allowed", "This person does not allow that"


class SelfRelation(ServiceError):
    status, code, title = 400, "self_relation", "You cannot do that to yourself"


class TooManyRelations(ServiceError):
    status, code, title = 409, "too_many_relations", "You follow, mute or block as many people as one may"


class Relations:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    # -- follow ---------------------------------------------------------------------------
    def follow(self, account: str, other: str) -> None:
        """Follow ``other``; refused (NotAllowed) when ``other`` blocks ``account``."""
        self._not_self(account, other)
        if self.blocks(other, account):
            raise NotAllowed("you cannot follow this person")
        stamp = int(time.time() * 1000)
        self._add_sorted(keys.follows(account), other, stamp)
        key = keys.followers(other)
        self.store.durably(key, lambda c: c.zadd(key, {account: stamp}, nx=True))

    def unfollow(self, account: str, other: str) -> None:
        self._remove_sorted(keys.follows(account), other)
        self._remove_sorted(keys.followers(other), account)

    def following(self, account: str) -> list[str]:
        """Whom ``account`` follows, earliest first."""
        return [text(m) for m in self.client.zrange(keys.follows(account), 0, -1)]

    def follows(self, account: str, other: str) -> bool:
        return self.client.zscore(keys.follows(account), other) is not None

    def follower_count(self, account: str) -> int:
        return int(self.client.zcard(keys.followers(account)))

    # -- mute and block -------------------------------------------------------------------
    def mute(self, account: str, other: str) -> None:
        self._not_self(account, other)
        self._add_member(keys.mutes(account), other)

    def unmute(self, account: str, other: str) -> None:
        key = keys.mutes(account)
        self.store.durably(key, lambda c: c.srem(key, other))

    def muted(self, account: str) -> set[str]:
        """Whose words ``account`` does not want to see."""
        return {text(m) for m in self.client.smembers(keys.mutes(account))}

    def block(self, account: str, other: str) -> None:
        """Keep ``other`` away from ``account``. A block also ends ``other``'s following of
        ``account`` (a blocked person cannot follow you)."""
        self._not_self(account, other)
        self._add_member(keys.blocks(account), other)
        self.unfollow(other, account)

    def unblock(self, account: str, other: str) -> None:
        key = keys.blocks(account)
        self.store.durably(key, lambda c: c.srem(key, other))

    def blocked(self, account: str) -> set[str]:
        return {text(m) for m in self.client.smembers(keys.blocks(account))}

    def blocks(self, account: str, other: str) -> bool:
        """Whether ``account`` keeps ``other`` away."""
        return bool(self.client.sismember(keys.blocks(account), other))

    def refuse_if_blocked(self, by: str, other: str, doing: str) -> None:
        """NotAllowed when ``by`` blocks ``other``: ``doing`` says what ``other`` cannot do."""
        if self.blocks(by, other):
            raise NotAllowed(f"you cannot {doing}")

    # -- what a person allows ---------------------------------------------------------------
    def privacy(self, account: str) -> dict[str, Any]:
        """Who may challenge ``account`` (everyone by default) and whether their friends list is
        public (yes by default)."""
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.privacy(account)).items()}
        return {
            "challenges": ChallengePolicy(found.get("challenges", ChallengePolicy.EVERYONE.value)).value,
            "friends_public": found.get("friends_public", "1") == "1",
        }

    def set_privacy(
        self, account: str, challenges: str | None = None, friends_public: bool | None = None
    ) -> dict[str, Any]:
        fields: dict[str, str] = {}
        if challenges is not None:
            fields["challenges"] = ChallengePolicy(challenges).value
        if friends_public is not None:
            fields["friends_public"] = "1" if friends_public else "0"
        if fields:
            key = keys.privacy(account)
            self.store.durably(key, lambda c: c.hset(key, mapping=fields))
        return self.privacy(account)

    def may_challenge(self, challenger: str, challenged: str) -> bool:
        """Whether ``challenged`` lets ``challenger`` challenge them: not blocked, and allowed by
        their policy (everyone, or only the people they follow, or nobody)."""
        if challenger == challenged or self.blocks(challenged, challenger):
            return False
        policy = self.privacy(challenged)["challenges"]
        if policy == ChallengePolicy.NOBODY.value:
            return False
        return policy == ChallengePolicy.EVERYONE.value or self.follows(challenged, challenger)

    def forget(self, account: str) -> None:
        """Remove everything about ``account``'s own relations (its deletion). Others' sets that
        name it keep a dead id, which no read shows (the account no longer exists)."""
        for other in self.following(account):
            self.unfollow(account, other)
        for key in (
            keys.follows(account),
            keys.followers(account),
            keys.mutes(account),
            keys.blocks(account),
            keys.privacy(account),
        ):
            self._delete(key)

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _not_self(account: str, other: str) -> None:
        if account == other:
            raise SelfRelation("you cannot do that to yourself", field="account")

    def _add_sorted(self, key: str, member: str, score: int) -> None:
        if self.client.zscore(key, member) is None and self.client.zcard(key) >= MOST_RELATIONS:
            raise TooManyRelations(f"at most {MOST_RELATIONS}", limit="MOST_RELATIONS")
        self.store.durably(key, lambda c: c.zadd(key, {member: score}, nx=True))

    def _remove_sorted(self, key: str, member: str) -> None:
        self.store.durably(key, lambda c: c.zrem(key, member))

    def _delete(self, key: str) -> None:
        self.store.durably(key, lambda c: c.delete(key))

    def _add_member(self, key: str, member: str) -> None:
        if not self.client.sismember(key, member) and self.client.scard(key) >= MOST_RELATIONS:
            raise TooManyRelations(f"at most {MOST_RELATIONS}", limit="MOST_RELATIONS")
        self.store.durably(key, lambda c: c.sadd(key, member))
