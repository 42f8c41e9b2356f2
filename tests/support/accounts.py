"""Accounts as the API tests make them: a sign-in by email link, another browser signed in, a
personal access token, a passkey sign-up (with the software authenticator)."""

from __future__ import annotations

from unittest import mock

from cli.soft_authenticator import SoftPasskey
from tests.api.client import CheckedClient

OWN = {"Origin": "http://localhost"}  #: the page's own origin, as the test client is addressed


def sign_in_links(api: CheckedClient, *emails: str) -> list[str]:
    """Ask for a sign-in link for each email; the tokens the links carry."""
    sent: list[str] = []
    with mock.patch("service.routes.account_routes.send_sign_in_link", lambda email, link, language: sent.append(link)):
        for email in emails:
            answer = api.post("/auth/email-link", json={"email": email}, headers=OWN)
            assert answer.status_code == 202, answer.json
    return [link.split("token=", 1)[1].split("&")[0] for link in sent]


def sign_in(api: CheckedClient, email: str = "ada@example.com") -> dict:
    """Sign in by email link (the session cookie stays in the test client)."""
    (token,) = sign_in_links(api, email)
    answer = api.post("/auth/email-link/use", json={"token": token}, headers=OWN)
    assert answer.status_code == 200, answer.json
    return answer.json


def page_of(api: CheckedClient, email: str) -> CheckedClient:
    """Another browser (its own cookies) signed in as ``email``: what only a session may do."""
    page = CheckedClient(api.app)
    sign_in(page, email)
    return page


def personal_token(api: CheckedClient, email: str) -> str:
    sign_in(api, email)
    made = api.post("/me/tokens", json={"name": "tests"}, headers=OWN).json["token"]
    api.delete("/auth/session", headers=OWN)
    return made


def sign_up_with_passkey(api: CheckedClient, name: str = "Ada") -> tuple[SoftPasskey, dict]:
    passkey = SoftPasskey("http://localhost")
    begun = api.post("/auth/passkeys/registration", json={"display_name": name}, headers=OWN).json
    assert begun["options"]["rp"]["id"] == "localhost"
    done = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": passkey.create(begun["options"])},
        headers=OWN,
    )
    assert done.status_code == 201, done.json
    return passkey, done.json
