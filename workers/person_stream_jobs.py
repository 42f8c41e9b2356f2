"""The RQ job that writes one outbox entry's news into its person's stream, once
(application/person_stream/entries.py, events/person_streams.py).

The append (or a rematch's acceptance) wrote the entry ``<prefix><game>:<what>:<account>``; the
appending process hands it on at once. The write is marked with the entry's name, so a job that
dies after writing and is run again on the next claim finds its write taken and only finishes the entry.
Each item is also handed to the webhook of every app the person allowed (application/outbound/app_webhooks.py).
"""

from __future__ import annotations

import json

from rq import get_current_job

from application.outbound.app_webhooks import hand_on
from application.person_stream.entries import write as write_news
from application.wiring import Components, build, connect, store_client_for_job, store_url
from events.person_streams import News


def write(name: str, payload: str) -> str:
    """The RQ job: the entry ``name``'s news into its person's stream."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    return write_now(build(client=client), name, payload)


def write_now(c: Components, name: str, payload: str) -> str:
    written = write_news(c.person_streams, name, payload)
    if written >= 0:  # (again when written already: a job that died before handing on hands on now, once)
        found = json.loads(payload)
        hand_on(c.client, name, found["account"], [News(**n) for n in found["news"]])
    c.service.outbox.finish(name, payload)
    if written == 0:
        return "written already"
    return "the account is gone" if written < 0 else "written"
