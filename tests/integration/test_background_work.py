"""A kind of background work added to the table alone (and its reaction to the list) runs end to
end on the real Redis: the dispatcher claims its entry, RQ's adapter enqueues its job on the
queue its row names, and a real RQ worker on that queue runs it (tests/unit/
test_background_work.py checks the table itself)."""

from __future__ import annotations

import json
import uuid

import pytest
import redis
from rq import Queue, SimpleWorker

from application.background.rq_handoff import RQHandoff, queue_names
from application.games.game_service import SeatSpec
from application.wiring import build
from domain import Options
from domain.commands import EndTurn
from tests.support.background_work import add_toy_kind


@pytest.fixture
def toy_kind(monkeypatch):
    return add_toy_kind(monkeypatch)


def test_a_kind_added_to_the_table_runs_on_a_real_rq_worker(redis_url, toy_kind):
    """Its entry is left to the dispatcher, enqueued on its row's queue under its job id, and
    run once by an RQ worker on that queue, which finishes the entry."""
    client = redis.Redis.from_url(redis_url)
    queue = f"test-{uuid.uuid4().hex[:8]}"
    service = build(client=client, handoff=RQHandoff(client, queue=queue)).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    service.submit(created.game, EndTurn(0), expected=created.version, key="end")
    name = f"ty:{created.game}"
    toy_queue = Queue(queue_names(queue)[toy_kind.queue], connection=client)
    assert toy_queue.count == 0  # not a kind the appending process hands on: the dispatcher does
    assert service.dispatch(name) == 1  # this entry only: the shared Redis may hold other tests' work
    assert toy_queue.job_ids == [f"ty-{created.game}-1"]
    assert Queue(queue, connection=client).count == 0  # nothing on the turn queue
    SimpleWorker([toy_queue], connection=client).work(burst=True)
    done = [json.loads(p)["version"] for p in client.lrange(f"toy-done:{name}", 0, -1)]
    assert done == [service.state(created.game).version]  # the work of the latest append, once
    assert service.store.outbox_entry(name) is None  # finished by its job
    client.delete(f"toy-done:{name}")
    client.close()
