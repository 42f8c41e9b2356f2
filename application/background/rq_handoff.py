"""The hand-off to RQ: one job per claim of an outbox entry (application/background/handoff.py). The web
process and the workers each build one on their own connection and hand it to the wiring.

Two queues, served by different worker processes (cli/bluemoon_worker.py ``--queues``): the
game's own work (bot and deadline turns, ratings) on ``QUEUE``, and everything sent to other
people's servers (webhooks, and turn alerts by mail, Web Push, Discord and Slack) on its
deliveries queue. A receiver that never answers then holds only delivery workers: a bot's
reply never waits behind it."""

from __future__ import annotations

from typing import Any

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from application.background.turns import TurnTicket
from application.settings import BLUEMOON_DELIVERY_QUEUE, BLUEMOON_QUEUE
from events.outbox import Claim

QUEUE = BLUEMOON_QUEUE.read()  #: turns and ratings


def delivery_queue(queue: str = QUEUE) -> str:
    """The deliveries queue beside the turn queue ``queue``: BLUEMOON_DELIVERY_QUEUE, else
    ``<queue>-deliveries``."""
    return BLUEMOON_DELIVERY_QUEUE.read() or f"{queue}-deliveries"


JOB_TIMEOUT = 60  #: seconds; a bot turn takes far less
DELIVERY_TIMEOUT = 30  #: seconds; a delivery waits at most 5 s for its receiver


class RQHandoff:
    """Enqueue ``workers.turn_jobs.play_turn`` for each turn (and ratings) on the turn queue, and
    ``workers.webhook_delivery.deliver`` and ``workers.alert_jobs.send`` on the deliveries queue.
    No RQ retry: a job that dies stops renewing its outbox lease, and the dispatcher claims the
    entry again (a turn with a fallback level after repeated failures)."""

    def __init__(self, connection: Any, queue: str = QUEUE, deliveries: str | None = None) -> None:
        self.queue = Queue(queue, connection=connection)
        self.deliveries = Queue(deliveries or delivery_queue(queue), connection=connection)

    def play(self, ticket: TurnTicket) -> None:
        self.queue.enqueue(
            "workers.turn_jobs.play_turn",
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

    def deliver(self, claim: Claim, job_id: str) -> None:
        self._claimed(self.deliveries, "workers.webhook_delivery.deliver", claim, job_id, DELIVERY_TIMEOUT)

    def rate(self, claim: Claim, job_id: str) -> None:
        self._claimed(self.queue, "workers.rating_jobs.rate", claim, job_id, JOB_TIMEOUT)

    def alert(self, claim: Claim, job_id: str) -> None:
        self._claimed(self.deliveries, "workers.alert_jobs.send", claim, job_id, DELIVERY_TIMEOUT)

    @staticmethod
    def _claimed(queue: Queue, job: str, claim: Claim, job_id: str, timeout: int) -> None:
        """Enqueue ``job`` with the claimed outbox entry's name and payload."""
        queue.enqueue(
            job, claim.name, claim.payload, job_id=job_id, job_timeout=timeout, result_ttl=600, failure_ttl=86_400
        )

    def queued(self, job_id: str) -> bool:
        try:
            status = Job.fetch(job_id, connection=self.queue.connection).get_status()
        except NoSuchJobError:
            return False
        return status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)
