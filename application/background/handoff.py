"""Handing due outbox entries to the workers: the port the application plays work through.

The outbox (events/outbox.py) is the record of work; a queue only carries hand-offs. A claim
whose earlier job is merely still queued (no worker free yet, not lost) renews its lease
instead of enqueueing a second job: that rule lives here, once, for every kind of work. What a
kind's entries are called, what its job is given and where it runs is the table's
(application/background/work.py): nothing here names a kind.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any, Protocol

import redis

from application.background.work import WORK, Kind, Registry
from application.telemetry import request_ids
from events.outbox import Claim, Outbox

log = logging.getLogger("bluemoon.handoff")


class Handoff(Protocol):
    """Where claimed work goes: RQ in the service (application/background/rq_handoff.py), functions in
    tests."""

    def hand(self, kind: Kind, work: Any, job_id: str) -> None:
        """Start the job of ``kind`` on ``work`` (what ``kind.work`` made of the claim) as
        ``job_id``."""
        ...

    def queued(self, job_id: str) -> bool:
        """Whether the job ``job_id`` is still waiting for a worker (not lost, just queued)."""
        ...


class CallbackHandoff:
    """Work handed to functions in this process (tests): ``on_turn`` gets
    each turn's ticket, and ``on`` a function for any other kind, by the kind's name
    (``rating=claims.append``); work of a kind without one is left in the outbox."""

    def __init__(self, on_turn: Callable[[Any], None], **on: Callable[[Any], None]) -> None:
        self.on = {"turn": on_turn, **on}

    def hand(self, kind: Kind, work: Any, job_id: str) -> None:
        if kind.name in self.on:
            self.on[kind.name](work)

    def queued(self, job_id: str) -> bool:
        return False


class Dispatcher:
    """Claims due outbox entries and hands each to the workers (see module doc)."""

    def __init__(self, outbox: Outbox, handoff: Handoff | None, kinds: Registry = WORK) -> None:
        self.outbox = outbox
        self.handoff = handoff
        self.kinds = kinds

    def dispatch(self, name: str | None = None) -> int:
        """Hand due outbox entries (only the entry ``name``, if given) to the workers; returns
        how many. A failure here loses nothing: the entry stays leased and is claimed again
        when the lease ends."""
        if self.handoff is None:
            return 0
        try:
            claims = self.outbox.claim(name)
        except redis.RedisError as error:
            if name is None:
                raise  # the dispatcher backs off
            log.warning("could not claim %s now: %s (a dispatcher will)", name, error)
            return 0
        handed = 0
        for claim in claims:
            try:
                handed += self._hand_on(self.handoff, claim)
            except Exception as error:
                log.warning("could not hand on %s now: %s (it is claimed again after the lease)", claim.name, error)
        return handed

    def _hand_on(self, handoff: Handoff, claim: Claim) -> int:
        kind = self.kinds.of(claim.name)
        if claim.tries > 1 and handoff.queued(kind.job_id(dataclasses.replace(claim, tries=claim.tries - 1))):
            self.outbox.renew(claim.name, claim.payload, tries=claim.tries - 1)  # still queued, not lost
            return 0
        with request_ids.bound(request_ids.of_payload(claim.payload)):  # the job is the same request's work
            handoff.hand(kind, kind.work(claim), kind.job_id(claim))
        return 1
