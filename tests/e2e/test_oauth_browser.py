"""OAuth in a real browser (Debian's chromium driven by Playwright) against the whole service: a
person signed in allows a native app on the consent page, and the app's loopback listener (on a
port it chose, not the one registered: RFC 8252 §7.3) receives the code, which the app exchanges
with its PKCE verifier for a token that reads the person's profile."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.e2e.conftest import call
from tests.support.browser import (  # noqa: F401 (the fixtures)
    browser,
    page_with_errors,
    service_and_log,
    sign_in_by_mail,
)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service

VERIFIER = "the-native-apps-own-verifier-of-forty-three-or-more-chars"


class _Loopback(BaseHTTPRequestHandler):
    """The native app's redirect listener: keeps the query it receives."""

    received: list[dict[str, str]] = []  # noqa: RUF012 (one listener per test)

    def do_GET(self) -> None:
        asked = urllib.parse.urlsplit(self.path)
        if asked.path == "/callback":  # (not the browser's /favicon.ico)
            self.received.append({k: v[0] for k, v in urllib.parse.parse_qs(asked.query).items()})
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"You can close this window.")

    def log_message(self, *args: object) -> None:
        pass


def test_browser_a_person_allows_an_app_and_its_loopback_listener_gets_a_code_that_works(
    service_and_log,  # noqa: F811
    browser,  # noqa: F811
):
    base, log = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    sign_in_by_mail(page, base, log, "ada@example.com")
    made = page.request.post(
        base + "/oauth/apps",
        data=json.dumps({"name": "Moon Desktop", "redirect_uris": ["http://127.0.0.1/callback"]}),
        headers={"Content-Type": "application/json", "Origin": base},
    )
    assert made.status == 201, made.text()
    client = made.json()["client_id"]

    _Loopback.received = []
    listener = ThreadingHTTPServer(("127.0.0.1", 0), _Loopback)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    try:
        redirect = f"http://127.0.0.1:{listener.server_address[1]}/callback"
        challenge = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode(
            {
                "response_type": "code",
                "client_id": client,
                "redirect_uri": redirect,
                "scope": "read play",
                "state": "abc",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        page.goto(f"{base}/oauth/authorize?{query}")
        assert "Moon Desktop" in page.text_content("main")
        page.click("button[value=allow]")
        page.wait_for_selector("text=You can close this window.")
    finally:
        listener.shutdown()
    (answer,) = _Loopback.received
    assert answer["state"] == "abc"

    form = urllib.parse.urlencode(
        {
            "grant_type": "authorization_code",
            "code": answer["code"],
            "redirect_uri": redirect,
            "code_verifier": VERIFIER,
            "client_id": client,
        }
    ).encode()
    with urllib.request.urlopen(urllib.request.Request(base + "/oauth/token", data=form), timeout=30) as response:
        tokens = json.loads(response.read())
    status, profile = call(base, "GET", "/me", token=tokens["access_token"])
    assert status == 200 and profile["email"] == "ada@example.com"
    assert errors == []
