"""The delivery budget (application/outbound/limits.py) on fakeredis: a game and an account
each have so many deliveries a minute; past that a delivery waits for the next minute, its
try uncounted, and its webhook says how many waited. Another game's budget is its own."""

from __future__ import annotations

import json

import fakeredis

from application.background.handoff import CallbackHandoff
from application.games.game_service import SeatSpec
from application.outbound.limits import PER_GAME, WINDOW_MS, DeliveryBudget
from application.outbound.webhooks import Webhooks
from application.wiring import build
from domain import Options
from domain.commands import EndTurn
from events import keys
from events.outbox import Outbox, now_ms
from workers import webhook_delivery


def test_a_game_and_an_account_each_have_their_own_budget_a_minute():
    budget = DeliveryBudget(fakeredis.FakeRedis(), per_game=2, per_account=3)
    assert budget.take("g1", "ana") is None and budget.take("g1", "ana") is None
    left = budget.take("g1", "ana")  # the game's third this minute
    assert left is not None and 0 < left <= WINDOW_MS
    assert budget.take("g2", "ana") is None  # another game: the account's third
    assert budget.take("g3", "ana") is not None  # the account's fourth
    assert budget.take("g3", None) is None and budget.take("g3", "bea") is None  # g3's own was not spent on it
    assert budget.take("g1", None) is not None  # without an account, the game's budget still holds


def seat_ones_webhook(monkeypatch):
    """Two humans, seat 1's webhook on every event, and seat 0's turn ended: the deliveries wait
    in the outbox; each is claimed as a dispatcher would, for the test to attempt as its job."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "example.test")
    monkeypatch.setattr("socket.getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("203.0.113.5", 80))])
    sent: list[str] = []
    monkeypatch.setattr(webhook_delivery, "post", lambda target, body, headers: sent.append(body) or 204)
    client = fakeredis.FakeRedis()
    service = build(client=client, handoff=CallbackHandoff(lambda ticket: None)).service
    created = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0)
    hook = Webhooks(service.store).create(created.game, 1, "http://example.test/hook", ["event"])
    service.submit(created.game, EndTurn(0), expected=created.version, key="a")
    claims = [c for c in Outbox(client).claim() if c.name.startswith("wh:")]
    return client, created.game, hook["id"], claims, sent


def test_a_delivery_over_its_games_budget_waits_for_the_next_minute_uncounted_and_its_webhook_says_so(monkeypatch):
    client, game, hook, claims, sent = seat_ones_webhook(monkeypatch)
    client.set(keys.game_deliveries(game), PER_GAME, px=30_000)  # the game's minute is spent, 30 s to go
    claim = claims[0]
    outbox = Outbox(client)
    assert webhook_delivery.attempt(client, outbox, claim.name, claim.payload) == "deferred"
    assert sent == []
    due = client.zscore(keys.outbox_of(claim.name)[1], claim.name)
    assert 25_000 < due - now_ms() <= 30_000  # when the minute ends, not at once
    assert int(client.hget(keys.outbox_of(claim.name)[2], claim.name)) == 0  # the claim is not a try
    shown = Webhooks(build(client=client).service.store).shown(game, 1, hook)
    assert shown["deferred"] == 1 and shown["enabled"] and shown["failures"] == 0
    assert client.llen(keys.webhook_log(game, hook)) == 0  # no attempt was made
    client.delete(keys.game_deliveries(game))  # the next minute: the entry is due, a dispatcher claims it
    client.zadd(keys.outbox_of(claim.name)[1], {claim.name: now_ms()})
    (again,) = outbox.claim(claim.name)
    assert webhook_delivery.attempt(client, outbox, again.name, again.payload) == "delivered" and len(sent) == 1
    entry = json.loads(client.lindex(keys.webhook_log(game, hook), 0))
    assert entry["attempt"] == 1  # its first try, after the wait


def test_another_games_flood_leaves_this_games_budget_alone(monkeypatch):
    client, game, hook, claims, sent = seat_ones_webhook(monkeypatch)
    client.set(keys.game_deliveries("f" * 32), PER_GAME, px=30_000)  # a stranger's game spent its minute
    claim = claims[0]
    assert webhook_delivery.attempt(client, Outbox(client), claim.name, claim.payload) == "delivered"
    assert len(sent) == 1
