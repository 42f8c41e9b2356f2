"""The Flask app in this process (its test client), on fakeredis or on the test run's Redis:
every response is checked against openapi.yaml (tests/api/client.py)."""

from __future__ import annotations

import fakeredis
import pytest
import redis

from application.background.handoff import CallbackHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.archive import forget_opened_archives
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
def api(tmp_path, monkeypatch):
    """The API on fakeredis: fast and isolated, with an archive of its own (the run's is shared by
    every app of this process, whose games another test's listings would otherwise find)."""
    monkeypatch.setenv("ARCHIVE_URL", f"sqlite:///{tmp_path / 'archive.sqlite3'}")
    yield _client(fakeredis.FakeRedis())
    forget_opened_archives()  # its engine closed: a run opens hundreds of these


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
