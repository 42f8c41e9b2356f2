"""Failed jobs: what RQ keeps of each job that raised (its failed job registry, per queue), to
read, hand back to the queue, or delete.

A failed job's work is not lost: its outbox entry stays until the events say the work is done,
and a later claim hands it on again (application/background/handoff.py). Requeueing a failed
job by hand runs it again at once (each job is safe to run twice: workers/); deleting it only
forgets the failure.
"""

from __future__ import annotations

from typing import Any

from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import FailedJobRegistry

from application.background.rq_handoff import queue_names
from application.settings import BLUEMOON_QUEUE


class UnknownJob(LookupError):
    """No failed job of that id in any queue."""


def _registries(connection: Any, queue: str | None) -> dict[str, FailedJobRegistry]:
    names = queue_names(queue or BLUEMOON_QUEUE.read())
    return {name: FailedJobRegistry(queue=Queue(name, connection=connection)) for name in names.values()}


def failed(connection: Any, queue: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Up to ``limit`` failed jobs of each queue (the turn queue ``queue`` and its deliveries
    queue): id, queue, job, arguments, when it ended, and the last line of its error."""
    shown = []
    for name, registry in _registries(connection, queue).items():
        for job_id in registry.get_job_ids(0, limit - 1):
            try:
                job = Job.fetch(job_id, connection=connection)
            except NoSuchJobError:
                continue  # expired meanwhile
            result = job.latest_result()
            error = (result.exc_string if result is not None else None) or ""
            shown.append(
                {
                    "id": job_id,
                    "queue": name,
                    "job": job.func_name,
                    "args": [str(a) for a in job.args],
                    "ended": job.ended_at.isoformat() if job.ended_at else None,
                    "error": error.strip().splitlines()[-1] if error.strip() else "",
                }
            )
    return shown


def _holding(connection: Any, job_id: str, queue: str | None) -> FailedJobRegistry:
    for registry in _registries(connection, queue).values():
        if job_id in registry:
            return registry
    raise UnknownJob(f"no failed job {job_id!r}")


def requeue(connection: Any, job_id: str, queue: str | None = None) -> str:
    """Put the failed job back on its queue; returns the queue's name."""
    registry = _holding(connection, job_id, queue)
    registry.requeue(job_id)
    return registry.name.removeprefix("rq:failed:")


def delete(connection: Any, job_id: str, queue: str | None = None) -> None:
    """Forget the failed job (its record and its place in the registry)."""
    registry = _holding(connection, job_id, queue)
    registry.remove(job_id, delete_job=True)
