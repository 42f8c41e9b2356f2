"""Which webhook deliveries an append writes, decided with the events (fakeredis)."""

from __future__ import annotations

import json

import fakeredis

from application.background.handoff import CallbackHandoff
from application.games.game_service import SeatSpec
from application.outbound.webhooks import Webhooks, deliveries
from application.wiring import build
from domain import Options
from domain.commands import EndTurn
from domain.events import GameEnded
from events.outbox import now_ms
from events.serialization import StoredEvent


def test_webhook_deadline_warning_is_due_in_the_last_quarter_and_cleared_when_the_turn_ends(monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "example.test")
    monkeypatch.setattr("socket.getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("203.0.113.5", 80))])
    client = fakeredis.FakeRedis()
    service = build(client=client, handoff=CallbackHandoff(lambda ticket: None)).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0, turn_deadline=600)
    hook = Webhooks(service.store).create(created.game, 1, "http://example.test/hook", ["turn.deadline_near"])
    name = f"wh:{created.game}:{hook['id']}:deadline"
    before = now_ms()
    service.submit(created.game, EndTurn(0), expected=created.version, key="a")  # seat 1's turn, 600 s
    payload, due = service.store.outbox_entry(name)
    assert 450_000 - 1000 <= due - before <= 450_000 + 1000  # 600 s less the warning (a quarter, 150 s)
    body = json.loads(json.loads(payload)["body"])
    assert body["type"] == "turn.deadline_near" and body["data"]["seconds_left"] == 150.0
    service.submit(created.game, EndTurn(1), expected=service.store.version(created.game), key="b")
    assert service.store.outbox_entry(name) is None  # seat 1 played in time: no warning


def test_a_game_end_is_delivered_to_every_game_ended_webhook_with_the_revealed_result():
    hook = {"id": "wh_1", "seat": 0, "events": ["game.ended"], "enabled": True}
    ended = StoredEvent("g", 99, "GameEnded", 1, "t", "0", "", "{}", GameEnded("offerings", (0,), "ab" * 32))
    writes = deliveries("g", [hook, dict(hook, id="wh_2", enabled=False)], [ended], None, {})  # type: ignore[arg-type]
    assert len(writes) == 1
    body = json.loads(json.loads(writes[0].payload)["body"])
    assert body["type"] == "game.ended" and body["version"] == 99 and body["data"]["data"]["winners"] == [0]
