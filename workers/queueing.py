"""Handing turns to RQ: one job per claim of a turn's outbox entry (service/games.py)."""

from __future__ import annotations

import json
import os
from typing import Any

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from events.outbox import Claim, Outbox
from service.games import TurnTicket

QUEUE = os.environ.get("BLUEMOON_QUEUE", "bluemoon")
JOB_TIMEOUT = 60  #: seconds; a bot turn takes far less


class RQTurns:
    """The GameService's turn hook: enqueue ``workers.jobs.play_turn`` for each ticket. No RQ
    retry: a job that dies stops renewing its outbox lease, and the dispatcher claims the turn
    again (with a fallback level after repeated failures)."""

    def __init__(self, connection: Any, queue: str = QUEUE) -> None:
        self.queue = Queue(queue, connection=connection)

    def __call__(self, ticket: TurnTicket) -> None:
        self.queue.enqueue(
            "workers.jobs.play_turn",
            ticket.game,
            ticket.seat,
            ticket.turn,
            ticket.played_as or ticket.level,
            ticket.reason,
            payload=ticket.payload(),
            job_id=ticket.job_id,
            job_timeout=JOB_TIMEOUT,
            result_ttl=600,
            failure_ttl=86_400,
        )

    def waiting(self, ticket: TurnTicket) -> bool:
        """Whether ``ticket``'s job is still waiting for a worker (not lost, just queued)."""
        return self._waiting(ticket.job_id)

    def deliver(self, claim: Claim) -> None:
        """Enqueue ``workers.webhooks.deliver`` for a claimed delivery, unless the previous
        claim's job is merely still queued (then the lease is renewed instead)."""
        message = json.loads(claim.payload)["id"]
        job_id = f"wh-{message}-{claim.tries}"
        if claim.tries > 1 and self._waiting(f"wh-{message}-{claim.tries - 1}"):
            Outbox(self.queue.connection).renew(claim.name, claim.payload, tries=claim.tries - 1)
            return
        self.queue.enqueue(
            "workers.webhooks.deliver",
            claim.name,
            claim.payload,
            job_id=job_id,
            job_timeout=30,
            result_ttl=600,
            failure_ttl=86_400,
        )

    def _waiting(self, job_id: str) -> bool:
        try:
            status = Job.fetch(job_id, connection=self.queue.connection).get_status()
        except NoSuchJobError:
            return False
        return status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)
