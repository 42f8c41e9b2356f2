"""The moderation log: every moderator's action (a message hidden, an account suspended or let
back, a report resolved or dismissed) and every operator's grant or revocation of the role, one
entry each, appended and never rewritten. Moderators read it (``GET /moderation/log``).

One Redis stream (``{moderation}:log``) capped at MOST_LOG_ENTRIES, the oldest going first: at a
few hundred bytes an entry that is about 30 MB, years of a busy service's actions; an operator
who must keep more copies the stream out before then (``XRANGE``)."""

from __future__ import annotations

import time
from typing import Any

from events import keys
from events.redis_store import RedisStore, text

MOST_LOG_ENTRIES = 100_000  #: the log keeps its latest 100,000 entries (a documented number)
ACTIONS = ("hide", "suspend", "lift", "resolve", "dismiss", "grant", "revoke")
#: What an entry may name besides who, what, when and why: the action's subject and outcome.
DETAILS = ("account", "game", "room", "message", "report", "until")


class ModerationLog:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def record(self, by: str, action: str, reason: str, **details: Any) -> str:
        """Append one entry: ``by`` (a moderator's account, or ``operator``) did ``action`` for
        ``reason``; ``details`` name its subject. Returns the entry's id."""
        assert action in ACTIONS and set(details) <= set(DETAILS), (action, details)
        fields = {
            "by": by,
            "action": action,
            "reason": reason,
            "at": str(int(time.time() * 1000)),
            **{name: str(value) for name, value in details.items() if value is not None},
        }
        key = keys.MODERATION_LOG
        entry = self.store.durably(key, lambda c: c.xadd(key, fields, maxlen=MOST_LOG_ENTRIES, approximate=False))
        return text(entry)

    def read(self, limit: int, before: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """Up to ``limit`` entries, newest first, older than the entry ``before``; and the id to
        read on from (None on the last page)."""
        found = self.client.xrevrange(keys.MODERATION_LOG, "(" + before if before else "+", "-", count=limit + 1)
        entries = [_entry(text(entry_id), fields) for entry_id, fields in found[:limit]]
        return entries, entries[-1]["id"] if len(found) > limit else None


def _entry(entry_id: str, fields: dict[Any, Any]) -> dict[str, Any]:
    kept = {text(k): text(v) for k, v in fields.items()}
    entry: dict[str, Any] = {"id": entry_id, "at": int(kept.pop("at")), **kept}
    if "until" in entry:
        entry["until"] = int(entry["until"])
    return entry
