"""OAuth apps in tests: registering one, the authorization code flow with PKCE, and its tokens."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.support.accounts import OWN

LOOPBACK = "http://127.0.0.1/callback"
VERIFIER = "a-verifier-of-at-least-forty-three-characters-0123456789"
END_TURN = {"type": "end_turn", "discards": []}
OPEN_SEAT = {"seats": [{"kind": "human"}, {"kind": "open"}]}


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def registered(page, redirect_uris=(LOOPBACK,), public=True) -> dict:
    made = page.post(
        "/oauth/apps", json={"name": "Moon Mobile", "redirect_uris": list(redirect_uris), "public": public}, headers=OWN
    )
    assert made.status_code == 201, made.json
    return made.json


def authorize_query(client: str, redirect=LOOPBACK, scope="read play", **extra) -> str:
    query = {
        "response_type": "code",
        "client_id": client,
        "redirect_uri": redirect,
        "scope": scope,
        "state": "st4te",
        "code_challenge": s256(VERIFIER),
        "code_challenge_method": "S256",
        **extra,
    }
    return "/oauth/authorize?" + urlencode({k: v for k, v in query.items() if v is not None})


def answered(response) -> dict[str, str]:
    """The query the authorization server sent the app's redirect."""
    assert response.status_code == 302, response.data
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["Location"]).query).items()}


def code_for(page, client: str, redirect=LOOPBACK, scope="read play") -> str:
    answer = answered(page.post(authorize_query(client, redirect, scope), data={"decision": "allow"}, headers=OWN))
    assert answer["state"] == "st4te"
    return answer["code"]


def exchange(api, client: str, code: str, redirect=LOOPBACK, verifier=VERIFIER, **extra):
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect,
        "code_verifier": verifier,
        "client_id": client,
        **extra,
    }
    return api.post("/oauth/token", data=form)


def refresh(api, client: str, refresh_token: str):
    return api.post(
        "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client}
    )


def tokens_for(api, page, client: str, scope="read play") -> dict:
    made = exchange(api, client, code_for(page, client, scope=scope))
    assert made.status_code == 200, made.json
    return made.json
