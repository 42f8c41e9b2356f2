"""One webhook delivery attempt against what a seat does on reading the log (fakeredis; the
HTTP send replaced by its answer)."""

from __future__ import annotations

import fakeredis

from application.background.handoff import CallbackHandoff
from application.games.game_service import SeatSpec
from application.outbound.webhooks import PREFIX, Webhooks
from application.wiring import build
from domain import Options
from events.outbox import Outbox
from workers import webhook_delivery


def test_a_redelivery_asked_for_on_reading_failed_in_the_log_is_not_undone_by_the_attempt_ending(monkeypatch):
    """The log line is the attempt's last step: had the worker finished the outbox entry after
    it, a redelivery asked for in between would be found "already there", answered 202, and
    then removed with the failed attempt (a CI run's lost redelivery)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "example.test")
    monkeypatch.setattr("socket.getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("203.0.113.5", 80))])
    monkeypatch.setattr(webhook_delivery, "BACKOFF", ())  # the first try is the last
    monkeypatch.setattr(webhook_delivery, "send", lambda *a: (500, "answered 500", False))
    client = fakeredis.FakeRedis()
    service = build(client=client, handoff=CallbackHandoff(lambda ticket: None)).service
    game = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0).game
    hooks = Webhooks(service.store)
    hook = hooks.create(game, 1, "http://example.test/hook", ["game.ended"])
    delivery = hooks.test(game, 1, hook["id"], 1)["delivery"]
    redelivered = []

    def log_then_redeliver(*args):
        log_attempt(*args)
        redelivered.append(hooks.redeliver(game, 1, hook["id"], delivery))  # the seat reads "failed"

    log_attempt = webhook_delivery.log_attempt
    monkeypatch.setattr(webhook_delivery, "log_attempt", log_then_redeliver)
    outbox = Outbox(client)
    (claim,) = outbox.claim(f"{PREFIX}{game}:{delivery}")
    assert webhook_delivery.attempt(client, outbox, claim.name, claim.payload) == "failed"
    assert [e["outcome"] for e in hooks.log(game, 1, hook["id"])] == ["failed"] and len(redelivered) == 1
    assert service.store.outbox_entry(claim.name) is not None  # the redelivery waits for a worker
    (again,) = outbox.claim(claim.name)
    assert again.tries == 1  # its own tries, from the first
