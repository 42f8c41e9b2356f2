"""``bluemoon_archive_lag_seconds`` (application/archive/lag.py) on a scrape of ``/metrics``: it
grows while a finished game due for its move waits in Redis (claimed or not), and falls to 0 once
a real worker has moved it to the archive."""

from __future__ import annotations

import time

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from application.background.handoff import CallbackHandoff
from events import keys
from events.embedded import EmbeddedRedis
from events.outbox import now_ms
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.archive import work_done
from tests.support.scenarios import scenario_game
from tests.support.workers import Workers, wait_until

TOKEN = "archive-lag-" + str(time.time_ns())


def lag(api) -> float:
    answer = api.http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
        if sample.name == "bluemoon_archive_lag_seconds" or sample.labels.get("reading") == "archive"
    }
    assert samples["bluemoon_reading_ok"] == 1
    return samples["bluemoon_archive_lag_seconds"]


@pytest.mark.slow
def test_the_archive_lag_grows_while_a_due_game_waits_and_falls_when_a_worker_moves_it(tmp_path, monkeypatch):
    """Slow (about 5 s): a real worker process. A Redis of the test's own, so that no other test's
    games are due for their move in it."""
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    monkeypatch.setenv("ARCHIVE_AFTER_SECONDS", "1")  # due a second after the end
    server = EmbeddedRedis(tmp_path / "redis", persist=False)
    client = redis.Redis.from_url(server.url)
    workers = Workers(server.url, "archive-lag", logs=tmp_path)
    try:
        api = CheckedClient(
            create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff([].append), "RATE_LIMIT": 0})
        )
        components = api.app.extensions["bluemoon"]
        assert lag(api) == 0  # no game
        game, tokens = scenario_game(
            api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[]
        )
        legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
        offer = next(c for c in legal["commands"] if c["type"] == "offer")
        api.post(f"/games/{game}/commands", token=tokens[0], json=offer, headers={"If-Match": f'"{legal["version"]}"'})
        assert api.get(f"/games/{game}").json["status"] == "finished"
        work_done(components, game)  # its news and alerts, as workers would: the move waits for nothing else
        assert lag(api) == 0  # not due yet: a second after its end
        first = wait_until(lambda: lag(api) or None, 30, "the move to fall due")
        time.sleep(1)
        assert lag(api) >= first + 0.9  # it waits on: no worker
        assert components.service.outbox.claim(f"ar:{game}")  # a claim whose job never ran: held a lease ahead
        assert lag(api) >= first + 0.9, "measured from the game's end, not restarted by a claim"
        client.zadd(keys.outbox_of(f"ar:{game}")[1], {f"ar:{game}": now_ms()})  # its lease run out (not 10 s on)
        workers.start()  # its dispatcher hands the move to its turn queue
        wait_until(lambda: not client.exists(keys.meta(game)), 30, "the worker's move")
        assert components.mover.archive.has(game)
        assert lag(api) == 0
    finally:
        workers.stop_all()
        client.close()
        server.stop()
