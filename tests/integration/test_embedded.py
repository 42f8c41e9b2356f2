"""The embedded Redis: a real redis-server from pip, shared by every process that needs it."""

import pytest
import redis

from events import embedded
from events.embedded import EmbeddedRedis, ExitedAtStart, free_port, shared


def test_the_first_process_starts_it_and_the_others_find_it(tmp_path):
    url, server = shared(tmp_path)
    try:
        assert server is not None
        again, second = shared(tmp_path)
        assert again == url and second is None
        client = redis.Redis.from_url(url)
        assert client.config_get("appendonly")["appendonly"] == "yes"
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        client.close()
    finally:
        server.stop()
    _, restarted = shared(tmp_path)  # the old one is gone: a new one starts
    assert restarted is not None
    restarted.stop()


def test_a_port_taken_between_its_choice_and_the_start_is_never_taken_for_ours(tmp_path, monkeypatch):
    """free_port only says a port was free a moment ago: tests run in several workers at once, and
    another's server can take it first. Ours then exits at its start; the other one answering on
    the port is not ours (its data is another test's): a port we chose is chosen again, and a port
    we were given is refused."""
    other = EmbeddedRedis(tmp_path / "other", persist=False)
    try:
        with pytest.raises(ExitedAtStart):
            EmbeddedRedis(tmp_path / "given", port=other.port, persist=False)
        ports = iter([other.port, free_port()])
        monkeypatch.setattr(embedded, "free_port", lambda: next(ports))
        ours = EmbeddedRedis(tmp_path / "chosen", persist=False)
        try:
            assert ours.port != other.port
            with redis.Redis(port=ours.port) as client:
                assert int(client.info("server")["process_id"]) == ours.process.pid
        finally:
            ours.stop()
    finally:
        other.stop()
