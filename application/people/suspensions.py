"""Suspensions: a moderator keeps an account from chatting, creating, joining or challenging
for a while. Its running games go on: its seats are played at their deadlines, as any
absent player's are. The suspension's key expires with it, so nothing has to lift it."""

from __future__ import annotations

import time
from typing import Any

from application.refusals import ServiceError
from events import keys
from events.redis_store import RedisStore, text

#: The longest suspension a moderator may give (a documented number): a year, in seconds.
LONGEST_SUSPENSION_S = 365 * 24 * 3600


class AccountSuspended(ServiceError):
    status, code, title = 403, "account_suspended", "This account is suspended"


class Suspensions:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def suspend(self, account: str, seconds: int, reason: str, by: str) -> dict[str, Any]:
        """Suspend ``account`` for ``seconds`` (1 to LONGEST_SUSPENSION_S), replacing any
        suspension it has; ``by`` is the moderator (or ``operator``)."""
        if not 0 < seconds <= LONGEST_SUSPENSION_S:
            raise ServiceError(f"seconds: from 1 to {LONGEST_SUSPENSION_S}", field="seconds")
        until = int(time.time() * 1000) + seconds * 1000
        key = keys.suspension(account)
        fields = {"until": str(until), "reason": reason, "by": by}

        def write(c: Any) -> Any:
            pipe = c.pipeline(transaction=True)
            pipe.hset(key, mapping=fields)
            pipe.pexpireat(key, until)
            return pipe.execute()

        self.store.durably(key, write)
        return self.suspension(account) or {}

    def lift(self, account: str) -> None:
        key = keys.suspension(account)
        self.store.durably(key, lambda c: c.delete(key))

    def suspension(self, account: str) -> dict[str, Any] | None:
        """The account's suspension (until, as epoch ms; reason; by), or None."""
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.suspension(account)).items()}
        if not found or int(found["until"]) <= int(time.time() * 1000):
            return None
        return {"until": int(found["until"]), "reason": found.get("reason", ""), "by": found.get("by", "")}

    def refuse_if_suspended(self, account: str | None) -> None:
        """AccountSuspended (with ``until``) when ``account`` is suspended; anyone else passes."""
        if account is None:
            return
        found = self.suspension(account)
        if found is not None:
            raise AccountSuspended(f"suspended until {found['until']} (epoch ms)", until=found["until"])
