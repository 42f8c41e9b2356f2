"""OAuth 2.1 for apps, from the app's side and the attacker's (application/accounts/oauth.py,
service/oauth_server.py): a program does the whole authorization-code flow with PKCE and plays a
turn with its access token; every way of using a code, verifier, redirect or refresh token that is
not the app's own is refused, and a second use of a code or refresh token revokes what it gave."""

from __future__ import annotations

from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from application.games.game_service import digest
from events import keys
from tests.support.accounts import OWN, page_of, sign_in_links
from tests.support.games import made_with_first_turn
from tests.support.oauth import (
    END_TURN,
    LOOPBACK,
    OPEN_SEAT,
    VERIFIER,
    answered,
    authorize_query,
    code_for,
    exchange,
    refresh,
    registered,
    tokens_for,
)


def refused(response, error: str, status: int = 400) -> None:
    assert response.status_code == status, response.json
    assert response.json["error"] == error, response.json


def test_a_program_allowed_on_the_consent_page_reads_and_plays_with_its_access_token(api):
    page = page_of(api, "ada@example.com")
    made = made_with_first_turn(page, OPEN_SEAT, headers=OWN)
    client = registered(page)["client_id"]

    shown = page.get(authorize_query(client), headers={"Accept-Language": "de"})
    assert shown.status_code == 200
    html = shown.data.decode()
    assert "Moon Mobile" in html and "Ihre Züge spielen" in html and 'lang="de"' in html
    assert "form-action 'self' http://127.0.0.1:*" in shown.headers["Content-Security-Policy"]

    got = tokens_for(api, page, client)
    assert got["token_type"] == "Bearer" and got["expires_in"] == 3600 and got["scope"] == "read play"
    assert got["access_token"].startswith("bma_") and got["refresh_token"].startswith("bmr_")
    assert api.get("/me", token=got["access_token"]).json["account"] == page.get("/me").json["account"]
    played = api.post(
        f"/games/{made['game']}/commands",
        token=got["access_token"],
        json=END_TURN,
        headers={"If-Match": f'"{made["version"]}"'},
    )
    assert played.status_code == 200, played.json

    rotated = refresh(api, client, got["refresh_token"])
    assert rotated.status_code == 200, rotated.json
    assert rotated.json["refresh_token"] != got["refresh_token"]
    assert api.get("/me", token=rotated.json["access_token"]).status_code == 200
    assert page.get("/me/apps").json["apps"] == [
        {
            "client_id": client,
            "name": "Moon Mobile",
            "scopes": ["read", "play"],
            "allowed": page.get("/me/apps").json["apps"][0]["allowed"],
        }
    ]


def test_the_loopback_redirect_takes_any_port_and_a_private_scheme_is_matched_exactly(api):
    page = page_of(api, "ada@example.com")
    client = registered(page, [LOOPBACK, "com.example.moon:/callback"])["client_id"]
    for redirect in ("http://127.0.0.1:51234/callback", "com.example.moon:/callback"):
        assert exchange(api, client, code_for(page, client, redirect), redirect).status_code == 200
    for other in ("http://127.0.0.1:51234/other", "com.example.moon:/other", "http://localhost/callback"):
        refused_page = page.get(authorize_query(client, other))
        assert refused_page.status_code == 400 and refused_page.json["code"] == "authorization_refused"


