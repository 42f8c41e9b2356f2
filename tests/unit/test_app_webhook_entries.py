"""Which apps hear of a person's news (application/outbound/app_webhooks.py ``hand_on``): only an
app the person allowed to read, that has a webhook; a job run twice adds each delivery once."""

from __future__ import annotations

import json

import fakeredis

from application.outbound.app_webhooks import hand_on
from events import keys
from events.person_streams import News

NEWS = [
    News("turn.started", "g1", "2026-11-27T12:00:00Z", {"seat": 0}),
    News("game.ended", "g1", "2026-11-27T12:01:00Z", {}),
]


def _allowed(client, account: str, app: str, scopes: list[str], hook: bool = True) -> None:
    client.hset(keys.account_oauth_grants(account), app, json.dumps({"scopes": scopes, "allowed": "", "families": []}))
    if hook:
        client.set(keys.oauth_app_webhook(app), json.dumps({"url": "https://example.com/", "secret": "whsec_x"}))


def test_only_an_app_allowed_to_read_with_a_webhook_is_handed_the_news_once():
    client = fakeredis.FakeRedis()
    _allowed(client, "acc1", "app_reads", ["read", "play"])
    _allowed(client, "acc1", "app_plays", ["play"])
    _allowed(client, "acc1", "app_hookless", ["read"], hook=False)
    _allowed(client, "acc2", "app_other", ["read"])  # another person's app
    assert hand_on(client, "ps:g1:7:acc1", "acc1", NEWS) == 2  # one per item, app_reads only
    assert hand_on(client, "ps:g1:7:acc1", "acc1", NEWS) == 0  # the job run again: added already
    due = keys.outbox_of("aw:g1:7:acc1")[1]
    names = sorted(n.decode() for n in client.zrange(due, 0, -1))
    assert names == ["aw:g1:7:acc1:app_reads:0", "aw:g1:7:acc1:app_reads:1"]
