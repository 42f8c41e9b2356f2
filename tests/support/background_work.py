"""A toy kind of background work, added by a test to the table and the reactions' list only
(the two lines a new kind adds: docs/architecture.md), with its reaction and its job."""

from __future__ import annotations

import json

from rq import get_current_job

import application.reactions
import events.outbox
from application.background.work import DELIVERIES, WORK, Kind
from application.reactions import Change
from events.store import OutboxWrite

TOY_LEASE_MS = 2_000  #: the toy kind's lease: shorter than every real kind's
TOY = Kind("toy", "ty:", "tests.support.background_work.toy_job", DELIVERIES, TOY_LEASE_MS, 10, at_once=False)


def toy_reaction(change: Change) -> list[OutboxWrite]:
    """The toy's reaction: one entry per append, naming the version it reached."""
    payload = json.dumps({"id": f"toy_{change.after.version}", "version": change.after.version})
    return [OutboxWrite(f"{TOY.prefix}{change.game}", payload, events.outbox.now_ms())]


def toy_job(name: str, payload: str) -> str:
    """The toy's job (its row names it by this dotted path): notes the work done, then
    finishes the entry, as every job does when its work is over."""
    connection = get_current_job().connection
    connection.rpush(f"toy-done:{name}", payload)
    events.outbox.Outbox(connection).finish(name, payload)
    return "done"


def add_toy_kind(monkeypatch) -> Kind:
    """The toy's row in the table and its reaction in the list, for one test."""
    monkeypatch.setattr(WORK, "kinds", (*WORK.kinds, TOY))
    monkeypatch.setattr(application.reactions, "REACTIONS", (*application.reactions.REACTIONS, toy_reaction))
    return TOY
