"""An OAuth app's webhook for its people's stream news (application/outbound/app_webhooks.py,
service/routes/oauth_routes.py): its owner sets, replaces and removes it (``url`` null), a secret shown once each
time; no other account can touch it; an unsafe URL is refused naming ``url``."""

from __future__ import annotations

import pytest

from tests.support.accounts import OWN, page_of
from tests.support.oauth import registered

HOOK = "http://127.0.0.1/moon-push"


@pytest.fixture(autouse=True)
def _receivers_on_loopback(monkeypatch):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")


def test_the_owner_sets_replaces_and_removes_the_apps_webhook(api):
    bo = page_of(api, "bo@example.com")
    client = registered(bo)["client_id"]
    made = bo.put(f"/oauth/apps/{client}/webhook", json={"url": HOOK}, headers=OWN)
    assert made.status_code == 200, made.json
    assert made.json["url"] == HOOK and made.json["secret"].startswith("whsec_")
    again = bo.put(f"/oauth/apps/{client}/webhook", json={"url": HOOK + "/v2"}, headers=OWN)
    assert again.status_code == 200 and again.json["secret"] != made.json["secret"]
    assert bo.put(f"/oauth/apps/{client}/webhook", json={"url": None}, headers=OWN).status_code == 204
    assert not api.app.config["REDIS_CLIENT"].exists(f"oauth-app-webhook:{client}")


def test_another_account_cannot_set_or_remove_an_apps_webhook(api):
    bo = page_of(api, "bo@example.com")
    eve = page_of(api, "eve@example.com")
    client = registered(bo)["client_id"]
    assert bo.put(f"/oauth/apps/{client}/webhook", json={"url": HOOK}, headers=OWN).status_code == 200
    stolen = eve.put(f"/oauth/apps/{client}/webhook", json={"url": "http://127.0.0.1/eve"}, headers=OWN)
    assert stolen.status_code == 404 and "secret" not in stolen.json
    assert eve.put(f"/oauth/apps/{client}/webhook", json={"url": None}, headers=OWN).status_code == 404
    assert eve.put("/oauth/apps/app_nothing/webhook", json={"url": HOOK}, headers=OWN).status_code == 404
    assert api.put(f"/oauth/apps/{client}/webhook", json={"url": HOOK}).status_code == 401  # no session
    assert bo.put(f"/oauth/apps/{client}/webhook", json={"url": None}, headers=OWN).status_code == 204  # still Bo's


@pytest.mark.parametrize("url", ["http://10.0.0.1/hook", "http://169.254.169.254/latest", "ftp://127.0.0.1/x"])
def test_an_unsafe_or_bad_url_is_refused_naming_url(api, monkeypatch, url):
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "")
    bo = page_of(api, "bo@example.com")
    client = registered(bo)["client_id"]
    refused = bo.put(f"/oauth/apps/{client}/webhook", json={"url": url}, headers=OWN)
    assert refused.status_code in (400, 422), refused.json
    assert "url" in refused.json["errors"]
    assert not api.app.config["REDIS_CLIENT"].exists(f"oauth-app-webhook:{client}")  # nothing was set
