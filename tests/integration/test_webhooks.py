"""Webhooks end to end: the API on the real Redis, a real `bluemoon-worker` (RQ and the
dispatcher) delivering, and a real HTTP receiver on 127.0.0.1 verifying with the
`standardwebhooks` package."""

from __future__ import annotations

import time

import pytest
from standardwebhooks.webhooks import Webhook

from tests.support.games import end_turn, two_humans
from tests.support.workers import WORKER_ENV, wait_until


def one_turn_started_delivery(hooks_env, receiver, **worker_env):
    """Seat 1 asks for turn.started, a worker runs, seat 0 ends its turn; returns what
    ``deliveries_when`` needs."""
    api, workers = hooks_env
    game, tokens, version = two_humans(api)
    hook = api.post(
        f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["turn.started"]}
    ).json
    workers.start(**{**WORKER_ENV, **worker_env})
    end_turn(api, game, tokens[0], version)
    return api, f"/games/{game}/webhooks/{hook['id']}/deliveries", tokens[1]


def deliveries_when(target, outcome: str, seconds: float) -> list[dict]:
    """The delivery log once its newest attempt has ``outcome``."""
    api, path, token = target
    return wait_until(
        lambda: (d := api.get(path, token=token).json["deliveries"]) and d[0]["outcome"] == outcome and d,
        seconds,
        f"a delivery to be {outcome}",
    )


def test_webhook_create_list_delete_with_the_seat_token_and_the_secret_shown_once(hooks_env, receivers):
    api, _ = hooks_env
    game, tokens, _ = two_humans(api)
    r = api.post(
        f"/games/{game}/webhooks", token=tokens[1], json={"url": receivers().url, "events": ["turn.started", "event"]}
    )
    assert r.status_code == 201 and r.json["secret"].startswith("whsec_") and r.json["seat"] == 1
    hook = r.json["id"]
    listed = api.get(f"/games/{game}/webhooks", token=tokens[1]).json["webhooks"]
    assert [h["id"] for h in listed] == [hook] and "secret" not in listed[0] and listed[0]["enabled"]
    assert api.get(f"/games/{game}/webhooks", token=tokens[0]).json["webhooks"] == []  # another seat's are not shown
    assert api.delete(f"/games/{game}/webhooks/{hook}", token=tokens[0]).status_code == 404
    assert api.get(f"/games/{game}/webhooks").status_code == 401
    assert api.delete(f"/games/{game}/webhooks/{hook}", token=tokens[1]).status_code == 204
    assert api.get(f"/games/{game}/webhooks", token=tokens[1]).json["webhooks"] == []
    bad = api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": receivers().url, "events": ["turn.over"]})
    assert bad.status_code == 422 and "events" in bad.json["errors"]


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost:9/x",
        "http://[::1]/x",
        "http://224.0.0.1/x",
        "http://192.168.1.10/x",
        "ftp://example.com/x",
    ],
)
def test_webhook_urls_that_reach_inside_are_refused_unless_allowed(hooks_env, url):
    api, _ = hooks_env
    game, tokens, _ = two_humans(api)
    r = api.post(f"/games/{game}/webhooks", token=tokens[0], json={"url": url, "events": ["event"]})
    assert r.status_code == 422 and r.mimetype == "application/problem+json", r.json
    assert api.get(f"/games/{game}/webhooks", token=tokens[0]).json["webhooks"] == []


def test_webhook_deliveries_are_signed_redacted_for_the_seat_and_verified_by_standardwebhooks(hooks_env, receivers):
    api, workers = hooks_env
    receiver = receivers(200)
    game, tokens, version = two_humans(api)
    hook = api.post(
        f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["turn.started", "event"]}
    ).json
    workers.start(**WORKER_ENV)
    after = end_turn(api, game, tokens[0], version)
    wait_until(
        lambda: receiver.messages("turn.started") and len(receiver.messages("event")) == after - version,
        20,
        "the deliveries",
    )
    verifier = Webhook(hook["secret"])
    for message in receiver.messages():
        assert verifier.verify(message["body"], message["headers"]) == message["json"]
        assert message["headers"]["webhook-id"].startswith("msg_")
    started = receiver.messages("turn.started")[0]["json"]
    assert started == {
        "type": "turn.started",
        "game": game,
        "version": after,
        "seat": 1,
        "data": {"turn": 2, "seat": 1, "deadline_seconds": None},
    }
    events = sorted((m["json"] for m in receiver.messages("event")), key=lambda m: m["version"])
    assert [m["version"] for m in events] == list(range(version + 1, after + 1))
    drawn = next(m["data"] for m in events if m["data"]["type"] == "CardsDrawn")
    assert drawn["data"]["seat"] == 0 and drawn["data"]["cards"] is None  # seat 0's cards, hidden from seat 1
    path = f"/games/{game}/webhooks/{hook['id']}/deliveries"  # logged once the worker has read the answer
    log = wait_until(
        lambda: len(d := api.get(path, token=tokens[1]).json["deliveries"]) >= len(events) + 1 and d, 20, "the log"
    )
    assert len(log) == len(receiver.messages()) and {e["outcome"] for e in log} == {"delivered"}
    assert all(e["status"] == 200 and e["ms"] >= 0 for e in log)


