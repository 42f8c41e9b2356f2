"""Scopes, from the side of whoever holds a personal access token (application/accounts/scopes.py):
a token does what its scopes allow and nothing else, refused with 403 insufficient_scope naming
the scope (and RFC 6750's WWW-Authenticate) and changing nothing; an expired token is as unknown;
only the page's session makes tokens, and no token holds ``account``; tokens made before scopes
keep what they could do; the session keeps doing everything."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from unittest import mock

import pytest

from application.accounts.scopes import MAX_TOKEN_DAYS
from events import keys
from tests.support.accounts import OWN, page_of
from tests.support.games import created, made_with_first_turn

END_TURN = {"type": "end_turn", "discards": []}
OPEN_SEAT = {"seats": [{"kind": "human"}, {"kind": "open"}]}
NO_MAIL = {"email": {"enabled": False, "delay_seconds": 60}}


def token(page, scopes: list[str] | None = None, **extra) -> dict:
    """A personal access token made by the signed-in ``page``: its answer (secret and all)."""
    body = {"name": "a program", **({"scopes": scopes} if scopes is not None else {}), **extra}
    made = page.post("/me/tokens", json=body, headers=OWN)
    assert made.status_code == 201, made.json
    return made.json


def refused_for(answer, scope: str, code: str = "insufficient_scope") -> None:
    assert answer.status_code == 403, answer.json
    assert answer.json["code"] == code and answer.json["scope"] == scope, answer.json
    assert answer.headers["WWW-Authenticate"] == f'Bearer error="insufficient_scope", scope="{scope}"'


@pytest.fixture
def receiver(monkeypatch):
    """Webhook addresses at receiver.example pass the address checks (nothing is sent)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "receiver.example")
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("192.0.2.1", port))])
    return {"url": "https://receiver.example/in", "events": ["game.ended"]}


def test_a_read_token_reads_but_cannot_play_create_or_manage_webhooks_and_changes_nothing(api, receiver):
    page = page_of(api, "ada@example.com")
    made = made_with_first_turn(page, OPEN_SEAT, headers=OWN)  # Ada's seat 0, her turn
    game, version = made["game"], made["version"]
    reader = token(page, ["read"])["token"]
    assert api.get(f"/games/{game}/legal", token=reader).json["seat"] == 0
    mine = [g["game"] for g in page.get("/me/games").json["games"]]  # the game, and any drawn before it
    assert game in mine and [g["game"] for g in api.get("/me/games", token=reader).json["games"]] == mine

    refused_for(
        api.post(f"/games/{game}/commands", token=reader, json=END_TURN, headers={"If-Match": f'"{version}"'}), "play"
    )
    refused_for(api.post("/games", token=reader, json=OPEN_SEAT), "play")
    refused_for(api.post("/open-games", token=reader, json={"players": 2}), "play")
    invite = {"invite": made["seats"][1]["invite"]}
    refused_for(api.post(f"/games/{game}/seats/1/join", token=reader, json=invite), "play")
    refused_for(api.post(f"/games/{game}/webhooks", token=reader, json=receiver), "webhooks")
    refused_for(api.get(f"/games/{game}/webhooks", token=reader), "webhooks")
    refused_for(api.patch("/me/alerts", token=reader, json=NO_MAIL), "alerts")

    assert api.get(f"/games/{game}").json["version"] == version  # nothing played
    assert [g["game"] for g in page.get("/me/games").json["games"]] == mine  # no game made or joined
    assert api.get("/open-games").json["open_games"] == []
    assert api.get(f"/games/{game}").json["seats"][1]["kind"] == "open"  # the seat not taken
    assert page.get(f"/games/{game}/webhooks").json["webhooks"] == []
    assert page.get("/me/alerts").json["email"]["enabled"] is True


def test_a_play_token_plays_and_does_only_that(api):
    page = page_of(api, "ada@example.com")
    made = made_with_first_turn(page, OPEN_SEAT, headers=OWN)
    player = token(page, ["play"])["token"]
    played = api.post(
        f"/games/{made['game']}/commands", token=player, json=END_TURN, headers={"If-Match": f'"{made["version"]}"'}
    )
    assert played.status_code == 200 and played.json["version"] > made["version"]
    assert api.post("/games", token=player, json=OPEN_SEAT).status_code == 201
    refused_for(api.get("/me", token=player), "read")
    refused_for(api.get(f"/games/{made['game']}/webhooks", token=player), "webhooks")


