"""Refusals that say which field, why and what is allowed, and headers that lead somewhere: a
webhook's URL refused by name, a seat's eleventh webhook refused for what it is, a created
webhook's Location that can be read, a body that is not JSON told where, a zone that is no
zone refused, and a 401 that names what is missing."""

from __future__ import annotations

import pytest

from application.outbound.webhooks import MAX_PER_SEAT
from tests.support.accounts import OWN, personal_token
from tests.support.games import game_and_tokens


@pytest.fixture
def seat(api, monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "receiver.example")  # resolves nowhere, and is not checked
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("192.0.2.1", port))])
    game, tokens = game_and_tokens(api)
    return game, tokens[0]


def test_a_created_webhooks_location_can_be_read(api, seat):
    game, token = seat
    made = api.post(
        f"/games/{game}/webhooks",
        token=token,
        json={"url": "https://receiver.example/hook", "events": ["turn.started"]},
    )
    assert made.status_code == 201
    shown = api.get(made.headers["Location"], token=token)
    assert shown.status_code == 200 and shown.json["id"] == made.json["id"] and "secret" not in shown.json
    assert api.get(made.headers["Location"]).status_code == 401  # a seat's own, as the list is


def test_a_webhook_url_that_is_not_allowed_is_refused_by_name(api, seat):
    game, token = seat
    refused = api.post(
        f"/games/{game}/webhooks", token=token, json={"url": "https://127.0.0.1/hook", "events": ["turn.started"]}
    )
    assert refused.status_code == 422 and refused.json["code"] == "unsafe_webhook_url"
    assert refused.json["field"] == "url" and refused.json["errors"]["url"]


def test_a_seats_webhook_past_its_limit_is_refused_for_what_it_is(api, seat):
    game, token = seat
    for n in range(MAX_PER_SEAT):
        assert (
            api.post(
                f"/games/{game}/webhooks",
                token=token,
                json={"url": f"https://receiver.example/{n}", "events": ["turn.started"]},
            ).status_code
            == 201
        )
    refused = api.post(
        f"/games/{game}/webhooks",
        token=token,
        json={"url": "https://receiver.example/more", "events": ["turn.started"]},
    )
    assert refused.status_code == 422 and refused.json["code"] == "too_many_webhooks"
    assert str(MAX_PER_SEAT) in refused.json["detail"]


def test_a_body_that_is_not_json_is_told_where(api):
    refused = api.post("/games", data='{"seats": [', headers={"Content-Type": "application/json"})
    assert refused.status_code == 400 and refused.json["code"] == "bad_request"
    assert "not JSON" in refused.json["detail"] and "column" in refused.json["detail"]


@pytest.mark.parametrize("zone", ["localtime", "posixrules", "Factory", "Mars/Olympus_Mons"])
def test_a_time_zone_that_is_no_iana_zone_is_refused(api, zone):
    ada = personal_token(api, "ada@example.com")
    quiet = {"quiet_hours": {"start": "22:00", "end": "07:00", "time_zone": zone}}
    refused = api.patch("/me/alerts", json=quiet, token=ada)
    assert refused.status_code == 422 and "time_zone" in refused.json["errors"]["quiet_hours"]
    assert (
        api.patch(
            "/me/alerts", json={"quiet_hours": {**quiet["quiet_hours"], "time_zone": "UTC"}}, token=ada
        ).status_code
        == 200
    )


def test_a_401_names_what_is_missing_whatever_the_operation(api):
    for path in ("/me", "/me/alerts"):
        refused = api.get(path, headers=OWN)
        assert (
            refused.status_code == 401 and refused.json["title"] == "Say who you are: a token or a session is required"
        )
