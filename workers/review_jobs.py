"""The RQ job that reviews a finished game, exactly once (application/review/reviews.py), on the
reviews queue: seconds of CPU that no turn worker spends."""

from __future__ import annotations

from functools import partial

from rq import get_current_job

from application.review.computation import computed
from application.review.reviews import Reviews
from application.wiring import build, connect, store_client_for_job, store_url


def review(name: str, payload: str, tries: int) -> str:
    """The RQ job: review the game the outbox entry ``name`` names (its ``tries``-th claim)."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    service = build(client=client).service
    return Reviews(service.store, service.outbox).review(name, payload, tries, partial(computed, service))
