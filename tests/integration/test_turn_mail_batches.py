"""A "your turn" mail is never lost to a turn that came back within the mail delay: a real SMTP
server (aiosmtpd) and a real worker playing the bot. The person's turn is alerted, they end it,
the bot gives it back, all inside the delay; when the delay ends it is their turn, so the mail
comes, and the delivery log says "delivered" only for a mail that went out."""

from __future__ import annotations

import json
import time

import pytest
import redis

from events import keys
from tests.support.alerts import end_the_turn, parts_of, two_people
from tests.support.workers import wait_until

pytestmark = pytest.mark.slow  # a real worker plays the bot, and the test waits out a mail delay

DELAY = 6  #: the person's mail delay (s): long enough for a turn to go and come back inside it, on a busy machine


def test_a_turn_that_came_back_within_the_delay_is_mailed(
    inbox, setting, redis_url
):  # (the SMTP server first: the worker takes its address)
    api = setting
    _, bo = two_people(api)
    bo_email = api.get("/me", token=bo).json["email"]
    api.patch("/me/alerts", json={"email": {"enabled": True, "delay_seconds": DELAY}}, token=bo)
    made = api.post(
        "/games",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "setup": {"first_player": 1}},
        token=bo,
    ).json
    game, token = made["game"], made["seats"][0]["token"]
    store = api.app.extensions["bluemoon"].store
    client = redis.Redis.from_url(redis_url)

    def alerted_turn() -> int | None:
        """The turn of Bo's pending alert, once its job joined it to his mail batch and waits."""
        entry = store.outbox_entry(f"al:{game}:0")
        alert = json.loads(entry[0]) if entry else None
        joined = alert and client.exists(keys.alert_sent(alert["account"], f"{alert['id']}:mail-joined"))
        return alert["turn"] if joined else None

    first = wait_until(alerted_turn, 30, "Bo's turn alerted and waiting in his mail batch")
    opened = time.monotonic()
    end_the_turn(api, game, token)  # Bo ends his turn; the bot plays and gives it back
    wait_until(lambda: (alerted_turn() or 0) > first, 30, "the bot to give the turn back, alerted again")
    assert time.monotonic() - opened < DELAY, "the turn came back after the delay: the test proves nothing"
    wait_until(lambda: store.outbox_entry(f"al:{game}:0") is None, DELAY + 10, "the worker to be done with the alert")

    mails = [m for to, m in inbox.messages if bo_email in to]
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert len(mails) == 1, [(d["outcome"], d["attempt"]) for d in log]
    assert f"/play/{game}" in parts_of(mails[0])["text/plain"]
    assert [d["outcome"] for d in log if d["channel"] == "email"] == ["delivered"]
    client.close()
