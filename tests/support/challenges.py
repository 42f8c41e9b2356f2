"""Challenges as the tests make them (application/challenges/): a challenge sent over the API, a
bot account's token, and the components the tests reach beside the API."""

from __future__ import annotations

from tests.support.accounts import OWN, page_of
from tests.support.lobby import auth


def components(api):
    return api.app.extensions["bluemoon"]


def challenge(api, token: str, account: str, **body) -> dict:
    answer = api.post("/challenges", json={"account": account, **body}, headers=auth(token))
    assert answer.status_code == 201, answer.json
    return answer.json


def mine(api, token: str) -> dict:
    answer = api.get("/me/challenges", headers=auth(token))
    assert answer.status_code == 200, answer.json
    return {way: [c["id"] for c in listed] for way, listed in answer.json.items()}


def bot_token(api, email: str) -> str:
    """An account turned into a bot account on its page, and a token of it (``play`` and ``bot``)."""
    page = page_of(api, email)
    assert page.post("/me/bot", headers=OWN).json["bot"] is True
    made = page.post("/me/tokens", json={"name": "bot", "scopes": ["read", "play", "bot"]}, headers=OWN)
    assert made.status_code == 201, made.json
    return made.json["token"]