def test_a_wrong_verifier_another_redirect_or_an_unknown_app_gets_no_tokens(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    refused(exchange(api, client, code_for(page, client), verifier="x" * 50), "invalid_grant")
    other = "http://127.0.0.1:9/callback"
    refused(exchange(api, client, code_for(page, client), redirect=other), "invalid_grant")
    refused(exchange(api, "app_unknown", code_for(page, client)), "invalid_client")  # 401 only for Basic auth
    unknown = page.get(authorize_query("app_unknown"))
    assert unknown.status_code == 400 and unknown.json["code"] == "authorization_refused"
    unregistered = page.post(
        authorize_query(client, "https://evil.example/cb"), data={"decision": "allow"}, headers=OWN
    )
    assert unregistered.status_code == 400 and "Location" not in unregistered.headers  # nothing sent to evil.example
    assert page.get("/me/apps").json["apps"][0]["client_id"] == client


def test_plain_pkce_or_none_at_all_and_the_account_scope_are_refused_at_the_redirect(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    plain = page.post(
        authorize_query(client, code_challenge=VERIFIER, code_challenge_method="plain"),
        data={"decision": "allow"},
        headers=OWN,
    )
    assert answered(plain)["error"] == "invalid_request" and "code" not in answered(plain)
    bare = page.post(
        authorize_query(client, code_challenge=None, code_challenge_method=None),
        data={"decision": "allow"},
        headers=OWN,
    )
    assert answered(bare)["error"] == "invalid_request"
    account = page.post(authorize_query(client, scope="read account"), data={"decision": "allow"}, headers=OWN)
    assert answered(account)["error"] == "invalid_scope"
    denied = page.post(authorize_query(client), data={"decision": "deny"}, headers=OWN)
    assert answered(denied)["error"] == "access_denied"
    assert page.get("/me/apps").json["apps"] == []


def test_a_reused_code_is_refused_and_revokes_the_tokens_it_gave(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    code = code_for(page, client)
    first = exchange(api, client, code).json
    refused(exchange(api, client, code), "invalid_grant")
    assert api.get("/me", token=first["access_token"]).status_code == 401
    refused(refresh(api, client, first["refresh_token"]), "invalid_grant")


def test_a_reused_refresh_token_revokes_its_whole_family(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    first = tokens_for(api, page, client)
    second = refresh(api, client, first["refresh_token"]).json
    refused(refresh(api, client, first["refresh_token"]), "invalid_grant")  # the thief's (or the app's) replay
    assert api.get("/me", token=second["access_token"]).status_code == 401
    refused(refresh(api, client, second["refresh_token"]), "invalid_grant")


def test_a_revoked_token_is_unknown_and_revoking_a_refresh_token_takes_its_access_token_along(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    got = tokens_for(api, page, client)
    assert api.post("/oauth/revoke", data={"token": got["access_token"], "client_id": client}).status_code == 200
    unknown = api.get("/me", token=got["access_token"])
    assert unknown.status_code == 401 and unknown.json["code"] == "unauthorized"
    again = tokens_for(api, page, client)
    assert api.post("/oauth/revoke", data={"token": again["refresh_token"], "client_id": client}).status_code == 200
    assert api.get("/me", token=again["access_token"]).status_code == 401
    assert api.post("/oauth/revoke", data={"token": "bma_never-issued", "client_id": client}).status_code == 200


def test_a_token_without_the_scope_gets_insufficient_scope_and_no_app_manages_the_account(api):
    page = page_of(api, "ada@example.com")
    made = made_with_first_turn(page, OPEN_SEAT, headers=OWN)
    client = registered(page)["client_id"]
    reader = tokens_for(api, page, client, scope="read")["access_token"]
    played = api.post(
        f"/games/{made['game']}/commands", token=reader, json=END_TURN, headers={"If-Match": f'"{made["version"]}"'}
    )
    assert played.status_code == 403 and played.json["code"] == "insufficient_scope" and played.json["scope"] == "play"
    assert api.get(f"/games/{made['game']}").json["version"] == made["version"]
    for method, path in (("get", "/me/apps"), ("get", "/me/tokens"), ("delete", f"/me/apps/{client}")):
        answer = getattr(api, method)(path, token=reader)
        assert answer.status_code == 403 and answer.json["code"] == "session_required", path
    assert api.post("/oauth/apps", token=reader, json={"name": "x", "redirect_uris": [LOOPBACK]}).status_code == 403


def test_a_person_revokes_an_app_and_its_tokens_die_while_another_person_can_touch_neither(api):
    ada = page_of(api, "ada@example.com")
    bo = page_of(api, "bo@example.com")
    client = registered(bo)["client_id"]  # Bo wrote the app; Ada allowed it
    got = tokens_for(api, ada, client)
    assert bo.delete(f"/me/apps/{client}", headers=OWN).status_code == 404  # Bo never allowed it himself
    assert bo.get("/me/apps").json["apps"] == []
    assert api.get("/me", token=got["access_token"]).status_code == 200
    assert ada.delete(f"/me/apps/{client}", headers=OWN).status_code == 204
    assert api.get("/me", token=got["access_token"]).status_code == 401
    refused(refresh(api, client, got["refresh_token"]), "invalid_grant")
    assert ada.get("/me/apps").json["apps"] == []


def test_a_deleted_accounts_app_tokens_act_for_no_one(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    got = tokens_for(api, page, client)
    assert page.delete("/me", headers=OWN).status_code == 204
    assert api.get("/me", token=got["access_token"]).status_code == 401
    refused(refresh(api, client, got["refresh_token"]), "invalid_grant")
    stored = api.app.extensions["bluemoon"].client
    for token in (got["access_token"], got["refresh_token"]):  # gone now, not left until they expire
        assert not stored.exists(keys.oauth_token(digest(token)))


def test_another_site_cannot_allow_an_app_for_a_signed_in_person(api):
    page = page_of(api, "ada@example.com")
    client = registered(page)["client_id"]
    forged = page.post(authorize_query(client), data={"decision": "allow"}, headers={"Origin": "https://evil.example"})
    assert forged.status_code == 403 and forged.json["code"] == "cross_origin"
    assert page.get("/me/apps").json["apps"] == []
    signed_out = api.get(authorize_query(client))
    assert signed_out.status_code == 200 and "Sign in" in signed_out.data.decode()
    assert api.post(authorize_query(client), data={"decision": "allow"}).status_code == 401  # a page: sign in first


def test_a_person_not_signed_in_signs_in_by_the_emailed_link_and_comes_back_to_the_consent_page(api):
    client = registered(page_of(api, "dev@example.com"))["client_id"]
    asked = api.get(authorize_query(client))
    assert "Set-Cookie" in asked.headers and "Moon Mobile" not in asked.data.decode()
    (link,) = sign_in_links(api, "ada@example.com")
    back = api.post("/signin", data={"token": link}, headers=OWN)
    assert back.status_code == 303 and back.headers["Location"] == authorize_query(client)
    assert "Moon Mobile" in api.get(back.headers["Location"]).data.decode()
    (again,) = sign_in_links(api, "ada@example.com")  # the cookie was spent: the next sign-in goes to the lobby
    assert api.post("/signin", data={"token": again}, headers=OWN).headers["Location"] == "/"


def test_a_planted_return_cookie_sends_no_one_anywhere_but_the_consent_page(api):
    for planted in ("https://evil.example/", "//evil.example/oauth/authorize?", "/oauth/authorize?\\evil"):
        api.http.set_cookie("bm_oauth_return", planted)
        (link,) = sign_in_links(api, "ada@example.com")
        assert api.post("/signin", data={"token": link}, headers=OWN).headers["Location"] == "/", planted


def test_a_confidential_app_needs_its_secret(api):
    page = page_of(api, "ada@example.com")
    app = registered(page, ["https://app.example/cb"], public=False)
    client, secret = app["client_id"], app["client_secret"]
    redirect = "https://app.example/cb"
    refused(exchange(api, client, code_for(page, client, redirect), redirect), "invalid_client", 401)
    wrong = exchange(api, client, code_for(page, client, redirect), redirect, client_secret="bmcs_wrong")
    refused(wrong, "invalid_client", 401)
    right = exchange(api, client, code_for(page, client, redirect), redirect, client_secret=secret)
    assert right.status_code == 200, right.json


def test_redirects_that_are_not_https_loopback_or_a_private_scheme_are_refused_at_registration(api):
    page = page_of(api, "ada@example.com")
    for bad in ("http://app.example/cb", "https://app.example/cb#x", "javascript:alert(1)", "myapp:/cb"):
        made = page.post("/oauth/apps", json={"name": "x", "redirect_uris": [bad]}, headers=OWN)
        assert made.status_code == 422, bad
        assert "redirect_uris" in made.json["errors"], made.json


def test_the_metadata_is_rfc_8414s(api):
    found = api.get("/.well-known/oauth-authorization-server").json
    AuthorizationServerMetadata(found).validate()
    assert found["code_challenge_methods_supported"] == ["S256"]
    assert "account" not in found["scopes_supported"]


def test_a_developer_lists_the_apps_they_registered_and_no_one_else_sees_them(api):
    bo, eve = page_of(api, "bo-lists-apps@example.com"), page_of(api, "eve-lists-apps@example.com")
    first = registered(bo)
    second = registered(bo, public=False)
    listed = bo.get("/oauth/apps", headers=OWN)
    assert listed.status_code == 200
    assert [app["client_id"] for app in listed.json["apps"]] == [first["client_id"], second["client_id"]]
    assert all("client_secret" not in app for app in listed.json["apps"])  # shown once, at registration
    assert eve.get("/oauth/apps", headers=OWN).json == {"apps": []}
    assert api.get("/oauth/apps").status_code == 401
