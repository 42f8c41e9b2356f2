"""How far the archive is behind: ``bluemoon_archive_lag_seconds``, read from Redis at each scrape
of ``/metrics`` (application/telemetry/readings.py).

A finished game is due for its move ARCHIVE_AFTER_SECONDS after its end (its outbox entry
``ar:<game>``: application/archive/moves.py). The lag is how long the oldest game due has waited
past that, measured from its end (its index summary's ``updated``), not from its entry's score:
a claim pushes the score a lease ahead and a failed move comes due again a lease later, so a
score-based age would start again with every try while a broken archive kept every game in
Redis. 0 when no game is due. Entries a claim holds (scored up to a lease ahead) count; a game
waiting for its other work (renewed an hour ahead: moves.py ``RETRY_SECONDS``) counts again when
that hour is up. Bounded as the outbox's reading is: per shard one ZRANGEBYSCORE of at most
``SAMPLE`` entries, oldest first, and one HMGET of the summaries of the moves among them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from application import settings
from application.archive.moves import PREFIX
from application.background.work import WORK
from application.telemetry.readings import SAMPLE, Reading
from events import keys
from events.outbox import now_ms
from events.redis_store import text


def archive_lag_reading(store: Any) -> Reading:
    """``bluemoon_archive_lag_seconds`` (see the module's doc) on the store's Redis."""

    def read() -> Iterator[Metric]:
        now = now_ms()
        held_until = now + WORK["archive"].lease_ms  # a claimed move's entry is scored a lease ahead
        pipe = store.pipeline(transaction=False)
        for shard in range(keys.SHARDS):
            pipe.zrangebyscore(keys.outbox(shard)[1], "-inf", held_until, start=0, num=SAMPLE)
        due: dict[int, list[str]] = {}
        for shard, names in enumerate(pipe.execute()):
            games = [text(name)[len(PREFIX) :] for name in names if text(name).startswith(PREFIX)]
            if games:
                due[shard] = games
        ended: list[int] = []
        if due:
            pipe = store.pipeline(transaction=False)
            for shard, games in due.items():
                pipe.hmget(keys.index_summaries(shard), games)
            for found in pipe.execute():
                ended += [_ended_ms(raw) for raw in found if raw is not None]  # none: Redis let it go just now
        after_ms = settings.ARCHIVE_AFTER_SECONDS.read() * 1000
        lag = max([0, *(now - end - after_ms for end in ended)])
        yield GaugeMetricFamily(
            "bluemoon_archive_lag_seconds",
            "How long the oldest finished game due for its move to the archive (ARCHIVE_AFTER_SECONDS after "
            "its end) has waited past that in Redis (0: none waits)",
            value=lag / 1000,
        )

    return read


def _ended_ms(summary: bytes | str) -> int:
    """When a finished game's last events were appended (its end), from its index summary."""
    stamp = orjson.loads(summary)["updated"]
    return round(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