def test_a_token_lasts_as_long_as_chosen_and_an_expired_one_is_refused_as_an_unknown_one(api):
    page = page_of(api, "ada@example.com")
    made = token(page, ["read"], expires_in_days=1)
    ends = datetime.fromisoformat(made["expires"])
    assert timedelta(hours=23) < ends - datetime.fromisoformat(made["created"]) <= timedelta(days=1)
    assert api.get("/me", token=made["token"]).status_code == 200
    later = (ends + timedelta(seconds=1)).isoformat(timespec="milliseconds")
    with mock.patch("application.accounts.account_service.now", lambda: later):
        expired = api.get("/me", token=made["token"])
    unknown = api.get("/me", token="bmp_" + "x" * 43)
    assert expired.status_code == unknown.status_code == 401
    assert expired.json["code"] == unknown.json["code"] and expired.json["detail"] == unknown.json["detail"]


@pytest.mark.parametrize("days", [0, MAX_TOKEN_DAYS + 1, "30"])
def test_a_token_is_made_to_last_at_most_the_documented_days(api, days):
    page = page_of(api, "ada@example.com")
    refused = page.post("/me/tokens", json={"name": "long", "expires_in_days": days}, headers=OWN)
    assert refused.status_code == 422 and "expires_in_days" in refused.json["errors"], refused.json
    assert page.get("/me/tokens").json["tokens"] == []
    assert token(page, expires_in_days=MAX_TOKEN_DAYS)["expires"] is not None


def test_only_the_session_makes_tokens_and_no_token_holds_account(api):
    page = page_of(api, "ada@example.com")
    for scopes in (["account"], ["read", "account"], ["admin"], []):
        refused = page.post("/me/tokens", json={"name": "too much", "scopes": scopes}, headers=OWN)
        assert refused.status_code == 422 and "scopes" in refused.json["errors"], (scopes, refused.json)
    everything = token(page, ["read", "play", "webhooks", "alerts"])["token"]
    for body in ({"name": "more", "scopes": ["read"]}, {"name": "more"}):
        refused_for(api.post("/me/tokens", token=everything, json=body), "account", code="session_required")
    refused_for(api.get("/me/tokens", token=everything), "account", code="session_required")
    assert len(page.get("/me/tokens").json["tokens"]) == 1


def test_a_token_lists_its_scopes_and_one_made_without_naming_them_holds_what_tokens_always_could(api):
    page = page_of(api, "ada@example.com")
    token(page, ["play", "read", "play"])
    token(page)
    listed = page.get("/me/tokens").json["tokens"]
    assert [t["scopes"] for t in listed] == [["read", "play"], ["read", "play", "webhooks", "alerts"]]
    assert [t["expires"] for t in listed] == [None, None]


def test_a_token_made_before_scopes_keeps_what_it_could_do_then(api, receiver):
    page = page_of(api, "ada@example.com")
    made = token(page)
    held = keys.account_tokens(page.get("/me").json["account"])
    client = api.app.extensions["bluemoon"].client
    record = json.loads(client.hget(held, made["id"]))
    client.hset(held, made["id"], json.dumps({k: v for k, v in record.items() if k not in ("scopes", "expires")}))
    old = made["token"]
    game = created(api, OPEN_SEAT, token=old)["game"]
    assert api.get("/me", token=old).status_code == 200
    assert api.post(f"/games/{game}/webhooks", token=old, json=receiver).status_code == 201
    assert api.get("/me/alerts", token=old).status_code == 200
    refused_for(api.delete("/me", token=old), "account", code="session_required")
    assert page.get("/me/tokens").json["tokens"][0]["scopes"] == ["read", "play", "webhooks", "alerts"]


def test_the_page_keeps_doing_everything(api, receiver):
    page = page_of(api, "ada@example.com")
    game = created(page, OPEN_SEAT, headers=OWN)["game"]  # play
    assert page.get("/me/games").json["games"][0]["game"] == game  # read
    assert page.post(f"/games/{game}/webhooks", json=receiver, headers=OWN).status_code == 201  # webhooks
    assert page.patch("/me/alerts", json=NO_MAIL, headers=OWN).status_code == 200  # alerts
    made = token(page)  # account
    assert page.delete(f"/me/tokens/{made['id']}", headers=OWN).status_code == 204
    assert page.patch("/me", json={"display_name": "Ada"}, headers=OWN).json["display_name"] == "Ada"
