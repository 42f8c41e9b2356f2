"""The RQ job that expires a challenge at its end (application/challenges/challenges.py).

Its outbox entry (``ch:<challenge>``) was written with the challenge, due when it expires. The
expiry is the same one-script answer as an accept's, so a challenge accepted meanwhile stays
accepted and the job only finishes the entry; a job run twice expires it once (the answer, the
news and the releases are each written once)."""

from __future__ import annotations

from rq import get_current_job

from application.wiring import Components, build, connect, store_client_for_job, store_url


def expire(name: str, payload: str) -> str:
    """The RQ job: expire the challenge ``payload`` (its id) if it is still waiting."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    return expire_now(build(client=client), name, payload)


def expire_now(c: Components, name: str, payload: str) -> str:
    found = c.challenges.expire(payload)
    if found is None:
        c.service.outbox.finish(name, payload)
        return "gone"
    if found["status"] == "open":  # claimed before its time (a clock ahead): due again at its end
        c.service.outbox.renew(name, payload, due_ms=found["expires"])
        return "waiting"
    c.service.outbox.finish(name, payload)
    return str(found["status"])
