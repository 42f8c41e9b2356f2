"""The queue only carries hand-offs; the outbox in the store is the record of work. A queue
Redis killed and restarted empty (QUEUE_URL apart from STORE_URL) loses no bot turn and no
webhook delivery: once the claims' leases run out, the dispatcher finds their jobs gone and
hands them on again."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from application.background.rq_handoff import RQHandoff, delivery_queue
from application.games.game_service import SeatSpec
from domain import Options
from events import keys
from events.embedded import EmbeddedRedis, free_port
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.games import end_turn, two_humans
from tests.support.workers import WORKER_ENV, Workers, wait_until


@pytest.mark.slow
def test_a_queue_redis_restarted_empty_loses_no_bot_turn_and_no_webhook_delivery(
    redis_url, tmp_path, receivers, monkeypatch
):
    """Slow: the claims' 10 s leases must run out before the turns are handed on again."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    port, queue_name = free_port(), f"test-{uuid.uuid4().hex[:8]}"
    queue = EmbeddedRedis(tmp_path / "queue", port=port, persist=False)
    store = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app(
            {"REDIS_CLIENT": store, "HANDOFF": RQHandoff(redis.Redis(port=port), queue=queue_name), "RATE_LIMIT": 0}
        )
    )
    service = api.app.extensions["bluemoon"].service
    receiver = receivers(200)
    game, tokens, version = two_humans(api)
    api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["turn.started"]})
    end_turn(api, game, tokens[0], version)  # a delivery, in the outbox
    bots = [
        service.create(Options(2), [SeatSpec("bot", level="greedy"), SeatSpec("human")], first_player=0).game
        for _ in range(4)
    ]
    (delivery,) = [n for n in store.hkeys(keys.outbox(keys.shard(game))[0]) if n.startswith(f"wh:{game}:".encode())]
    assert service.dispatch(delivery.decode()) == 1  # as a dispatcher's pass hands it on (the bots' turns went at once)
    jobs = redis.Redis(port=port)
    assert jobs.llen(f"rq:queue:{queue_name}") == 4 and jobs.llen(f"rq:queue:{delivery_queue(queue_name)}") == 1

    queue.process.kill()  # SIGKILL, and back on the same port with nothing in it
    queue.process.wait()
    queue = EmbeddedRedis(tmp_path / "queue-again", port=port, persist=False)
    assert redis.Redis(port=port).dbsize() == 0, "the queue Redis came back empty"
    workers = Workers(redis_url, queue_name)
    try:
        workers.start(STORE_URL=redis_url, QUEUE_URL=queue.url, **WORKER_ENV)
        restarted = time.monotonic()
        for game_id in bots:
            wait_until(lambda g=game_id: service.state(g).turn.seat == 1, 30, "a bot's turn to be played")
        wait_until(lambda: receiver.messages("turn.started"), 30, "the webhook delivery")
        assert time.monotonic() - restarted < 15 + 5  # a 10 s lease, a dispatcher pass, the plays
        for game_id in bots:
            assert [s.actor for s in service.store.read(game_id) if s.type == "TurnEnded"] == ["bot:greedy"]
        assert len(receiver.messages("turn.started")) == 1
    finally:
        workers.stop_all()
        queue.stop()
        store.close()
