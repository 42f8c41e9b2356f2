"""A person's stream with real workers on the real Redis (and on a Redis Cluster): the news of a
game against a bot reach it through the outbox and RQ jobs, from the worker's appends and the web
process's alike, each once, waking a long poll; a job run again for the same entry writes nothing."""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.registry import FinishedJobRegistry

from application.background.rq_handoff import RQHandoff
from application.wiring import connect
from events import keys
from events.outbox import Outbox, now_ms
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.lobby import account_of, auth, open_game, people
from tests.support.person_stream import LAST_OFFERING, kinds, news
from tests.support.workers import Workers, wait_until


@pytest.fixture
def served(redis_url, tmp_path):
    """The API in this process handing work to RQ, and one real worker (turns and deliveries)."""
    queue = f"news-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    )
    workers = Workers(redis_url, queue, logs=tmp_path)
    workers.start()
    yield api, client, queue
    workers.stop_all()
    client.close()


def _waited(api, token: str, after: int, seconds: float = 20) -> list[dict]:
    """The long poll after ``after``, asked again until it answers an event."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page = api.get(f"/me/events?after={after}&wait=5", headers=auth(token)).json
        if page["events"]:
            return page["events"]
    raise AssertionError(f"no news after {after} within {seconds} s")


def test_a_bot_games_turn_and_end_reach_the_persons_stream_once_through_the_workers(served):
    api, client, queue = served
    (ada,) = people(api, f"ada-{uuid.uuid4().hex[:8]}")  # its own person: the test run shares its Redis
    made = api.post("/games", json=LAST_OFFERING, headers=auth(ada))
    assert made.status_code == 201, made.json
    game = made.json["game"]
    first = _waited(api, ada, 0)
    told = first + (_waited(api, ada, first[-1]["id"]) if len(first) == 1 else [])  # the bot's turn, by the worker
    assert kinds(told) == ["game.started", "turn.started"] and told[1]["data"]["seat"] == 0
    legal = api.get(f"/games/{game}/legal", headers=auth(ada)).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    headers = {**auth(ada), "If-Match": f'"{legal["version"]}"'}
    assert api.post(f"/games/{game}/commands", json=offer, headers=headers).status_code == 200
    (ended,) = _waited(api, ada, told[-1]["id"])
    assert ended["type"] == "game.ended" and ended["data"]["winners"] == [0] and ended["data"]["place"] == 1
    assert ended["data"]["version"] == api.get(f"/games/{game}").json["version"]

    # the job that wrote the end, run again on the entry as a claim after its lease would run it
    registry = FinishedJobRegistry(queue, connection=client)

    def the_end_written() -> tuple | None:  # the job's news is read before RQ records its finish
        ran = [Job.fetch(i, connection=client) for i in registry.get_job_ids()]
        jobs = [j.args for j in ran if j.func_name.endswith("person_stream_jobs.write") and "game.ended" in j.args[1]]
        return jobs[0] if jobs else None

    name, payload = wait_until(the_end_written, 30, "the job that wrote the end to finish")
    assert Outbox(client).add(name, payload, now_ms())  # the worker's own dispatcher hands it on
    wait_until(lambda: client.hget(keys.outbox_of(name)[0], name) is None, 30, "the job to run again and finish")
    again = Queue(queue, connection=client).enqueue("workers.person_stream_jobs.write", name, payload)  # and once more
    wait_until(lambda: again.get_status(refresh=True) == "finished", 30, "the enqueued job")
    assert again.return_value() == "written already"
    assert news(api, ada) == [*told, ended]  # each once
    assert json.loads(payload)["account"] == account_of(api, ada)


@pytest.fixture
def split(cluster_urls, redis_url, monkeypatch, tmp_path):
    """STORE_URL on the cluster, QUEUE_URL on the test run's single Redis, one real worker."""
    queue = f"news-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("STORE_URL", cluster_urls[0])
    monkeypatch.setenv("QUEUE_URL", redis_url)
    monkeypatch.setenv("BLUEMOON_QUEUE", queue)
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test cluster keeps nothing on disk
    api = CheckedClient(
        create_app(
            {"REDIS_URL": cluster_urls[0], "RATE_LIMIT": 0, "HANDOFF": RQHandoff(connect(redis_url), queue=queue)}
        )
    )
    workers = Workers(redis_url, queue, logs=tmp_path)
    workers.start(STORE_URL=cluster_urls[0], QUEUE_URL=redis_url)
    yield api
    workers.stop_all()


def test_on_a_cluster_a_persons_news_wake_their_long_poll_by_sharded_pub_sub(split):
    """Each account's stream in its own slot, written by the worker's job, announced by SPUBLISH
    on the account's channel: the web process's cluster feed wakes the waiting poll."""
    api = split
    dee, eli = people(api, "dee", "eli")
    opened = open_game(api, dee, rated=False)
    game = api.post(f"/open-games/{opened['id']}/join", headers=auth(eli)).json["game"]
    tokens = {0: dee, 1: eli}
    view = api.get(f"/games/{game}").json
    mover, waiter = tokens[view["turn"]["seat"]], tokens[1 - view["turn"]["seat"]]
    before = _waited(api, waiter, 0)
    assert kinds(before)[:2] == ["open_game.filled", "game.started"]
    answers: list = []
    poll = threading.Thread(
        target=lambda: answers.append(api.get(f"/me/events?after={before[-1]['id']}&wait=20", headers=auth(waiter)))
    )
    cluster = api.app.extensions["bluemoon"].client
    announced = cluster.pubsub()
    announced.ssubscribe(keys.person_stream_news(account_of(api, waiter)))  # as the web process's feed does
    poll.start()
    time.sleep(0.5)
    end = {"type": "end_turn", "expected_version": view["version"]}
    started = time.monotonic()
    assert api.post(f"/games/{game}/commands", json=end, headers=auth(mover)).status_code == 200
    poll.join(20)
    assert time.monotonic() - started < 10  # woken, not timed out
    (told,) = answers[0].json["events"]
    assert told["type"] == "turn.started" and len(news(api, waiter)) == len(before) + 1
    message = wait_until(lambda: announced.get_sharded_message(ignore_subscribe_messages=True, timeout=0.2), 30, "it")
    assert int(message["data"]) == told["id"]  # the job's write, announced in the account's own slot
    announced.close()
