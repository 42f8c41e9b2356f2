"""A finished game's review is computed by a real worker on the reviews queue, and recorded once,
even when the worker computing it is killed (application/review/reviews.py)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.registry import FinishedJobRegistry

from application.background.handoff import CallbackHandoff
from application.background.rq_handoff import RQHandoff, queue_names
from application.review.reviews import PREFIX
from events import keys
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.scenarios import ended_by_one_offering
from tests.support.workers import Workers, wait_until


@pytest.fixture
def queue():
    return f"reviews-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def api(redis_url, queue):
    """The API on the run's Redis, handing work to RQ on a queue of this test's own."""
    client = redis.Redis.from_url(redis_url)
    made = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    )
    yield made
    client.close()


def _horse(proc) -> bool:
    """Whether the worker has forked its work-horse."""
    return bool(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split())


def _jobs(client, name: str) -> tuple[list[str], list[str]]:
    """The review jobs of the RQ queue ``name``: queued or finished."""
    found = Queue(name, connection=client)
    finished = FinishedJobRegistry(name, connection=client).get_job_ids()
    return [j for j in found.job_ids if j.startswith("rv-")], [j for j in finished if j.startswith("rv-")]


@pytest.mark.slow
def test_a_finished_game_is_reviewed_once_by_the_job_on_the_reviews_queue(api, redis_url, queue, tmp_path):
    """Slow (a few seconds): a real ``bluemoon-worker --queues reviews`` process starts and computes."""
    client = api.app.extensions["bluemoon"].client
    game, _ = ended_by_one_offering(api)
    names = queue_names(queue)
    assert _jobs(client, names["reviews"])[0] == [f"rv-{game}-1"]  # enqueued at once, on its own queue
    assert api.get(f"/games/{game}/review").status_code == 202
    workers = Workers(redis_url, queue, logs=tmp_path)
    try:
        workers.start("reviews")
        wait_until(lambda: api.get(f"/games/{game}/review").status_code == 200, 60, "the review")
    finally:
        workers.stop_all()
    assert _jobs(client, names["reviews"]) == ([], [f"rv-{game}-1"])
    assert Job.fetch(f"rv-{game}-1", connection=client).return_value() == "reviewed"
    assert _jobs(client, names["turns"]) == ([], []) and _jobs(client, names["deliveries"]) == ([], [])
    assert client.hget(keys.outbox_of(PREFIX + game)[0], PREFIX + game) is None
    assert api.post(f"/games/{game}/review").status_code == 200  # asked again: nothing enqueued
    assert _jobs(client, names["reviews"])[0] == []


@pytest.mark.slow
def test_a_review_worker_killed_before_recording_loses_and_doubles_nothing(api, redis_url, queue, tmp_path):
    """Slow (about 20 s): the first worker computes the review and pauses before recording it
    (REVIEW_PAUSE_MS), renewing its entry's lease; it is SIGKILLed there, with its horse. Nothing is recorded; once the
    entry's lease runs out (10 s, no longer renewed), a worker's dispatcher hands it on again and
    the second job records the review, once."""
    client = api.app.extensions["bluemoon"].client
    game, _ = ended_by_one_offering(api)
    reviews = queue_names(queue)["reviews"]
    workers = Workers(redis_url, queue, logs=tmp_path)
    try:
        pausing = workers.start("reviews", REVIEW_PAUSE_MS="60000")
        due = keys.outbox_of(PREFIX + game)[1]
        asked = client.zscore(due, PREFIX + game)
        # its lease renewed: the job is computing or paused after computing (a horse killed as it forks never ran it)
        wait_until(lambda: (client.zscore(due, PREFIX + game) or 0) > asked and _horse(pausing), 30, "the renewal")
        workers.kill_with_horse(pausing)
        assert client.exists(keys.review(game)) == 0 and api.get(f"/games/{game}/review").status_code == 202
        workers.start("deliveries,reviews")  # its dispatcher claims the entry again after the lease
        wait_until(
            lambda: api.get(f"/games/{game}/review").status_code == 200, 240, "the review, taken again"
        )  # a whole review, on a niced worker under the suite's load
    finally:
        workers.stop_all()
    assert FinishedJobRegistry(reviews, connection=client).get_job_ids().count(f"rv-{game}-2") == 1
    assert f"rv-{game}-1" not in FinishedJobRegistry(reviews, connection=client).get_job_ids()
    record = json.loads(client.get(keys.review(game)))
    assert record["status"] == "done" and len(record["review"]["seats"]) == 2
    assert client.hget(keys.outbox_of(PREFIX + game)[0], PREFIX + game) is None


def test_the_job_refuses_a_game_that_has_not_ended(api, redis_url):
    """An entry for a game in play (none is ever written: this is the job's own guard) computes
    nothing before the seed is revealed."""
    from application.refusals import NotFinished
    from application.review.computation import computed

    client = redis.Redis.from_url(redis_url)
    app = create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "RATE_LIMIT": 0})
    service = app.extensions["bluemoon"].service
    game = CheckedClient(app).post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json["game"]
    with pytest.raises(NotFinished):
        computed(service, game)
    client.close()
