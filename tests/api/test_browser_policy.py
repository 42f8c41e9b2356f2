"""Every page tells the browser to run only the service's own script files, to let no other site
frame it and to keep its address from other sites; every answer says nosniff
(service/browser_policy.py). No page the service serves holds an inline script or event
handler, which the policy would block (tests/e2e/test_browser_policy_browser.py runs them)."""

from __future__ import annotations

import re

from tests.support.accounts import OWN, sign_in

FILES = ["/", "/ratings", "/moderation", "/play/0123456789abcdef0123456789abcdef"]  #: (their file ETags are HTTP's own)
WRITTEN = ["/signin?token=bml_x", "/docs", "/alerts/unsubscribe?token=x"]  #: checked against openapi.yaml
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def _directives(policy: str) -> dict[str, str]:
    found = (part.strip().partition(" ") for part in policy.split(";") if part.strip())
    return {name: value for name, _, value in found}


def test_every_page_carries_a_policy_without_inline_script_or_framing(api):
    refused_sign_in = api.post("/signin", data={"token": "bml_spent"}, headers=OWN)  # its 401 is a page too
    answers = [*(api.http.get(path) for path in FILES), *(api.get(path) for path in WRITTEN), refused_sign_in]
    for answer in answers:
        assert answer.mimetype == "text/html", answer.request.path
        policy = _directives(answer.headers["Content-Security-Policy"])
        assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'", policy
        assert "unsafe" not in answer.headers["Content-Security-Policy"]
        assert answer.headers["Referrer-Policy"] == "same-origin"
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        page = answer.get_data(as_text=True)
        assert not INLINE_SCRIPT.search(page) and not INLINE_HANDLER.search(page), answer.request.path


def test_every_answer_says_nosniff_and_only_pages_carry_the_page_policy(api):
    sign_in(api)
    answers = [api.get("/healthz"), api.get("/games/" + "f" * 32), api.http.get("/web/app.css")]
    answers.append(api.delete("/auth/session", headers=OWN))  # empty, though text/html to Flask: no page
    for answer in answers:
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert "Content-Security-Policy" not in answer.headers, answer.request.path
