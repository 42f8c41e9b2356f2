"""The integration tests' fixtures: a webhook receiver (a real HTTP server on 127.0.0.1), a real
SMTP server's inbox, and the API with one real worker for turn alerts."""

from __future__ import annotations

import uuid

import pytest
import redis
from aiosmtpd.controller import Controller

from application.background.rq_handoff import RQHandoff
from events.embedded import free_port
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.mail import Inbox
from tests.support.receiver import Receiver
from tests.support.workers import Workers


@pytest.fixture(autouse=True)
def fresh_sign_in_counts(request):
    """Every test signs its people in from 127.0.0.1 on the run's one Redis: the counts of sign-in
    links asked (SIGN_IN_LINKS_PER_ADDRESS, 20 an hour) start afresh for each test, as if each test
    were its own client, so that the run's sum of sign-ins is never refused."""
    if "redis_url" in request.fixturenames:
        client = redis.Redis.from_url(request.getfixturevalue("redis_url"))
        for key in client.scan_iter(match="signin-asked:*", count=1000):
            client.delete(key)
        client.close()
    yield


@pytest.fixture
def receivers():
    made: list[Receiver] = []
    yield lambda *script: made.append(Receiver(*script)) or made[-1]
    for r in made:
        r.server.shutdown()


@pytest.fixture
def setting(redis_url, monkeypatch, tmp_path):
    """The API in this process and one real worker on the test run's Redis, with local
    receivers allowed and short retries."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    queue = f"alerts-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    )
    workers = Workers(redis_url, queue, logs=tmp_path)
    workers.start(BLUEMOON_WEBHOOK_BACKOFF="0.3,0.5,1", PUBLIC_URL="https://bluemoon.example")  # the links' origin
    yield api
    workers.stop_all()
    client.close()


@pytest.fixture
def inbox(monkeypatch):
    box = Inbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("SMTP_URL", f"smtp://127.0.0.1:{port}")
    monkeypatch.setenv("MAIL_FROM", "Blue Moon City <games@bluemoon.example>")
    yield box
    controller.stop()


@pytest.fixture
def hooks_env(redis_url, monkeypatch):
    """The API in this process and a real worker process, both on the real Redis, with the
    test receivers' host allowed (the webhook and chat-webhook tests)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    )
    workers = Workers(redis_url, queue)
    yield api, workers
    workers.stop_all()
    client.close()
