"""Accounts without a password (application/accounts/account_service.py), through the API: an email link signs in,
the page holds a session cookie that other origins cannot use, programs use personal access
tokens, and a person's seats follow them to every device."""

from __future__ import annotations

import re
import time
from unittest import mock

import pytest

from events import keys
from tests.support.accounts import OWN, page_of, personal_token, sign_in, sign_in_links
from tests.support.games import made_with_first_turn


def test_an_email_link_signs_in_once_and_makes_the_account_on_first_use(api):
    (token,) = sign_in_links(api, "Ada@Example.com")
    used = api.post("/auth/email-link/use", json={"token": token})
    assert used.status_code == 200 and used.json["email"] == "ada@example.com"
    cookie = used.headers["Set-Cookie"]
    assert "bm_session=bms_" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # a local run on http://localhost
    again = api.post("/auth/email-link/use", json={"token": token}, headers=OWN)
    assert again.status_code == 401 and again.json["code"] == "sign_in_refused"
    assert api.get("/me").json["account"] == used.json["account"]
    (second,) = sign_in_links(api, "ada@example.com")  # the same person again: the same account
    assert api.post("/auth/email-link/use", json={"token": second}, headers=OWN).json["account"] == used.json["account"]


def test_a_link_lives_15_minutes_and_an_expired_one_is_refused_like_a_used_one(api):
    (token,) = sign_in_links(api, "ada@example.com")
    client = api.app.extensions["bluemoon"].client
    from application.games.game_service import digest

    key = keys.sign_in_link(digest(token))
    assert 890 <= client.ttl(key) <= 900
    client.pexpire(key, 1)
    time.sleep(0.01)  # past its (shortened) life
    answer = api.post("/auth/email-link/use", json={"token": token})
    assert answer.status_code == 401 and "15 minutes" in answer.json["detail"]


def test_the_answer_is_the_same_whether_or_not_the_address_has_an_account(api):
    sign_in(api, "known@example.com")
    api.delete("/auth/session", headers=OWN)
    with mock.patch("service.routes.account_routes.send_sign_in_link"):
        known = api.post("/auth/email-link", json={"email": "known@example.com"})
        unknown = api.post("/auth/email-link", json={"email": "nobody@example.com"})
    assert (known.status_code, known.json) == (unknown.status_code, unknown.json)
    assert known.json["delivery"] == "server log"  # no SMTP here: the page can say where the link went


def test_links_are_rate_limited_per_email_and_per_address(api):
    with mock.patch("service.routes.account_routes.send_sign_in_link"):
        answers = [api.post("/auth/email-link", json={"email": "ada@example.com"}) for _ in range(6)]
        assert [a.status_code for a in answers] == [202] * 5 + [429]
        assert int(answers[-1].headers["Retry-After"]) > 0 and answers[-1].json["code"] == "rate_limited"
        spread = [api.post("/auth/email-link", json={"email": f"p{i}@example.com"}) for i in range(16)]
        assert [a.status_code for a in spread] == [202] * 14 + [429] * 2  # 20 an hour from one address (6 above)


def test_a_bad_request_says_what_is_wrong_and_changes_nothing(api):
    assert api.post("/auth/email-link", json={"email": "not an address"}).status_code == 422
    assert api.post("/auth/email-link", json={"email": "a@b.c", "more": 1}).status_code == 422
    assert api.post("/auth/email-link/use", json={"token": ""}).status_code == 422
    assert api.get("/me").status_code == 401
    sign_in(api)
    huge = api.request("PATCH", "/me", json={"display_name": "x" * 41}, headers=OWN)
    assert huge.status_code == 422 and "display_name" in huge.json["errors"]
    assert api.get("/me").json["display_name"].startswith("Player ")
    assert api.delete("/me/tokens/tok_0000000000000000", headers=OWN).status_code == 404


def test_signing_out_ends_the_session_on_the_server(api):
    sign_in(api)
    cookie = api.http.get_cookie("bm_session").value
    assert api.delete("/auth/session", headers=OWN).status_code == 204
    assert api.get("/me").status_code == 401
    api.http.set_cookie("bm_session", cookie)  # the old cookie, kept by someone: no longer a session
    assert api.get("/me").status_code == 401


def test_a_cookie_authenticated_unsafe_request_from_another_origin_is_refused(api):
    sign_in(api)
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "http://localhost:9999"}, {}):
        refused = api.post("/me/tokens", json={"name": "stolen"}, headers=headers)
        assert refused.status_code == 403 and refused.json["code"] == "cross_origin", headers
    assert api.get("/me/tokens").json["tokens"] == []  # nothing was made
    assert api.post("/me/tokens", json={"name": "mine"}, headers={"Referer": "http://localhost/"}).status_code == 201


