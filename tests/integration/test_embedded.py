"""The embedded Redis: a real redis-server from pip, shared by every process that needs it."""

import redis

from events.embedded import shared


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
