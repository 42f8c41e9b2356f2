"""From the attacker's side: a name others see (a seat's name at creation or on joining, an
account's display name, a passkey sign-up's name) that would break a mail header's line, reorder
the text around it or hide letters is refused by the field's name and changes nothing; the
letters real names need (accents, scripts written with the zero-width non-joiner, emoji joined
by the zero-width joiner) are taken (fakeredis)."""

from __future__ import annotations

import pytest

from tests.support.accounts import OWN, page_of, personal_token

REFUSED = {
    "CR/LF": "Ada\r\nBcc: everyone@example.com",
    "LF": "Ada\nBo",
    "tab": "Ada\tBo",
    "NUL": "Ada\x00",
    "C1 next line": "Ada\x85Bo",
    "line separator": "Ada\u2028Bo",
    "right-to-left override": "Ada\u202egnp.exe",
    "first-strong isolate": "\u2068Ada\u2069",
    "zero-width space": "Ad\u200ba",
    "right-to-left mark": "Ada\u200f",
    "byte order mark": "\ufeffAda",
    "tag character": "Ada\U000e0041",
}
TAKEN = ["Zoë Ørsted", "Дмитрий", "می\u200cخواهم", "\U0001f469\u200d\U0001f4bb Ada", "李小龍"]


def _refused(answer, *path: str) -> None:
    assert answer.status_code == 422, answer.json
    assert answer.headers["Content-Type"] == "application/problem+json"
    errors = answer.json["errors"]
    for step in path:
        errors = errors[step]
    assert "control or invisible formatting characters" in errors[0], errors


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_seat_name_that_hides_or_breaks_text_is_refused_by_name(api, kind):
    before = api.get("/games").json
    answer = api.post("/games", json={"seats": [{"kind": "human", "name": REFUSED[kind]}, {"kind": "human"}]})
    _refused(answer, "seats", "0", "name")
    assert api.get("/games").json == before  # no game was made


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_joiners_name_that_hides_or_breaks_text_is_refused_by_name(api, kind):
    made = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}).json
    invite = made["seats"][1]["invite"]
    answer = api.post(f"/games/{made['game']}/seats/1/join", json={"invite": invite, "name": REFUSED[kind]})
    _refused(answer, "name")
    joined = api.post(f"/games/{made['game']}/seats/1/join", json={"invite": invite, "name": "Bo"})
    assert joined.status_code == 201  # the invite was not used up by the refusal


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_display_name_that_hides_or_breaks_text_is_refused_by_name(api, kind):
    ada = personal_token(api, "ada@example.com")
    before = api.get("/me", token=ada).json["display_name"]
    _refused(api.patch("/me", json={"display_name": REFUSED[kind]}, token=ada), "display_name")
    assert api.get("/me", token=ada).json["display_name"] == before


def test_a_passkey_sign_ups_name_that_hides_or_breaks_text_is_refused_by_name(api):
    for name in REFUSED.values():
        _refused(api.post("/auth/passkeys/registration", json={"display_name": name}, headers=OWN), "display_name")


@pytest.mark.parametrize("name", TAKEN)
def test_names_in_any_script_and_joined_emoji_are_taken(api, name):
    made = api.post("/games", json={"seats": [{"kind": "human", "name": name}, {"kind": "human"}]})
    assert made.status_code == 201, made.json
    assert made.json["seats"][0]["name"] == name
    page = page_of(api, "ada@example.com")
    assert page.patch("/me", json={"display_name": name}, headers=OWN).json["display_name"] == name