def test_a_personal_access_token_is_shown_once_acts_for_its_person_and_can_be_revoked(api):
    sign_in(api)
    made = api.post("/me/tokens", json={"name": "my bot"}, headers=OWN).json
    assert made["token"].startswith("bmp_") and made["last_used"] is None
    listed = api.get("/me/tokens").json["tokens"]
    assert [t["id"] for t in listed] == [made["id"]] and "token" not in listed[0]
    page = page_of(api, "ada@example.com")
    api.delete("/auth/session", headers=OWN)
    assert api.get("/me", token=made["token"]).status_code == 200
    stored = api.app.extensions["bluemoon"].client.hgetall(
        keys.account_tokens(api.get("/me", token=made["token"]).json["account"])
    )
    assert made["token"] not in str(stored)  # kept hashed only
    assert page.get("/me/tokens").json["tokens"][0]["last_used"] is not None
    assert page.delete(f"/me/tokens/{made['id']}", headers=OWN).status_code == 204
    assert api.get("/me", token=made["token"]).status_code == 401


def test_one_persons_token_never_acts_for_another(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    game = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, token=ada).json
    assert api.get("/me", token=bo).json["email"] == "bo@example.com"
    assert api.get(f"/games/{game['game']}/legal", token=bo).status_code == 403
    command = {"type": "end_turn", "discards": []}
    assert api.post(f"/games/{game['game']}/commands", json=command, token=bo).status_code == 403
    ada_tokens = page_of(api, "ada@example.com").get("/me/tokens").json["tokens"]
    assert page_of(api, "bo@example.com").delete(f"/me/tokens/{ada_tokens[0]['id']}", headers=OWN).status_code == 404
    assert api.get("/me", token=ada).status_code == 200
    assert api.get("/me/games", token=bo).json["games"] == []


def test_a_persons_seats_follow_them_and_their_token_plays_them(api):
    ada = personal_token(api, "ada@example.com")
    page_of(api, "ada@example.com").patch("/me", json={"display_name": "Ada"}, headers=OWN)
    created = made_with_first_turn(api, {"seats": [{"kind": "human"}, {"kind": "open"}]}, token=ada)
    game = created["game"]
    assert created["seats"][0]["name"] == "Ada"  # the display name, never the email
    legal = api.get(f"/games/{game}/legal", token=ada)
    assert legal.status_code == 200 and legal.json["seat"] == 0
    played = api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn", "discards": []},
        token=ada,
        headers={"If-Match": f'"{created["version"]}"'},
    )
    assert played.status_code == 200
    bo = personal_token(api, "bo@example.com")
    joined = api.post(f"/games/{game}/seats/1/join", json={"invite": created["seats"][1]["invite"]}, token=bo)
    assert joined.status_code == 201
    mine = api.get("/me/games", token=bo).json["games"]
    assert [(g["game"], g["my_seat"], g["my_turn"]) for g in mine] == [(game, 1, True)]
    assert [g["game"] for g in api.get("/games?my_turn=true", token=bo).json["games"]] == [game]
    assert joined.json["token"]  # the seat token still works beside the account
    assert api.get(f"/games/{game}/legal", token=joined.json["token"]).json["seat"] == 1


def test_seat_tokens_kept_in_a_browser_are_claimed_into_the_account(api):
    games = [api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json for _ in range(2)]
    seat_tokens = [games[0]["seats"][1]["token"], games[1]["seats"][0]["token"], "not-a-seat-token"]
    ada = personal_token(api, "ada@example.com")
    account = api.get("/me", token=ada).json["account"]
    claimed = api.post("/me/seats", json={"tokens": seat_tokens, "account": account}, token=ada).json
    assert sorted((c["game"], c["seat"]) for c in claimed["claimed"]) == sorted(
        [(games[0]["game"], 1), (games[1]["game"], 0)]
    )
    assert claimed["unmatched"] == 1
    assert {g["game"] for g in api.get("/me/games", token=ada).json["games"]} == {g["game"] for g in games}


