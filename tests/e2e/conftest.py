from __future__ import annotations

import fakeredis
import pytest
import redis

from service.app import create_app
from tests.e2e.client import CheckedClient


def _client(redis_client):
    box: list = []
    app = create_app({"REDIS_CLIENT": redis_client, "ON_TURN": lambda t: box.append(t), "RATE_LIMIT": 0})
    client = CheckedClient(app)
    client.tickets = box
    return client


@pytest.fixture
def api():
    """The API on fakeredis: fast and isolated."""
    return _client(fakeredis.FakeRedis())


@pytest.fixture
def api_real(redis_url):
    """The API on the real Redis of this test run."""
    client = redis.Redis.from_url(redis_url)
    yield _client(client)
    client.close()
