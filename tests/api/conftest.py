"""The Flask app in this process (its test client), on fakeredis or on the test run's Redis:
every response is checked against openapi.yaml (tests/api/client.py)."""

from __future__ import annotations

import fakeredis
import pytest
import redis

from application.background.handoff import CallbackHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.games import game_and_tokens


def _client(redis_client):
    box: list = []
    app = create_app(
        {"REDIS_CLIENT": redis_client, "HANDOFF": CallbackHandoff(lambda t: box.append(t)), "RATE_LIMIT": 0}
    )
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


@pytest.fixture
def game(api):
    """A game of two humans on ``api``: its id and the two seats' tokens (tests/support/games.py)."""
    return game_and_tokens(api)
