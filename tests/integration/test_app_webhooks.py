"""An OAuth app's webhook end to end: a real worker writes a person's stream news and hands each
item to the webhook of the app the person allowed; a real receiver gets them signed with the
app's secret (verified with the ``standardwebhooks`` package), a refused one retried as the same
message, and nothing once the person revokes the app."""

from __future__ import annotations

import json

import pytest
from standardwebhooks.webhooks import Webhook

from application.outbound.app_webhooks import PREFIX as APP
from application.person_stream.entries import PREFIX as STREAM
from events import keys
from events.redis_store import text
from tests.support.accounts import OWN, page_of
from tests.support.oauth import registered, tokens_for
from tests.support.person_stream import LAST_OFFERING
from tests.support.workers import wait_until


@pytest.mark.slow
def test_a_person_who_allowed_the_app_has_their_news_delivered_signed_to_its_webhook(setting, receivers):
    """Slow: a real worker plays the bot's turns of two games and delivers (several seconds)."""
    api, receiver = setting, receivers(500, 200)  # the first try refused: retried
    bo, ada = page_of(api, "bo@example.com"), page_of(api, "ada@example.com")
    client = registered(bo)["client_id"]  # Bo wrote the app; Ada allows it
    secret = bo.put(f"/oauth/apps/{client}/webhook", json={"url": receiver.url}, headers=OWN).json["secret"]
    tokens_for(api, ada, client)
    account = ada.get("/me").json["account"]

    made = ada.post("/games", json=LAST_OFFERING, headers=OWN)
    assert made.status_code == 201, made.json
    game = made.json["game"]
    wait_until(lambda: receiver.messages("turn.started"), 20, "turn.started at the app's webhook")
    legal = ada.get(f"/games/{game}/legal").json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    played = ada.post(f"/games/{game}/commands", json=offer, headers={**OWN, "If-Match": f'"{legal["version"]}"'})
    assert played.status_code == 200, played.json
    (ended,) = wait_until(lambda: receiver.messages("game.ended"), 20, "game.ended at the app's webhook")
    wait_until(lambda: len(receiver.messages()) == 4, 20, "the refused delivery's retry")

    for message in receiver.messages():
        Webhook(secret).verify(message["body"], message["headers"])  # raises unless signed with the app's secret
        assert message["json"]["account"] == account and message["json"]["app"] == client
    assert ended["json"]["game"] == game and ended["json"]["data"]["winners"] == [0]
    ids = [m["headers"]["webhook-id"] for m in receiver.messages()]
    assert ids.count(ids[0]) == 2 and len(set(ids)) == len(ids) - 1 == 3  # the refused one again, as the same message
    assert sorted(m["json"]["type"] for m in receiver.messages()[1:]) == ["game.ended", "game.started", "turn.started"]

    # Ada revokes the app: her next news is not sent to it
    assert ada.delete(f"/me/apps/{client}", headers=OWN).status_code == 204
    before = len(receiver.requests)
    again = ada.post("/games", json=LAST_OFFERING, headers=OWN).json["game"]
    told = lambda: [e for e in ada.get("/me/events?after=0").json["events"] if e["game"] == again]  # noqa: E731
    wait_until(lambda: len(told()) >= 2, 20, "Ada's news of the second game")
    payloads, store = keys.outbox(keys.shard(again))[0], api.app.config["REDIS_CLIENT"]

    def pending() -> list[str]:  # news are handed on after they are written: wait for that too
        return [n for n in map(text, store.hkeys(payloads)) if n.startswith((STREAM, APP)) and f":{again}:" in n]

    wait_until(lambda: not pending(), 20, "the news of the second game to be handed on (to no app)")
    assert len(receiver.requests) == before, [json.loads(r["body"])["game"] for r in receiver.requests[before:]]
