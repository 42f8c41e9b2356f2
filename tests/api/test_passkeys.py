"""Passkeys through the API with a software authenticator (cli/soft_authenticator.py): sign up,
sign in, add and remove one; replayed, cloned and malformed answers are refused with a problem,
never a 500. tests/e2e/test_passkeys_browser.py does the same with Chromium's authenticator."""

from __future__ import annotations

import copy

from cli.soft_authenticator import SoftPasskey
from tests.api.client import CheckedClient
from tests.support.accounts import OWN, sign_up_with_passkey


def _sign_in(api: CheckedClient, passkey: SoftPasskey) -> tuple[dict, dict, object]:
    begun = api.post("/auth/passkeys/assertion", headers=OWN).json
    answer = {"ceremony": begun["ceremony"], "credential": passkey.get(begun["options"])}
    return begun, answer, api.post("/auth/passkeys/sign-in", json=answer, headers=OWN)


def test_a_passkey_signs_up_signs_out_and_signs_in_again(api):
    passkey, registered = sign_up_with_passkey(api)
    me = api.get("/me").json
    assert me["account"] == registered["account"] and me["display_name"] == "Ada" and me["email"] is None
    api.delete("/auth/session", headers=OWN)
    assert api.get("/me").status_code == 401
    _, _, signed = _sign_in(api, passkey)
    assert signed.status_code == 200 and signed.json["account"] == registered["account"]
    assert "HttpOnly" in signed.headers["Set-Cookie"]
    listed = api.get("/me/passkeys").json["passkeys"]
    assert [p["id"] for p in listed] == [registered["passkey"]["id"]] and listed[0]["last_used"] is not None


def test_a_replayed_or_cloned_answer_is_refused(api):
    passkey, _ = sign_up_with_passkey(api)
    api.delete("/auth/session", headers=OWN)
    _, answer, signed = _sign_in(api, passkey)
    assert signed.status_code == 200
    api.delete("/auth/session", headers=OWN)
    replayed = api.post("/auth/passkeys/sign-in", json=answer, headers=OWN)
    assert replayed.status_code == 401 and replayed.json["code"] == "passkey_refused"
    clone = copy.deepcopy(passkey)  # the same key on another device, its counter behind
    _sign_in(api, passkey)  # the original moves on: 2 uses
    api.delete("/auth/session", headers=OWN)
    clone.sign_count = 0
    _, _, cloned = _sign_in(api, clone)  # the clone says 1
    assert cloned.status_code == 401 and "sign count" in cloned.json["detail"].lower()
    assert api.get("/me").status_code == 401


def test_several_passkeys_any_signs_in_and_a_removed_one_no_longer_does(api):
    first, registered = sign_up_with_passkey(api)
    second = SoftPasskey("http://localhost")
    begun = api.post("/auth/passkeys/registration", json={}, headers=OWN).json  # signed in: for this account
    added = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": second.create(begun["options"])},
        headers=OWN,
    )
    assert added.status_code == 201 and added.json["account"] == registered["account"]
    assert len(api.get("/me/passkeys").json["passkeys"]) == 2
    assert api.delete(f"/me/passkeys/{registered['passkey']['id']}", headers=OWN).status_code == 204
    api.delete("/auth/session", headers=OWN)
    _, _, refused = _sign_in(api, first)
    assert refused.status_code == 401
    _, _, signed = _sign_in(api, second)
    assert signed.status_code == 200 and signed.json["account"] == registered["account"]


def test_bad_answers_get_a_problem_and_change_nothing(api):
    passkey = SoftPasskey("http://localhost")
    begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada"}, headers=OWN).json
    for credential in ({}, {"id": "x", "response": "nonsense"}, {"id": 3, "rawId": [1], "type": "public-key"}):
        bad = api.post("/auth/passkeys", json={"ceremony": begun["ceremony"], "credential": credential}, headers=OWN)
        assert bad.status_code == 401 and bad.json["code"] == "passkey_refused", bad.json
        begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada"}, headers=OWN).json
    elsewhere = SoftPasskey("http://evil.example")  # an answer made for another origin
    wrong = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": elsewhere.create(begun["options"])},
        headers=OWN,
    )
    assert wrong.status_code == 401
    unknown = api.post("/auth/passkeys/sign-in", json={"ceremony": "nope", "credential": {}}, headers=OWN)
    assert unknown.status_code == 401
    _, _, never_registered = _sign_in(api, passkey)
    assert never_registered.status_code == 401 and "not registered" in never_registered.json["detail"]
    assert api.get("/me").status_code == 401
    assert api.post("/auth/passkeys/registration", json={"display_name": "x" * 41}, headers=OWN).status_code == 422


def test_deleting_the_account_removes_its_passkeys(api):
    passkey, _ = sign_up_with_passkey(api)
    assert api.delete("/me", headers=OWN).status_code == 204
    _, _, signed = _sign_in(api, passkey)
    assert signed.status_code == 401
    client = api.app.extensions["bluemoon"].client
    assert not client.keys("credential:*") and not client.keys("*passkeys*")


def test_behind_an_https_public_origin_the_passkey_belongs_to_its_host(api, monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "https://bluemoon.example")
    public = {"Origin": "https://bluemoon.example"}
    begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada"}, headers=public).json
    assert begun["options"]["rp"]["id"] == "bluemoon.example"
    local = SoftPasskey("http://localhost")  # an answer for another origin than the public one
    refused = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": local.create(begun["options"])},
        headers=public,
    )
    assert refused.status_code == 401
    begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada"}, headers=public).json
    passkey = SoftPasskey("https://bluemoon.example")
    made = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": passkey.create(begun["options"])},
        headers=public,
    )
    assert made.status_code == 201 and "Secure" in made.headers["Set-Cookie"]


def test_a_passkey_registered_already_makes_no_second_account(api):
    passkey, _ = sign_up_with_passkey(api)
    api.delete("/auth/session", headers=OWN)
    client = api.app.extensions["bluemoon"].client
    accounts_before = client.keys("{acct:*}:account")
    begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada again"}, headers=OWN).json
    again = api.post(
        "/auth/passkeys",
        json={"ceremony": begun["ceremony"], "credential": passkey.create(begun["options"])},
        headers=OWN,
    )
    assert again.status_code == 401 and "registered already" in again.json["detail"]
    assert client.keys("{acct:*}:account") == accounts_before


def test_an_answer_without_user_verification_is_refused_at_sign_up_and_sign_in(api):
    """A passkey is something held and something known (a PIN, a fingerprint): an authenticator
    that checked neither (no UV flag) signs no one up or in. The options ask the browser for it."""
    begun = api.post("/auth/passkeys/registration", json={"display_name": "Ada"}, headers=OWN).json
    assert begun["options"]["authenticatorSelection"]["userVerification"] == "required"
    careless = SoftPasskey("http://localhost", verifies_user=False)
    answer = {"ceremony": begun["ceremony"], "credential": careless.create(begun["options"])}
    refused = api.post("/auth/passkeys", json=answer, headers=OWN)
    assert refused.status_code == 401 and refused.json["code"] == "passkey_refused"
    assert "verif" in refused.json["detail"].lower() and api.get("/me").status_code == 401
    passkey, _ = sign_up_with_passkey(api)
    api.delete("/auth/session", headers=OWN)
    passkey.verifies_user = False  # the same passkey, answering without its PIN
    begun, _, signed = _sign_in(api, passkey)
    assert begun["options"]["userVerification"] == "required"
    assert signed.status_code == 401 and signed.json["code"] == "passkey_refused"
    assert api.get("/me").status_code == 401
