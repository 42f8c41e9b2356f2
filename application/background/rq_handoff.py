"""The hand-off to RQ: one job per claim of an outbox entry (application/background/handoff.py), the job
and queue its kind's row names (application/background/work.py). The web process and the
workers each build one on their own connection and hand it to the wiring.

Two queues, served by different worker processes (cli/bluemoon_worker.py ``--queues``): the
game's own work (bot and deadline turns, ratings) on ``QUEUE``, and everything sent to other
people's servers (webhooks, and turn alerts by mail, Web Push, Discord and Slack) on its
deliveries queue. A receiver that never answers then holds only delivery workers: a bot's
reply never waits behind it. Games' reviews (application/review/), seconds of CPU each, go on a
third, ``<queue>-reviews``, which only the reviews workers take."""

from __future__ import annotations

from typing import Any

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from application.background.work import DELIVERIES, REVIEWS, TURNS, Kind
from application.settings import BLUEMOON_DELIVERY_QUEUE, BLUEMOON_QUEUE
from application.telemetry import request_ids

QUEUE = BLUEMOON_QUEUE.read()  #: turns and ratings


def delivery_queue(queue: str = QUEUE) -> str:
    """The deliveries queue beside the turn queue ``queue``: BLUEMOON_DELIVERY_QUEUE, else
    ``<queue>-deliveries``."""
    return BLUEMOON_DELIVERY_QUEUE.read() or f"{queue}-deliveries"


def queue_names(queue: str = QUEUE) -> dict[str, str]:
    """Each queue of the table (application/background/work.py) by its name in Redis, for the
    turn queue ``queue``."""
    return {TURNS: queue, DELIVERIES: delivery_queue(queue), REVIEWS: f"{queue}-reviews"}


class RQHandoff:
    """Enqueue each kind's job (application/background/work.py) on its queue, with a job id per
    claim. No RQ retry: a job that dies stops renewing its outbox lease, and the dispatcher
    claims the entry again (a turn with a fallback level after repeated failures)."""

    def __init__(self, connection: Any, queue: str = QUEUE, deliveries: str | None = None) -> None:
        names = {**queue_names(queue), **({DELIVERIES: deliveries} if deliveries else {})}
        self.queues = {kind: Queue(name, connection=connection) for kind, name in names.items()}
        self.connection = connection

    def hand(self, kind: Kind, work: Any, job_id: str) -> None:
        args, kwargs = kind.arguments(work)
        self.queues[kind.queue].enqueue(
            kind.job,
            *args,
            **kwargs,
            job_id=job_id,
            job_timeout=kind.timeout,
            result_ttl=600,
            failure_ttl=86_400,
            meta={request_ids.FIELD: request_ids.current()} if request_ids.current() else None,
        )

    def queued(self, job_id: str) -> bool:
        try:
            status = Job.fetch(job_id, connection=self.connection).get_status()
        except NoSuchJobError:
            return False
        return status in (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)
