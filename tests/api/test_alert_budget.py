"""A turn alert past its account's delivery budget (application/outbound/limits.py) waits for the
next minute, sends nothing now, and says so in the person's delivery log."""

from __future__ import annotations

import json

from application.outbound.limits import PER_ACCOUNT
from events import keys
from events.outbox import now_ms
from tests.support.accounts import personal_token
from tests.support.alerts import attempt_alert, channels_captured, end_the_turn, joined_game, outbox_entry


def test_an_alert_over_its_accounts_budget_waits_for_the_next_minute_and_the_log_says_so(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    with channels_captured() as sent:
        discord = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}}
        assert api.patch("/me/alerts", json=discord, token=bo).status_code == 200
        game, ada_seat, _ = joined_game(api, ada, bo)
        end_the_turn(api, game, ada_seat)
        bo_id = json.loads(outbox_entry(api, f"al:{game}:1"))["account"]
        client = api.app.extensions["bluemoon"].client
        client.set(keys.account_deliveries(bo_id), PER_ACCOUNT, px=20_000)  # Bo's minute is spent, 20 s to go
        assert attempt_alert(api, f"al:{game}:1") == "deferred" and not sent
        due = api.app.extensions["bluemoon"].store.outbox_entry(f"al:{game}:1")[1]
        assert 15_000 < due - now_ms() <= 20_000
        client.delete(keys.account_deliveries(bo_id))  # the next minute
        assert attempt_alert(api, f"al:{game}:1") == "done" and len(sent) == 1
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [(d["channel"], d["outcome"]) for d in log][-1] == ("all", "deferred")
    assert "budget" in log[-1]["detail"]