def test_webhook_retries_with_growing_back_off_and_the_same_webhook_id_until_a_2xx(hooks_env, receivers):
    api, workers = hooks_env
    receiver = receivers(500, 503, 200)
    game, tokens, version = two_humans(api)
    hook = api.post(
        f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["turn.started"]}
    ).json
    workers.start(**WORKER_ENV)
    end_turn(api, game, tokens[0], version)
    wait_until(lambda: len(receiver.requests) == 3, 20, "three attempts")
    time.sleep(1.0)
    assert len(receiver.requests) == 3  # delivered on the third: no more tries
    assert len({r["headers"]["webhook-id"] for r in receiver.requests}) == 1
    gaps = [b["at"] - a["at"] for a, b in zip(receiver.requests, receiver.requests[1:])]
    assert gaps[0] >= 0.4 and gaps[1] >= 0.8  # the back-off grows
    log = api.get(f"/games/{game}/webhooks/{hook['id']}/deliveries", token=tokens[1]).json["deliveries"]
    assert [(e["attempt"], e["status"], e["outcome"]) for e in log] == [
        (3, 200, "delivered"),
        (2, 503, "retrying"),
        (1, 500, "retrying"),
    ]


def test_a_webhook_that_keeps_failing_is_marked_failed_then_disabled_and_says_so(hooks_env, receivers):
    api, workers = hooks_env
    receiver = receivers(500)
    game, tokens, version = two_humans(api)
    hook = api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["event"]}).json
    workers.start(**WORKER_ENV)
    version = end_turn(api, game, tokens[0], version)
    end_turn(api, game, tokens[1], version)  # six events, six deliveries, each failing every try
    listed = wait_until(
        lambda: (
            (h := api.get(f"/games/{game}/webhooks", token=tokens[1]).json["webhooks"][0]) and not h["enabled"] and h
        ),
        30,
        "the webhook to be disabled",
    )
    assert listed["failures"] >= 5 and listed["disabled_reason"] == "failures"
    log = api.get(f"/games/{game}/webhooks/{hook['id']}/deliveries", token=tokens[1]).json["deliveries"]
    assert sum(e["outcome"] == "failed" for e in log) >= 5 and all(e["status"] == 500 for e in log)
    assert {e["attempt"] for e in log if e["outcome"] == "failed"} == {3}  # after the last try


@pytest.mark.slow
def test_a_webhook_receiver_that_times_out_is_retried(hooks_env, receivers):
    """Slow: the receiver must time out (5 s) before the retry."""
    log = deliveries_when(one_turn_started_delivery(hooks_env, receivers(("hang", 6.5), 200)), "delivered", 30)
    assert [(e["attempt"], e["outcome"]) for e in log] == [(2, "delivered"), (1, "retrying")]
    assert log[1]["status"] is None and "timed out" in log[1]["error"] and log[1]["ms"] >= 5000


def test_webhook_redirects_are_not_followed(hooks_env, receivers):
    receiver = receivers(("redirect", "/elsewhere"))
    log = deliveries_when(one_turn_started_delivery(hooks_env, receiver), "failed", 20)
    assert {e["status"] for e in log} == {307}
    assert {r["path"] for r in receiver.requests} == {"/hooks/bluemoon"}  # never /elsewhere


def test_webhook_addresses_are_checked_again_at_delivery(hooks_env, receivers):
    receiver = receivers(200)
    # the worker no longer allows the host, as if the name now pointed inside
    log = deliveries_when(one_turn_started_delivery(hooks_env, receiver, WEBHOOK_ALLOW_HOSTS=""), "failed", 20)
    assert all(e["error"].startswith("refused: 127.0.0.1 is or resolves to 127.0.0.1") for e in log)
    assert receiver.requests == []


@pytest.mark.slow
def test_a_worker_killed_mid_webhook_delivery_delivers_it_later_with_the_same_id(hooks_env, receivers):
    """Slow: the killed delivery's 10 s lease must run out."""
    api, workers = hooks_env
    receiver = receivers(("hang", 4), 200)
    game, tokens, version = two_humans(api)
    api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["turn.started"]})
    first = workers.start(**WORKER_ENV)
    end_turn(api, game, tokens[0], version)
    wait_until(lambda: receiver.requests, 30, "the first attempt to reach the receiver")
    workers.kill_with_horse(first)  # mid-delivery: the horse waits for the receiver's answer
    workers.start(**WORKER_ENV)
    wait_until(lambda: len(receiver.requests) == 2, 30, "the delivery to be sent again")
    assert receiver.requests[0]["headers"]["webhook-id"] == receiver.requests[1]["headers"]["webhook-id"]


# -- what a seat asks of its webhook: a test delivery, a redelivery, enabling it again ----------


