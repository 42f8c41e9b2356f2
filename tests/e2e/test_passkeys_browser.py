"""Passkeys in a real browser (Debian's chromium driven by Playwright) with Chromium's virtual
authenticator (the DevTools Protocol's WebAuthn domain): a person signs up with a passkey,
signs out and signs in again; the same answer sent twice is refused, and so is one from a cloned
authenticator whose counter lags. WebAuthn needs a host name, so the page is on ``localhost``."""

from __future__ import annotations

import pytest

from tests.support.browser import browser  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}
PASSKEYS = "const m = await import('/web/passkeys.js');"


def _call(page, method: str, path: str, body=None) -> dict:
    script = """async ([method, path, body]) => {
        const m = await import('/web/transport.js');
        const r = await m.api(method, path, body === null ? undefined : body);
        return {status: r.status, body: r.body};
    }"""
    return page.evaluate(script, [method, path, body])


def test_browser_a_passkey_signs_up_signs_out_signs_in_and_a_replayed_or_cloned_answer_is_refused(server, browser):  # noqa: F811
    local = server.replace("127.0.0.1", "localhost")
    context = browser.new_context()
    page = context.new_page()
    page.goto(local + "/")
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    first = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]

    page.fill("#passkey-name", "Ada")  # the lobby's own buttons
    page.click("#passkey-sign-up")
    page.wait_for_selector("#signed-in:has-text('Ada')")
    account = _call(page, "GET", "/me")["body"]["account"]
    cookie = next(c for c in context.cookies() if c["name"] == "bm_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    page.click("#sign-out")
    page.wait_for_selector("#passkey-sign-in")
    assert _call(page, "GET", "/me")["status"] == 401
    page.click("#passkey-sign-in")
    page.wait_for_selector("#signed-in:has-text('Ada')")
    assert _call(page, "GET", "/me")["body"]["account"] == account

    # the answer of one more sign-in, sent again after it was used
    page.evaluate(f"async () => {{ {PASSKEYS} await m.signOut(); }}")
    signed_in = page.evaluate(f"async () => {{ {PASSKEYS} const r = await m.signInWithPasskey(); return r; }}")
    assert signed_in["status"] == 200 and signed_in["body"]["account"] == account
    page.evaluate(f"async () => {{ {PASSKEYS} await m.signOut(); }}")
    replayed = _call(page, "POST", "/auth/passkeys/sign-in", signed_in["sent"])
    assert replayed["status"] == 401 and replayed["body"]["code"] == "passkey_refused"

    # a clone: the same private key in a second authenticator, its counter back at 0
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": first})["credentials"]
    assert credential["signCount"] >= 1, "the authenticator counts its uses (else no clone could be told)"
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": first})  # one internal one at a time
    second = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]
    cdp.send("WebAuthn.addCredential", {"authenticatorId": second, "credential": {**credential, "signCount": 0}})
    cloned = page.evaluate(f"async () => {{ {PASSKEYS} const r = await m.signInWithPasskey(); return r; }}")
    assert cloned["status"] == 401 and "sign count" in cloned["body"]["detail"].lower(), cloned["body"]
    assert _call(page, "GET", "/me")["status"] == 401
    context.close()
