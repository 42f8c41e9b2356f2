"""The marks that say a seat's stream is open (service/live.py): renewed together by one
renewer per process, and never outliving their stream."""

from __future__ import annotations

import time

from events import keys
from service import live


def _score(client, game: str, member: str) -> float | None:
    return client.zscore(keys.watchers(game), member)


def test_open_marks_are_renewed_together_and_a_closed_one_is_gone(real_redis, monkeypatch, game_id):
    monkeypatch.setattr(live, "RENEW_WATCHING", 0.2)
    monkeypatch.setattr(live, "RENEW_EVERY", 0.05)
    marks = live._Marks(real_redis)
    key = keys.watchers(game_id)
    marks.add(key, "0:a")
    marks.add(key, "1:b")
    first = _score(real_redis, game_id, "0:a"), _score(real_redis, game_id, "1:b")
    time.sleep(0.6)
    assert _score(real_redis, game_id, "0:a") > first[0] and _score(real_redis, game_id, "1:b") > first[1]
    marks.remove(key, "0:a")
    time.sleep(0.4)
    assert _score(real_redis, game_id, "0:a") is None and _score(real_redis, game_id, "1:b") is not None
    marks.remove(key, "1:b")
    assert not real_redis.exists(key)


def test_a_stream_closing_while_its_mark_is_renewed_leaves_no_mark(real_redis, monkeypatch, game_id):
    monkeypatch.setattr(live, "RENEW_WATCHING", 0.1)
    monkeypatch.setattr(live, "RENEW_EVERY", 0.05)
    marks = live._Marks(real_redis)
    key = keys.watchers(game_id)
    write = marks._write
    closed = []

    def renewal_racing_the_close(due):
        if not closed and marks._renewed:  # the renewer took the mark as due; the stream closes now
            closed.append(True)
            marks.remove(key, "0:a")
        write(due)  # ... and the renewal lands after the close's ZREM

    marks.add(key, "0:a")
    monkeypatch.setattr(marks, "_write", renewal_racing_the_close)
    time.sleep(0.5)
    assert closed
    assert _score(real_redis, game_id, "0:a") is None