def _hook(api, receiver) -> tuple[str, str, dict]:
    game, tokens, _ = two_humans(api)
    hook = api.post(f"/games/{game}/webhooks", token=tokens[1], json={"url": receiver.url, "events": ["game.ended"]})
    return game, tokens[1], hook.json


def _attempts(api, game: str, token: str, hook: str, delivery: str, outcome: str, count: int) -> list[dict]:
    """The log's attempts at ``delivery`` once ``count`` of them ended with ``outcome``."""
    path = f"/games/{game}/webhooks/{hook}/deliveries"
    return wait_until(
        lambda: (
            (found := [e for e in api.get(path, token=token).json["deliveries"] if e["delivery"] == delivery])
            and sum(e["outcome"] == outcome for e in found) >= count
            and found
        ),
        20,
        f"{count} {outcome} attempts at {delivery}",
    )


@pytest.mark.slow
def test_a_test_delivery_is_sent_signed_by_the_workers_and_logged(hooks_env, receivers):
    """Slow: a worker process starts and delivers (about 2 s)."""
    api, workers = hooks_env
    receiver = receivers(200)
    game, token, hook = _hook(api, receiver)
    workers.start(**WORKER_ENV)
    sent = api.post(f"/games/{game}/webhooks/{hook['id']}/test", token=token)
    assert sent.status_code == 202 and sent.json["kind"] == "webhook.test"
    _attempts(api, game, token, hook["id"], sent.json["delivery"], "delivered", 1)
    (message,) = receiver.messages("webhook.test")
    assert Webhook(hook["secret"]).verify(message["body"], message["headers"]) == message["json"]
    assert message["headers"]["webhook-id"] == sent.json["delivery"]
    assert message["json"] == {
        "type": "webhook.test",
        "game": game,
        "version": api.get(f"/games/{game}").json["version"],
        "seat": 1,
        "data": {"webhook": hook["id"]},
    }


@pytest.mark.slow
def test_a_failed_delivery_is_redelivered_as_the_same_message_once_the_receiver_is_back(hooks_env, receivers):
    """Slow: the test delivery must fail its three tries first (back-offs 0.4 s and 0.8 s), about 4 s."""
    api, workers = hooks_env
    receiver = receivers(500)
    game, token, hook = _hook(api, receiver)
    workers.start(**WORKER_ENV)
    delivery = api.post(f"/games/{game}/webhooks/{hook['id']}/test", token=token).json["delivery"]
    _attempts(api, game, token, hook["id"], delivery, "failed", 1)
    receiver.script = [200]  # the receiver is fixed
    again = api.post(f"/games/{game}/webhooks/{hook['id']}/deliveries/{delivery}/redeliver", token=token)
    assert again.status_code == 202 and again.json == {
        "webhook": hook["id"],
        "delivery": delivery,
        "kind": "webhook.test",
    }
    _attempts(api, game, token, hook["id"], delivery, "delivered", 1)
    tries = receiver.messages("webhook.test")
    assert len(tries) == 4 and {m["headers"]["webhook-id"] for m in tries} == {delivery}  # 3 failed, 1 again
    assert len({m["body"] for m in tries}) == 1
    verifier = Webhook(hook["secret"])
    assert verifier.verify(tries[-1]["body"], tries[-1]["headers"]) == tries[0]["json"]
    missing = api.post(f"/games/{game}/webhooks/{hook['id']}/deliveries/msg_none/redeliver", token=token)
    assert missing.status_code == 404


@pytest.mark.slow
def test_a_webhook_disabled_by_failures_is_enabled_again_with_its_counts_reset(hooks_env, receivers):
    """Slow: five deliveries must fail every try to disable the webhook the real way, about 5 s."""
    api, workers = hooks_env
    receiver = receivers(500)
    game, token, hook = _hook(api, receiver)
    workers.start(**WORKER_ENV)
    path = f"/games/{game}/webhooks/{hook['id']}"
    for _ in range(5):  # five deliveries that fail every try disable it, as any deliveries do
        api.post(f"{path}/test", token=token)
    disabled = wait_until(
        lambda: (h := api.get(path, token=token).json) and not h["enabled"] and h, 30, "the webhook to be disabled"
    )
    assert disabled["disabled_reason"] == "failures" and disabled["failures"] >= 5
    refused = api.post(f"{path}/test", token=token)
    assert refused.status_code == 409 and refused.json["code"] == "webhook_disabled"
    enabled = api.post(f"{path}/enable", token=token)
    assert enabled.status_code == 200, enabled.json
    assert (enabled.json["enabled"], enabled.json["failures"], enabled.json["timeouts"]) == (True, 0, 0)
    assert enabled.json["disabled_reason"] is None
    receiver.script = [200]
    delivery = api.post(f"{path}/test", token=token).json["delivery"]
    _attempts(api, game, token, hook["id"], delivery, "delivered", 1)
    assert api.get(path, token=token).json["enabled"]
