"""The SSE stream around a restart: its clients must not all come back at once."""

from __future__ import annotations

import re

from service import live


def test_a_stream_ended_by_a_restart_asks_its_client_to_wait_a_random_retry_first(api, monkeypatch):
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).get_json()
    api.app.config["SSE_SECONDS"] = 30
    drawn: list[tuple[int, int]] = []

    def randint(low: int, high: int) -> int:
        drawn.append((low, high))
        return 7_654

    monkeypatch.setattr(live.random, "randint", randint)
    stream = api.app.test_client().get(f"/games/{created['game']}/stream", buffered=False)
    chunks = iter(stream.response)
    assert next(chunks) == b"retry: %d\n\n" % live.SSE_RETRY_MS
    assert next(chunks).startswith(b"id: ")  # the events so far: the stream now waits on the feed
    api.app.extensions["bluemoon"].feed.close()  # SIGTERM: the worker is restarting
    rest = b"".join(chunks)
    stream.close()
    assert drawn == [live.SSE_RESTART_RETRY_MS]
    assert re.fullmatch(rb"retry: 7654\n\n: the server is restarting; reconnect with Last-Event-ID\n\n", rest)
