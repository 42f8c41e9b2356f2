"""Overdue work: outbox entries (events/outbox.py) that no dispatcher took when they were due,
or whose jobs keep dying, and handing one on again by hand.

An entry due now is claimed within a dispatcher's round (0.2 s) and its due time moved to the end
of its lease; a job renews it while it works. So an entry whose due time passed more than a
lease ago has not been claimed or renewed since: no dispatcher runs, or its jobs die. An entry
claimed several times (``tries``) had jobs that died: a turn's fallback level follows from it
(application/background/turns.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from application.background.handoff import Dispatcher
from application.background.work import WORK
from events import keys
from events.outbox import Outbox, now_ms
from events.redis_store import text

RETRIED = 2  #: claims of one entry after which it is listed even when not overdue (an earlier job died)


@dataclass(frozen=True)
class Overdue:
    name: str  #: the outbox entry
    kind: str  #: its row of application/background/work.py
    game: str
    due_ms: int  #: when it was due (or its lease ends)
    late_ms: int  #: how long past due (0: not yet, listed for its tries)
    tries: int  #: claims of its payload so far
    payload: str

    def shown(self) -> dict[str, Any]:
        return asdict(self)


def overdue(client: Any, grace_ms: int | None = None, at_ms: int | None = None) -> list[Overdue]:
    """Entries due more than ``grace_ms`` ago (default: each kind's lease), or claimed RETRIED
    times or more, most overdue first: one pipeline per shard's three keys."""
    at = now_ms() if at_ms is None else at_ms
    found: list[Overdue] = []
    with client.pipeline(transaction=False) as pipe:
        for shard in range(keys.SHARDS):
            payloads, due, tries = keys.outbox(shard)
            pipe.zrange(due, 0, -1, withscores=True)
            pipe.hgetall(tries)
            pipe.hgetall(payloads)
        answers = pipe.execute()
    for shard in range(keys.SHARDS):
        entries, tried, held = answers[3 * shard : 3 * shard + 3]
        tried = {text(k): int(v) for k, v in tried.items()}
        held = {text(k): text(v) for k, v in held.items()}
        for raw, score in entries:
            name = text(raw)
            try:
                kind = WORK.of(name)
            except KeyError:
                continue  # no kind runs it: not work the dispatcher could ever hand on
            late = at - int(score)
            grace = kind.lease_ms if grace_ms is None else grace_ms
            if late > grace or tried.get(name, 0) >= RETRIED:
                found.append(
                    Overdue(
                        name,
                        kind.name,
                        keys.owner(name),
                        int(score),
                        max(late, 0),
                        tried.get(name, 0),
                        held.get(name, ""),
                    )
                )
    return sorted(found, key=lambda o: o.due_ms)


class UnknownEntry(LookupError):
    """No outbox entry of that name."""


def requeue(outbox: Outbox, dispatcher: Dispatcher, name: str) -> int:
    """Make the entry ``name`` due now and hand it on at once (its job enqueued, as a
    dispatcher would); returns how many were handed on (1, or 0 when nothing takes work here)."""
    payload = outbox.client.hget(keys.outbox_of(name)[0], name)
    if payload is None:
        raise UnknownEntry(f"no outbox entry {name!r}")
    outbox.renew(name, text(payload), due_ms=now_ms())
    return dispatcher.dispatch(name)
