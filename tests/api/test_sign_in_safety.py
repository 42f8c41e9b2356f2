"""Sessions start only where the person started them, and links, passkeys and the cookie follow
the configuration, never the request (service/origin.py, service/sessions.py). Tried from the
attacker's side: another site's form or script signing the visitor in to the attacker's account
(login CSRF), a planted session id (fixation), the attacker's session collecting the visitor's
seats, a foreign Host header asking for links, and a personal access token minting credentials."""

from __future__ import annotations

import inspect
import re

from flask import Flask

from cli.soft_authenticator import SoftPasskey
from service.sessions import SIGNS_IN
from tests.api.client import CheckedClient
from tests.support.accounts import OWN, page_of, personal_token, sign_in, sign_in_links, sign_up_with_passkey

#: What a browser says of a request another page made: another site, an opaque origin, another
#: port of the same host, only a Referer, only Fetch Metadata.
CROSS_SITE = [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://localhost:9999"},
    {"Referer": "http://evil.example/forum"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
]


def _cookie(api: CheckedClient) -> str | None:
    found = api.http.get_cookie("bm_session")
    return found.value if found else None


def test_another_sites_form_cannot_sign_the_visitor_in_and_spends_nothing(api):
    (token,) = sign_in_links(api, "mallory@example.com")  # the attacker's own link
    for headers in CROSS_SITE:
        posted = api.post("/signin", data={"token": token}, headers=headers)
        assert posted.status_code == 403 and posted.json["code"] == "cross_origin", headers
        assert "Set-Cookie" not in posted.headers
    assert api.get("/auth/session").json["signed_in"] is False
    assert api.post("/signin", data={"token": token}, headers=OWN).status_code == 303  # not spent by the refusals


def test_every_way_of_signing_in_refuses_another_sites_request_whatever_cookies_it_carries(api):
    sign_in(api, "ada@example.com")  # the visitor's own session, which the old check looked for
    ada = _cookie(api)
    (link,) = sign_in_links(api, "mallory@example.com")
    code = page_of(api, "mallory@example.com").post("/me/device-code", headers=OWN).json["code"]
    passkey, _ = sign_up_with_passkey(CheckedClient(api.app), "Mallory")
    begun = api.post("/auth/passkeys/assertion", headers=OWN).json
    signing_up = CheckedClient(api.app).post("/auth/passkeys/registration", json={"display_name": "M"}).json
    attempts = [
        ("/auth/email-link/use", {"token": link}),
        ("/auth/device-code", {"code": code}),
        ("/auth/passkeys/sign-in", {"ceremony": begun["ceremony"], "credential": passkey.get(begun["options"])}),
        (
            "/auth/passkeys",
            {
                "ceremony": signing_up["ceremony"],
                "credential": SoftPasskey("http://localhost").create(signing_up["options"]),
            },
        ),
    ]
    for path, body in attempts:
        for headers in CROSS_SITE:
            refused = api.post(path, json=body, headers=headers)
            assert refused.status_code == 403 and refused.json["code"] == "cross_origin", (path, headers)
            assert "Set-Cookie" not in refused.headers
        assert _cookie(api) == ada and api.get("/me").json["email"] == "ada@example.com"
    stranger = CheckedClient(api.app)  # no cookies at all: the old check let these through
    for path, body in attempts:
        assert stranger.post(path, json=body, headers={"Origin": "http://evil.example"}).status_code == 403
    assert stranger.get("/auth/session").json["signed_in"] is False
    for path, body in attempts[:3]:  # nothing was spent: each still signs in from the page
        assert CheckedClient(api.app).post(path, json=body, headers=OWN).status_code == 200, path


def test_a_program_that_says_no_origin_signs_in_as_before(api):
    (token,) = sign_in_links(api, "ada@example.com")
    assert api.post("/auth/email-link/use", json={"token": token}).status_code == 200  # curl, a bot's script
    (token,) = sign_in_links(api, "ada@example.com")
    page = {"Sec-Fetch-Site": "same-origin", "Referer": "http://localhost/signin?token=x"}
    assert CheckedClient(api.app).post("/signin", data={"token": token}, headers=page).status_code == 303


def test_every_operation_that_starts_a_session_is_among_those_checked(api):
    """Found in the views' source: whatever calls set_session or signed_in_as starts a session."""
    app: Flask = api.app
    starting = set()
    for rule in app.url_map.iter_rules():
        source = inspect.getsource(inspect.unwrap(app.view_functions[rule.endpoint]))
        if re.search(r"\b(set_session|signed_in_as)\(", source):
            starting |= {(method, rule.rule) for method in rule.methods or () if method not in {"HEAD", "OPTIONS"}}
    assert starting == SIGNS_IN


def test_signing_in_ends_the_session_the_request_came_with(api):
    sign_in(api, "mallory@example.com")
    planted = _cookie(api)  # a session id the attacker knows, in the visitor's browser
    sign_in(api, "ada@example.com")
    assert _cookie(api) != planted and api.get("/me").json["email"] == "ada@example.com"
    attacker = CheckedClient(api.app)
    attacker.http.set_cookie("bm_session", planted)
    assert attacker.get("/me").status_code == 401  # the old id is no session any more


def test_signing_out_everywhere_ends_every_session_of_the_account_and_no_other(api):
    token = personal_token(api, "ada@example.com")
    laptop, phone, bo = (
        page_of(api, "ada@example.com"),
        page_of(api, "ada@example.com"),
        page_of(api, "bo@example.com"),
    )
    assert CheckedClient(api.app).delete("/auth/sessions", headers=OWN).status_code == 401  # nobody signed in
    ended = phone.delete("/auth/sessions", headers=OWN)
    assert ended.status_code == 204 and "bm_session=;" in ended.headers["Set-Cookie"]
    assert laptop.get("/me").status_code == 401 and phone.get("/me").status_code == 401
    assert bo.get("/me").status_code == 200
    assert api.get("/me", token=token).status_code == 200  # tokens are revoked apart, one by one
    evil = bo.delete("/auth/sessions", headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403 and bo.get("/me").status_code == 200  # another site cannot sign bo out


def test_on_https_the_cookie_is_host_prefixed_secure_for_every_path_and_has_no_domain(api, monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "https://bluemoon.example")
    (token,) = sign_in_links(api, "ada@example.com")
    used = api.post("/auth/email-link/use", json={"token": token}, headers={"Origin": "https://bluemoon.example"})
    cookie = used.headers["Set-Cookie"]
    assert cookie.startswith("__Host-bm_session=bms_"), cookie
    assert "; Secure" in cookie and "; Path=/;" in cookie + ";" and "domain" not in cookie.lower()
    session = cookie.split(";")[0].split("=", 1)[1]
    shadow = CheckedClient(api.app)  # the plain name, as a sibling subdomain could set it
    shadow.http.set_cookie("bm_session", session)
    assert shadow.get("/me").status_code == 401
    assert api.get("/me").json["email"] == "ada@example.com"


def test_the_attackers_session_cannot_collect_the_visitors_seats(api):
    made = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    game, seat_token = made["game"], made["seats"][0]["token"]
    ada = page_of(api, "ada@example.com").get("/me").json["account"]  # the account the visitor was shown
    mallory = page_of(api, "mallory@example.com")  # the session swapped under the visitor's page
    sent = {"tokens": [seat_token], "account": ada}
    swapped = mallory.post("/me/seats", json=sent, headers=OWN)
    assert swapped.status_code == 409 and swapped.json["code"] == "not_this_account"
    cross = mallory.post(
        "/me/seats",
        json={**sent, "account": mallory.get("/me").json["account"]},
        headers={"Origin": "http://evil.example"},
    )
    assert cross.status_code == 403 and cross.json["code"] == "cross_origin"
    assert mallory.get("/me/games").json["games"] == []
    assert mallory.get(f"/games/{game}").json["viewer"] is None  # no seat: a spectator, who sees no hand


def test_a_foreign_host_gets_no_link_no_passkey_and_no_cookie_use(api):
    session = _cookie(page_of(api, "ada@example.com"))
    ada = CheckedClient(api.app)  # the same browser, its cookie sent as it is, whatever the host
    ada.http = api.app.test_client(use_cookies=False)
    for host, environ, origin in [
        ("evil.example", {}, "http://localhost"),
        ("localhost:5000", {}, "http://localhost"),  # a loopback name, but not the port served
        ("127.0.0.1", {}, "http://127.0.0.1"),
        ("127.0.0.1:8000", {"SERVER_PORT": "8000"}, "http://127.0.0.1:8000"),
        ("evil.example:8000", {"SERVER_PORT": "8000"}, "http://localhost:8000"),
    ]:
        sent = {"Host": host, "Origin": origin, "Cookie": f"bm_session={session}"}
        shown = ada.post("/me/device-code", headers=sent, environ_overrides=environ)
        assert shown.status_code == 201 and shown.json["link"].startswith(f"{origin}/#device-code="), (host, shown.json)
    rebound = ada.post(
        "/me/device-code",
        headers={"Host": "evil.example", "Origin": "http://evil.example", "Cookie": f"bm_session={session}"},
    )
    assert rebound.status_code == 403  # DNS rebinding: a page of evil.example, resolved to this service
    begun = CheckedClient(api.app).post("/auth/passkeys/registration", json={}, headers={"Host": "evil.example"})
    assert begun.json["options"]["rp"]["id"] == "localhost"


def test_a_personal_access_token_cannot_make_credentials_or_delete_the_account(api):
    token = personal_token(api, "ada@example.com")
    for method, path, body in [
        ("POST", "/me/tokens", {"name": "another"}),
        ("POST", "/me/device-code", None),
        ("POST", "/auth/passkeys/registration", {}),
        ("POST", "/auth/passkeys", {"ceremony": "x", "credential": {}}),
        ("DELETE", "/me", None),
        ("GET", "/me/tokens", None),
        ("DELETE", "/me/tokens/tok_0123456789abcdef", None),
        ("GET", "/me/passkeys", None),
        ("DELETE", "/me/passkeys/AAAA", None),
        ("PATCH", "/me", {"display_name": "Mallory"}),
        ("DELETE", "/auth/sessions", None),
    ]:
        refused = api.request(method, path, token=token, json=body)
        assert refused.status_code == 403 and refused.json["code"] == "session_required", (path, refused.json)
        assert "personal access token" in refused.json["detail"] and refused.json["scope"] == "account"
        assert refused.headers["WWW-Authenticate"] == 'Bearer error="insufficient_scope", scope="account"'
    page = page_of(api, "ada@example.com")  # the signed-in page may
    assert len(page.get("/me/tokens").json["tokens"]) == 1
    assert page.get("/me/passkeys").json["passkeys"] == []
    assert api.get("/me", token=token).json["display_name"] != "Mallory"  # unchanged, and the token still acts
    assert page.post("/me/tokens", json={"name": "another"}, headers=OWN).status_code == 201
    assert page.post("/me/device-code", headers=OWN).status_code == 201
    assert page.delete("/me", headers=OWN).status_code == 204
