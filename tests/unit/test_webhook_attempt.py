"""One webhook delivery attempt against a seat that reads the log after every Redis command of
it and acts on what it reads (fakeredis; the HTTP send replaced by its answer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest

from application.background.handoff import CallbackHandoff
from application.background.work import message_job_id
from application.games.game_service import SeatSpec
from application.outbound.webhooks import PREFIX, Webhooks
from application.wiring import build
from domain import Options
from events import keys
from events.outbox import Outbox
from workers import webhook_delivery


class Watched(fakeredis.FakeRedis):
    """Calls ``after`` once each command has run (not a pipeline's: call it after those too):
    whatever a client could do at that moment."""

    after: Callable[[], None] | None = None
    _inside = False

    def execute_command(self, *args: Any, **options: Any) -> Any:
        result = super().execute_command(*args, **options)
        if self.after is not None and not self._inside:
            self._inside = True
            try:
                self.after()
            finally:
                self._inside = False
        return result


@pytest.fixture
def failing_hook(monkeypatch):
    """A webhook whose test delivery is about to fail its last try: (client, hooks, game, hook, name)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "example.test")
    monkeypatch.setattr("socket.getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("203.0.113.5", 80))])
    monkeypatch.setattr(webhook_delivery, "BACKOFF", ())  # the first try is the last
    monkeypatch.setattr(webhook_delivery, "send", lambda *a: (500, "answered 500", False))
    client = Watched()
    service = build(client=client, handoff=CallbackHandoff(lambda ticket: None)).service
    game = service.create(Options(2), [SeatSpec("human"), SeatSpec("human")], first_player=0).game
    hooks = Webhooks(service.store)
    hook = hooks.create(game, 1, "http://example.test/hook", ["game.ended"])
    delivery = hooks.test(game, 1, hook["id"], 1)["delivery"]
    return client, hooks, game, hook["id"], f"{PREFIX}{game}:{delivery}"


def _attempt(client, name: str) -> str:
    outbox = Outbox(client)
    (claim,) = outbox.claim(name)
    return webhook_delivery.attempt(client, outbox, claim.name, claim.payload)


def test_a_redelivery_asked_for_on_reading_failed_in_the_log_is_not_undone_by_the_attempt_ending(failing_hook):
    """Had the worker finished the outbox entry after logging "failed", a redelivery asked for in
    between would be found "already there", answered 202, and removed with the failed attempt
    (a CI run's lost redelivery)."""
    client, hooks, game, hook, name = failing_hook
    delivery = name.rsplit(":", 1)[1]
    redelivered = []

    def seat_reads_the_log():
        if not redelivered and [e["outcome"] for e in hooks.log(game, 1, hook)] == ["failed"]:
            redelivered.append(hooks.redeliver(game, 1, hook, delivery))

    client.after = seat_reads_the_log
    assert _attempt(client, name) == "failed"
    client.after = None
    seat_reads_the_log()
    assert len(redelivered) == 1
    assert Outbox(client).claim(name)[0].tries == 1  # the redelivery waits for a worker, its tries anew


def test_a_webhook_read_as_disabled_already_logs_the_failure_that_disabled_it(failing_hook):
    client, hooks, game, hook, name = failing_hook
    stored = json.loads(client.hget(keys.webhooks(game), hook))
    client.hset(keys.webhooks(game), hook, json.dumps({**stored, "failures": webhook_delivery.DISABLE_AFTER - 1}))
    seen = []

    def seat_reads_the_webhook():
        if not hooks.shown(game, 1, hook)["enabled"]:
            seen.append([e["outcome"] for e in hooks.log(game, 1, hook)])

    client.after = seat_reads_the_webhook
    assert _attempt(client, name) == "failed"
    client.after = None
    seat_reads_the_webhook()
    assert seen and all(outcomes == ["failed"] for outcomes in seen)
    assert hooks.shown(game, 1, hook)["disabled_reason"] == "failures"


def test_an_attempt_ending_after_its_webhook_was_deleted_leaves_no_log_behind(failing_hook, monkeypatch):
    client, hooks, game, hook, name = failing_hook
    answer = webhook_delivery.send

    def deleted_while_sending(*args):
        hooks.delete(game, 1, hook)
        return answer(*args)

    monkeypatch.setattr(webhook_delivery, "send", deleted_while_sending)
    assert _attempt(client, name) == "failed"
    assert not client.exists(keys.webhook_log(game, hook)) and not client.exists(keys.webhooks(game))
    assert Outbox(client).claim(name) == []


def test_a_redelivery_asked_for_while_the_last_try_is_in_flight_is_still_sent(failing_hook, monkeypatch):
    """The seat reads "retrying" and asks again while the last try is being sent: the try fails
    and ends, and the redelivery (answered 202) must still be waiting. Checked to fail when the
    redelivery is dropped as "already there"."""
    client, hooks, game, hook, name = failing_hook
    delivery = name.rsplit(":", 1)[1]
    answer = webhook_delivery.send

    def redelivered_while_sending(*args):
        hooks.redeliver(game, 1, hook, delivery)
        return answer(*args)

    monkeypatch.setattr(webhook_delivery, "BACKOFF", (0.0,))  # two tries, the second at once
    assert _attempt(client, name) == "retrying"
    monkeypatch.setattr(webhook_delivery, "send", redelivered_while_sending)
    assert _attempt(client, name) == "failed"
    monkeypatch.setattr(webhook_delivery, "send", lambda *a: (200, None, False))
    assert _attempt(client, name) == "delivered"  # the redelivery, its first try
    assert [e["outcome"] for e in hooks.log(game, 1, hook)] == ["delivered", "failed", "retrying"]
    assert Outbox(client).claim(name) == []


def test_a_job_of_the_replaced_payload_sends_nothing_and_the_redeliverys_job_has_its_own_id(failing_hook, monkeypatch):
    """After a redelivery replaced the entry, a job still queued for the old payload sends no
    stale copy; the redelivery's first claim is not named as the first delivery's first claim
    was (RQ would take one job for the other). Checked to fail without the mark in the id."""
    client, hooks, game, hook, name = failing_hook
    delivery = name.rsplit(":", 1)[1]
    monkeypatch.setattr(webhook_delivery, "BACKOFF", (60.0,))
    outbox = Outbox(client)
    (first,) = outbox.claim(name)
    assert webhook_delivery.attempt(client, outbox, first.name, first.payload) == "retrying"
    hooks.redeliver(game, 1, hook, delivery)
    sent = []
    monkeypatch.setattr(webhook_delivery, "send", lambda *a: sent.append(a) or (200, None, False))
    assert webhook_delivery.attempt(client, outbox, first.name, first.payload) == "superseded" and sent == []
    (again,) = outbox.claim(name)
    assert again.tries == first.tries == 1 and message_job_id(again) != message_job_id(first)
    assert webhook_delivery.attempt(client, outbox, again.name, again.payload) == "delivered" and len(sent) == 1
