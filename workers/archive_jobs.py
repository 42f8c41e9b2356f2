"""The RQ job that moves a finished game to the archive (application/archive/moves.py), exactly
once: the entry ``ar:<game>`` leaves the outbox only when the move is complete, and a move run
again after a crash writes nothing twice."""

from __future__ import annotations

import json

from rq import get_current_job

from application.wiring import build, connect, store_client_for_job, store_url


def move(name: str, payload: str) -> str:
    """The RQ job: move the game the outbox entry ``name`` names."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    components = build(client=client)
    return components.mover.move(json.loads(payload)["game"])
