"""The sign-in mail and the pages the server writes itself (a sign-in link's page, a mail's
unsubscribe page) speak the person's language: the one the lobby asks in, else the browser's
Accept-Language, else English; a link carries the mail's language to the page it opens."""

from __future__ import annotations

from email.message import EmailMessage
from unittest import mock

import pytest

from application.accounts import sign_in_mail as mail
from tests.support.accounts import OWN, sign_in


def _asked(api, body: dict, headers: dict | None = None) -> list[tuple[str, str]]:
    """Ask for a sign-in link; the (link, language) the mail was to be sent with."""
    sent: list[tuple[str, str]] = []
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: sent.append((link, language))
    ):
        answer = api.post("/auth/email-link", json=body, headers={**OWN, **(headers or {})})
        assert answer.status_code == 202, answer.json
    return sent


def test_the_sign_in_mail_takes_the_lobbys_language_else_the_browsers_else_english(api):
    [(link, language)] = _asked(api, {"email": "ada@example.com", "language": "ru"})
    assert language == "ru" and link.endswith("&lang=ru")
    assert _asked(api, {"email": "ada@example.com"}, {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"})[0][1] == "pt"
    assert _asked(api, {"email": "ada@example.com"}, {"Accept-Language": "fr-FR"})[0][1] == "en"
    refused = api.post("/auth/email-link", json={"email": "ada@example.com", "language": "fr"}, headers=OWN)
    assert refused.status_code == 422 and "language" in refused.json["errors"]


def test_the_sign_in_mail_is_worded_in_its_language(monkeypatch: pytest.MonkeyPatch):
    sent: list[EmailMessage] = []
    monkeypatch.setenv("SMTP_URL", "smtp://127.0.0.1:1")
    monkeypatch.setattr(mail, "send", sent.append)
    mail.send_sign_in_link("ada@example.com", "https://bluemoon.example/signin?token=t&lang=de", "de")
    assert sent[0]["Subject"] == "Dein Anmeldelink für Blue Moon City"
    body = sent[0].get_content()
    assert body.startswith("Öffne diesen Link innerhalb von 15 Minuten") and "token=t&lang=de" in body


def test_the_sign_in_page_speaks_the_links_language_else_the_browsers(api):
    page = api.get("/signin?token=bml_x&lang=pt").get_data(as_text=True)
    assert '<html lang="pt">' in page and "<title>Entrar - Blue Moon City</title>" in page
    assert 'action="/signin?lang=pt"' in page  # a refusal after the button is worded the same
    browsers = api.get("/signin?token=bml_x", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert '<html lang="ru">' in browsers and ">Войти</button>" in browsers
    refused = api.post("/signin?lang=de", data={"token": "bml_not-a-token"})
    assert refused.status_code == 401
    assert "Dieser Anmeldelink geht nicht" in refused.get_data(as_text=True)


def test_the_unsubscribe_pages_speak_the_mails_language(api):
    sign_in(api, "ada@example.com")
    account = api.get("/me").json["account"]
    token = api.app.extensions["bluemoon"].alerts.unsubscribe_token(account)
    api.delete("/auth/session", headers=OWN)  # a mail's link is opened signed out
    page = api.get(f"/alerts/unsubscribe?token={token}&lang=de").get_data(as_text=True)
    assert '<html lang="de">' in page and ">Mails abbestellen</button>" in page
    assert f'action="/alerts/unsubscribe?token={token}&amp;lang=de"' in page
    done = api.post(
        f"/alerts/unsubscribe?token={token}&lang=de",
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert done.status_code == 200 and "Erledigt: keine „Du bist am Zug“-Mails mehr" in done.get_data(as_text=True)
    assert api.get(f"/alerts/unsubscribe?token={token}&lang=xx").status_code == 422
