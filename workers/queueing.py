"""Handing turns to RQ: one job per turn, its id unique per game and version."""
from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

from rq import Queue, Retry

from service.games import TurnTicket

QUEUE = os.environ.get("BLUEMOON_QUEUE", "bluemoon")
JOB_TIMEOUT = 60       #: seconds; a bot turn takes far less
RETRY = Retry(max=3, interval=[1, 3, 10])


class RQTurns:
    """The GameService's turn hook: enqueue ``workers.jobs.play_turn`` for each ticket."""

    def __init__(self, connection: Any, queue: str = QUEUE) -> None:
        self.queue = Queue(queue, connection=connection)

    def __call__(self, ticket: TurnTicket) -> None:
        job_id = f"{ticket.reason}-{ticket.game}-{ticket.version}"
        args = (ticket.game, ticket.seat, ticket.turn, ticket.level, ticket.reason)
        options: dict[str, Any] = dict(job_id=job_id, job_timeout=JOB_TIMEOUT, retry=RETRY, result_ttl=600)
        if ticket.delay:
            self.queue.enqueue_in(timedelta(seconds=ticket.delay), "workers.jobs.play_turn", *args, **options)
        else:
            self.queue.enqueue("workers.jobs.play_turn", *args, **options)
