"""A receiver that accepts the connection and never answers (issue 34, "one slow receiver
stalls nobody"), against the API in this process on the real Redis: bots still reply at once,
because their turns run on workers of their own; and a webhook that keeps timing out is
disabled and says so."""

from __future__ import annotations

import json
import uuid

import pytest
import redis
from rq import Queue

from application.background.handoff import CallbackHandoff
from application.background.rq_handoff import RQHandoff, delivery_queue
from bench.slow_receiver import Silent
from events import keys
from events.outbox import Outbox
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.workers import Workers, wait_until
from workers import webhook_delivery


@pytest.fixture
def silent():
    receiver = Silent()
    yield receiver
    receiver.close()


def api_on(redis_url: str, handoff_for) -> tuple[CheckedClient, redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    return CheckedClient(create_app({"REDIS_CLIENT": client, "HANDOFF": handoff_for(client), "RATE_LIMIT": 0})), client


def turn_started_webhook(redis_url: str, url: str):
    """Two humans; seat 1's webhook on ``url`` for turn.started; seat 0 ends its turn."""
    api, client = api_on(redis_url, lambda c: CallbackHandoff(lambda ticket: None))  # deliveries wait in the outbox
    created = api.post(
        "/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    ).json
    game, tokens = created["game"], [s["token"] for s in created["seats"]]
    hook = api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": url, "events": ["turn.started"]}).json
    api.post(
        f"/games/{game}/commands",
        token=tokens[0],
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": f'"{created["version"]}"', "Idempotency-Key": "end"},
    )
    return api, client, game, tokens[1], hook["id"]


def attempt_next(client: redis.Redis, game: str) -> str:
    """Claim the game's delivery (as a dispatcher does, when due) and attempt it (as its job does)."""
    outbox = Outbox(client)
    (claim,) = [c for c in outbox.claim() if c.name.startswith(f"wh:{game}:")]
    return webhook_delivery.attempt(client, outbox, claim.name, claim.payload)


def play(api: CheckedClient, game: str, token: str, command: dict, version: int) -> int:
    answer = api.post(
        f"/games/{game}/commands",
        token=token,
        json=command,
        headers={"If-Match": f'"{version}"', "Idempotency-Key": f"k-{version}"},
    )
    assert answer.status_code == 200, answer.json
    return answer.json["version"]


@pytest.mark.slow
def test_a_bot_replies_at_once_while_a_receiver_that_never_answers_holds_the_deliveries(
    redis_url, silent, monkeypatch, tmp_path
):
    """Slow: starts a turn worker and a delivery worker (about 2 s), as the Procfile does."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    api, client = api_on(redis_url, lambda c: RQHandoff(c, queue=queue))
    created = api.post(
        "/games",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}], "setup": {"first_player": 0}},
    ).json
    game, token, version = created["game"], created["seats"][0]["token"], created["version"]
    for _ in range(10):  # as many as a seat may have, each taking every event
        made = api.post(f"/games/{game}/webhooks", token=token, json={"url": silent.url, "events": ["event"]})
        assert made.status_code == 201, made.json
    workers = Workers(redis_url, queue, logs=tmp_path)
    try:
        workers.start("turns", WEBHOOK_ALLOW_HOSTS="127.0.0.1")
        workers.start("deliveries", WEBHOOK_ALLOW_HOSTS="127.0.0.1")
        move = next(c for c in api.get(f"/games/{game}/legal", token=token).json["commands"] if c["type"] == "move")
        version = play(api, game, token, move, version)  # ten deliveries, one event each
        deliveries = Queue(delivery_queue(queue), connection=client)
        wait_until(
            lambda: silent.held and deliveries.count >= 8, 30, "the receiver to hold a delivery, the rest queued"
        )
        version = play(api, game, token, {"type": "end_turn", "discards": []}, version)  # the bot's turn
        service = api.app.extensions["bluemoon"].service
        wait_until(lambda: service.state(game).turn.seat == 0, 30, "the bot's reply")
        waiting = deliveries.count
        assert waiting >= 8, f"only {waiting} deliveries still queued: the receiver was not holding them"
    finally:
        silent.close()  # the delivery in progress ends now, so its worker stops at once
        workers.stop_all()
        client.close()


def test_a_webhook_whose_receiver_keeps_timing_out_is_disabled_and_says_so(redis_url, silent, monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    monkeypatch.setattr(webhook_delivery, "ANSWER_TIMEOUT", 0.2)  # (5 s in service)
    monkeypatch.setattr(webhook_delivery, "BACKOFF", (0.0,) * 5)  # each retry due at once
    api, client, game, token, hook = turn_started_webhook(redis_url, silent.url)
    outcomes = [attempt_next(client, game) for _ in range(4)]
    assert outcomes == ["retrying", "retrying", "retrying", "dropped"]  # the fourth finds it disabled
    assert len(silent.held) == 3  # and does not connect
    shown = api.get(f"/games/{game}/webhooks/{hook}", token=token).json
    assert not shown["enabled"] and shown["disabled_reason"] == "timeouts" and shown["timeouts"] == 3
    log = api.get(f"/games/{game}/webhooks/{hook}/deliveries", token=token).json["deliveries"]
    assert [e["attempt"] for e in log] == [3, 2, 1] and all("timed out" in e["error"] for e in log)
    assert all(e["ms"] < 1000 for e in log)
    client.close()


def test_a_receiver_that_answers_between_timeouts_keeps_its_webhook(redis_url, silent, receivers, monkeypatch):
    """Only timeouts in a row count: an answer (even a 500) starts the count again."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    monkeypatch.setattr(webhook_delivery, "ANSWER_TIMEOUT", 0.2)
    monkeypatch.setattr(webhook_delivery, "BACKOFF", (0.0,) * 5)
    api, client, game, token, hook = turn_started_webhook(redis_url, silent.url)
    for url in (silent.url, silent.url, receivers(500).url, silent.url, silent.url):
        raw = json.loads(client.hget(keys.webhooks(game), hook))
        client.hset(keys.webhooks(game), hook, json.dumps({**raw, "url": url}))  # the receiver moves
        assert attempt_next(client, game) == "retrying"
    shown = api.get(f"/games/{game}/webhooks/{hook}", token=token).json
    assert shown["enabled"] and shown["timeouts"] == 2 and shown["disabled_reason"] is None
    client.close()