def test_my_games_come_my_turn_first_then_by_last_move_a_page_at_a_time(api):
    ada = personal_token(api, "ada@example.com")
    made = []
    for first in (0, 1, 0, 1, 0):
        body = {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": first}}
        made.append(api.post("/games", json=body, token=ada).json["game"])
    seen, after = [], None
    while True:
        page = api.get("/me/games?limit=2" + (f"&after={after}" if after else ""), token=ada).json
        seen += page["games"]
        if (after := page["next"]) is None:
            break
    assert sorted(g["game"] for g in seen) == sorted(made)
    turns = [g["my_turn"] for g in seen]
    assert turns == sorted(turns, reverse=True) and turns.count(True) == 3
    mine_first = [g["updated"] for g in seen if g["my_turn"]]
    assert mine_first == sorted(mine_first, reverse=True)
    assert api.get("/me/games?limit=0", token=ada).status_code == 422
    assert api.get("/me/games?after=bogus", token=ada).status_code == 422


def test_deleting_the_account_removes_it_and_leaves_the_games_as_played(api):
    ada = personal_token(api, "ada@example.com")
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, token=ada).json
    client = api.app.extensions["bluemoon"].client
    account = api.get("/me", token=ada).json["account"]
    holders = keys.seat_accounts(created["game"]).encode()  # whom the game alerts: the account, until deleted
    assert client.hgetall(holders) == {b"0": account.encode()}
    game_keys = sorted(k for k in client.keys("*") if created["game"].encode() in k and k != holders)
    before = {k: client.dump(k) for k in game_keys}
    sign_in(api, "ada@example.com")
    assert api.delete("/me", headers=OWN).status_code == 204
    assert api.get("/me").status_code == 401 and api.get("/me", token=ada).status_code == 401
    assert not [k for k in client.keys("*") if account.encode() in k]  # its data, sessions and seats
    assert not client.keys("session:*") and not client.keys("pat:*") and not client.keys("email:*")
    assert {k: client.dump(k) for k in game_keys} == before  # the game is untouched
    assert not client.exists(holders)
    seat_token = created["seats"][0]["token"]
    assert api.get(f"/games/{created['game']}/legal", token=seat_token).status_code == 200
    fresh = sign_in(api, "ada@example.com")  # the address may sign up again: a new, empty account
    assert fresh["account"] != account


@pytest.mark.parametrize("public", ["https://bluemoon.example"])
def test_the_cookie_is_secure_behind_an_https_public_origin(api, monkeypatch, public):
    monkeypatch.setenv("PUBLIC_URL", public)
    (token,) = sign_in_links(api, "ada@example.com")
    used = api.post("/auth/email-link/use", json={"token": token})
    assert "Secure" in used.headers["Set-Cookie"]
    refused = api.post("/me/tokens", json={"name": "x"}, headers={"Origin": "http://localhost"})
    allowed = api.post("/me/tokens", json={"name": "x"}, headers={"Origin": public})
    assert refused.status_code == 403 and allowed.status_code == 201


def test_account_keys_are_one_slot_per_account_and_lookups_spread():
    from redis.crc import key_slot

    account = "0123456789abcdef0123456789abcdef"
    own = {
        key_slot(k(account).encode())
        for k in (keys.account, keys.account_seats, keys.account_tokens, keys.account_sessions)
    }
    assert len(own) == 1
    lookups = {key_slot(keys.session(f"{i:064x}").encode()) for i in range(200)}
    assert len(lookups) > 150  # no shared hot key: each lookup in a slot of its own


def test_a_code_from_a_signed_in_device_signs_in_another_once_within_10_minutes(api):
    from tests.api.client import CheckedClient as Client

    me = sign_in(api)
    shown = api.post("/me/device-code", headers=OWN)
    assert shown.status_code == 201 and shown.json["expires_in"] == 600
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", shown.json["code"]) and shown.json["code"] in shown.json["link"]
    phone = Client(api.app)  # another device: its own cookies
    used = phone.post("/auth/device-code", json={"code": shown.json["code"].lower()})
    assert used.status_code == 200 and used.json["account"] == me["account"]
    assert phone.get("/me").json["account"] == me["account"]
    again = Client(api.app).post("/auth/device-code", json={"code": shown.json["code"]})
    assert again.status_code == 401  # single use
    tries = [Client(api.app).post("/auth/device-code", json={"code": "ABCD-EFGH"}).status_code for _ in range(20)]
    assert tries == [401] * 19 + [429]  # 20 wrong codes an hour from one address: the spent one counted, not the use


def test_the_session_says_whether_one_is_signed_in_without_a_401(api):
    assert api.get("/auth/session").json == {"signed_in": False, "profile": None}
    me = sign_in(api)
    assert api.get("/auth/session").json == {"signed_in": True, "profile": me}
    null = api.post("/auth/passkeys/registration", data="null", content_type="application/json", headers=OWN)
    assert null.status_code == 422  # a body that is not an object


def test_a_deleted_account_follows_mutes_and_blocks_no_one_any_more(api):
    ada, bob = page_of(api, "ada-forgets@example.com"), page_of(api, "bob-forgotten@example.com")
    relations = api.app.extensions["bluemoon"].relations
    ada_id, bob_id = ada.get("/me").json["account"], bob.get("/me").json["account"]
    relations.follow(ada_id, bob_id)
    relations.mute(ada_id, bob_id)
    relations.block(ada_id, "someone-else")
    assert ada.delete("/me", headers=OWN).status_code == 204
    assert relations.following(ada_id) == [] and relations.follower_count(bob_id) == 0
    assert relations.muted(ada_id) == set() and relations.blocked(ada_id) == set()
