"""A turn alert past its account's delivery budget (application/outbound_limits.py) waits for the
next minute, sends nothing now, and says so in the person's delivery log."""

from __future__ import annotations

import json

from application.outbound_limits import PER_ACCOUNT
from events import keys
from events.outbox import now_ms
from tests.api.test_accounts import _personal_token
from tests.api.test_alerts import _attempt, _channels_captured, _end_turn, _entry, _game_with


def test_an_alert_over_its_accounts_budget_waits_for_the_next_minute_and_the_log_says_so(api):
    ada, bo = _personal_token(api, "ada@example.com"), _personal_token(api, "bo@example.com")
    with _channels_captured() as sent:
        discord = {"discord": {"url": "https://203.0.113.9/api/webhooks/1"}}
        assert api.patch("/me/alerts", json=discord, token=bo).status_code == 200
        game, ada_seat, _ = _game_with(api, ada, bo)
        _end_turn(api, game, ada_seat)
        bo_id = json.loads(_entry(api, f"al:{game}:1"))["account"]
        client = api.app.extensions["bluemoon"].client
        client.set(keys.account_deliveries(bo_id), PER_ACCOUNT, px=20_000)  # Bo's minute is spent, 20 s to go
        assert _attempt(api, f"al:{game}:1") == "deferred" and not sent
        due = api.app.extensions["bluemoon"].store.outbox_entry(f"al:{game}:1")[1]
        assert 15_000 < due - now_ms() <= 20_000
        client.delete(keys.account_deliveries(bo_id))  # the next minute
        assert _attempt(api, f"al:{game}:1") == "done" and len(sent) == 1
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [(d["channel"], d["outcome"]) for d in log][-1] == ("all", "deferred")
    assert "budget" in log[-1]["detail"]
