"""Handing due outbox entries to the workers: the port the application plays work through.

The outbox (events/outbox.py) is the record of work; a queue only carries hand-offs. A claim
whose earlier job is merely still queued (no worker free yet, not lost) renews its lease
instead of enqueueing a second job: that rule lives here, once, for turns and deliveries.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Protocol

import redis

from application.background.turns import TurnTicket, fallback_level
from events.outbox import Claim, Outbox

log = logging.getLogger("bluemoon.handoff")
DELIVERY_PREFIX = "wh:"  #: outbox entries of webhook deliveries
RATING_PREFIX = "rt:"  #: the outbox entry of a finished rated game's rating; the others are games' turns
ALERT_PREFIX = "al:"  #: a person's turn alert (application/alerts/entries.py)


class Handoff(Protocol):
    """Where claimed work goes: RQ in the service (application/background/rq_handoff.py), a list in tests."""

    def play(self, ticket: TurnTicket) -> None: ...

    def deliver(self, claim: Claim, job_id: str) -> None: ...

    def rate(self, claim: Claim, job_id: str) -> None: ...

    def alert(self, claim: Claim, job_id: str) -> None: ...

    def queued(self, job_id: str) -> bool:
        """Whether the job ``job_id`` is still waiting for a worker (not lost, just queued)."""
        ...


class CallbackHandoff:
    """Turns (and ratings, given ``on_rate``) handed to functions in this process (tests, the
    examples recorder); deliveries are left in the outbox."""

    def __init__(self, on_turn: Callable[[TurnTicket], None], on_rate: Callable[[Claim], None] | None = None) -> None:
        self.on_turn = on_turn
        self.on_rate = on_rate

    def play(self, ticket: TurnTicket) -> None:
        self.on_turn(ticket)

    def deliver(self, claim: Claim, job_id: str) -> None:
        return None

    def rate(self, claim: Claim, job_id: str) -> None:
        if self.on_rate is not None:
            self.on_rate(claim)

    def alert(self, claim: Claim, job_id: str) -> None:
        return None

    def queued(self, job_id: str) -> bool:
        return False


def delivery_job_id(claim: Claim, tries: int | None = None) -> str:
    """A delivery's or an alert's job: named by its message id and the claim."""
    message = json.loads(claim.payload)["id"]
    return f"{claim.name[:2]}-{message}-{claim.tries if tries is None else tries}"


class Dispatcher:
    """Claims due outbox entries and hands each to the workers (see module doc)."""

    def __init__(self, outbox: Outbox, handoff: Handoff | None) -> None:
        self.outbox = outbox
        self.handoff = handoff

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
        delivery = claim.name.startswith((DELIVERY_PREFIX, ALERT_PREFIX))
        if claim.name.startswith(RATING_PREFIX):
            job_id, previous = f"rt-{claim.name[3:]}-{claim.tries}", f"rt-{claim.name[3:]}-{claim.tries - 1}"
        elif delivery:
            job_id, previous = delivery_job_id(claim), delivery_job_id(claim, claim.tries - 1)
        else:
            ticket = TurnTicket.from_payload(claim.payload, claim.tries)
            job_id, previous = ticket.job_id, dataclasses.replace(ticket, tries=claim.tries - 1).job_id
        if claim.tries > 1 and handoff.queued(previous):
            self.outbox.renew(claim.name, claim.payload, tries=claim.tries - 1)  # still queued, not lost
            return 0
        if claim.name.startswith(RATING_PREFIX):
            handoff.rate(claim, job_id)
            return 1
        if claim.name.startswith(ALERT_PREFIX):
            handoff.alert(claim, job_id)
            return 1
        if delivery:
            handoff.deliver(claim, job_id)
            return 1
        fallback = fallback_level(ticket)
        if fallback != ticket.level:
            log.warning(
                "turn %s of %s: claim %d, playing it as %s instead of %s",
                ticket.turn,
                ticket.game,
                ticket.tries,
                fallback,
                ticket.level,
            )
        handoff.play(dataclasses.replace(ticket, played_as=fallback))
        return 1
