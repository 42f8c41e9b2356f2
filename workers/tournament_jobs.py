"""The RQ job of a tournament's outbox entries (application/tournaments/rounds.py): its step
(``tn:<tournament>``), a game's result (``tn:<game>``) and a game played out by the clock
(``tn:<game>:end``). Each finishes its entry only after its work is written; run again after a
crash, each finds its work done (the document says so) and changes nothing twice."""

from __future__ import annotations

import json

from rq import get_current_job

from application.wiring import Components, build, connect, store_client_for_job, store_url
from workers.turn_jobs import play


def apply(name: str, payload: str) -> str:
    """The RQ job: the entry ``name``'s work."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    return apply_now(build(client=client), name, payload)


def apply_now(c: Components, name: str, payload: str) -> str:
    asked = json.loads(payload)
    if asked.get("end"):
        c.rounds.end_game(asked["game"], play)
        done = "ended"
    elif "game" in asked:
        c.rounds.record(asked["tournament"], asked["game"])
        done = "recorded"
    else:
        done = c.rounds.advance(asked["tournament"])
        if c.rounds.keep_step(name, payload):
            return done
    c.service.outbox.finish(name, payload)  # a step the work rewrote stays (it holds its new payload)
    return done
