"""The outbox entries that carry news to people's streams (kind ``person_stream``,
application/background/work.py), and what their job writes.

An entry is one write to one person's stream: named ``<prefix><game>:<what>:<account>`` (its game
first, so that it lives in the game's shard and an append can write it with its events), with the
account and the news as its payload. The entry's name is also the write's mark in the stream
(events/person_streams.py): a job that runs twice writes it once.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from application.background.work import WORK
from events.outbox import now_ms
from events.person_streams import News, PersonStreams
from events.store import OutboxWrite

PREFIX = WORK["person_stream"].prefix


def entries(game: str, what: str, news: dict[str, list[News]]) -> list[OutboxWrite]:
    """One entry per person, due now; ``what`` names the occasion within the game (an append's
    first version, a rematch's seat), so that no two occasions share a name."""
    at = now_ms()
    return [
        OutboxWrite(
            f"{PREFIX}{game}:{what}:{account}", json.dumps({"account": account, "news": [asdict(n) for n in items]}), at
        )
        for account, items in sorted(news.items())
        if items
    ]


def write(streams: PersonStreams, name: str, payload: str) -> int:
    """The job's work: the entry's news into its person's stream, marked with the entry's name
    (0 when written already, -1 when the account is gone)."""
    found: dict[str, Any] = json.loads(payload)
    return streams.write(found["account"], name, [News(**n) for n in found["news"]])
