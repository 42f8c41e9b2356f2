"""bench/bot_speed.py waits for a reply on the feed: it must wait from the state it judged, or
an event that lands between its look and its read is waited past (up to a blocked read's second)."""

from __future__ import annotations

from application.games.game_service import SeatSpec
from application.wiring import build
from bench.bot_speed import wait_for_turn
from domain import Options
from domain.commands import EndTurn


def test_the_reply_is_awaited_from_the_version_looked_at(real_redis, monkeypatch):
    service = build(client=real_redis).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    looked_at = service.state(created.game)
    service.submit(created.game, EndTurn(0), expected=created.version, key="reply")  # lands after the look
    looks = iter([looked_at])
    real_state = service.state
    monkeypatch.setattr(service, "state", lambda game: next(looks, None) or real_state(game))
    asked = []
    real_xread = service.client.xread
    monkeypatch.setattr(
        service.client, "xread", lambda streams, **kw: asked.append(streams) or real_xread(streams, **kw)
    )
    wait_for_turn(service, created.game, 1)
    assert [list(s.values()) for s in asked] == [[f"0-{looked_at.version}"]]
