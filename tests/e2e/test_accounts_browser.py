"""Accounts in a real browser (Debian's chromium driven by Playwright): signing in by the emailed
link (a service without SMTP writes it to its log, as here), the same games on a second device
where a turn is played, seats this browser held kept in the account shown once the person
confirms it, and another origin's page refused the session cookie's use and refused a sign-in
(login CSRF)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import call, wait_until
from tests.support.browser import (  # noqa: F401 (the fixture)
    Traffic,
    another_site,
    browser,
    link_in,
    links_so_far,
    page_with_errors,
    service_and_log,
    settled,
    sign_in_by_mail,
)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_a_second_device_signed_in_sees_the_same_games_and_plays_a_turn(service_and_log, browser):  # noqa: F811
    base, log = service_and_log
    errors: list[str] = []
    laptop = page_with_errors(browser, errors)
    sign_in_by_mail(laptop, base, log, "ada@example.com")
    laptop.click("#create button.primary")  # the default seats: me and a greedy bot
    laptop.wait_for_selector("#games li a")
    game = laptop.get_attribute("#games li a", "href").split("/play/")[1].split("#")[0]

    laptop.click("#device-code")  # "sign in on another device": a one-time code
    code = laptop.text_content("#the-code")
    phone = page_with_errors(
        browser, errors, viewport={"width": 390, "height": 844}
    )  # another browser: nothing in common
    phone.goto(base + "/")
    phone.fill("#code-sign-in input[name=code]", code)
    phone.click("#code-sign-in button[type=submit]")
    phone.wait_for_selector("#signed-in")
    phone.wait_for_selector("#games li a")
    assert phone.get_attribute("#games li a", "href") == f"/play/{game}"  # from the account, no seat token
    traffic = Traffic(phone)
    phone.click("#games li a")
    phone.wait_for_selector("#actions button[data-type=end_turn]:not([disabled])", timeout=30_000)
    # the log holds every event so far: a log still filling from the stream's opening burst once
    # passed the wait below before the turn was even sent (CI, 2026-11-28)
    settled(phone, base, game)
    before = len(phone.query_selector_all("#log li"))
    phone.click("#actions button[data-type=end_turn]")
    wait_until(phone, f"document.querySelectorAll('#log li').length > {before}", timeout=30_000)
    # played over the play socket, which the session signed in (the page's own origin)
    assert traffic.heard_answers(phone, "result", 1) and traffic.commands() == ["end_turn"] and traffic.posted == []
    assert "ends the turn" in " ".join(phone.locator("#log li").all_text_contents())
    assert errors == []


def test_browser_seats_this_browser_held_are_kept_in_the_account_shown_once_confirmed(service_and_log, browser):  # noqa: F811
    base, log = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    page.goto(base + "/")
    page.click("#create button.primary")  # signed out: the seat token stays in this browser only
    page.wait_for_selector("#games li a[href*='#token=']")
    sign_in_by_mail(page, base, log, "bo@example.com")
    page.click("#keep-seats")  # first the account they would go to, and a question
    assert "bo@example.com" in page.text_content("#keep-account")
    page.click("#keep-no")  # not mine: nothing is kept
    assert page.query_selector("#keep-confirm") is None and page.query_selector("#account-note") is None
    page.click("#keep-seats")
    page.click("#keep-yes")
    page.wait_for_selector("#account-note:has-text('Kept')")
    other = page_with_errors(browser, errors)
    sign_in_by_mail(other, base, log, "bo@example.com")
    other.wait_for_selector("#games li a")
    assert len(other.query_selector_all("#games li")) == 1
    assert errors == []


PAGE = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>another origin</title>
<pre id="out">…</pre><script>
(async () => {
  const api = new URLSearchParams(location.search).get("api");
  // a simple request (no preflight): the browser sends it, with the cookie, from this origin
  await fetch(api + "/me/tokens", {method: "POST", mode: "no-cors", credentials: "include",
    headers: {"Content-Type": "text/plain"}, body: '{"name": "stolen"}'});
  document.getElementById("out").textContent = "sent";
})();
</script>"""


def test_browser_a_page_of_another_origin_cannot_use_the_session(service_and_log, browser, tmp_path):  # noqa: F811
    base, log = service_and_log
    (tmp_path / "index.html").write_text(PAGE)
    with another_site(tmp_path) as port:
        errors: list[str] = []
        context_page = page_with_errors(browser, errors)
        sign_in_by_mail(context_page, base, log, "cy@example.com")
        attacker = context_page.context.new_page()  # the same browser, its cookie for localhost in the jar
        attacker.goto(f"http://localhost:{port}/?api={base}")  # same site (localhost), another origin (port)
        attacker.wait_for_selector("#out:has-text('sent')")
        tokens = context_page.evaluate("async () => (await (await fetch('/me/tokens')).json()).tokens")
        assert tokens == []  # refused: nothing was made
        requests = [line for line in log.read_text().splitlines() if '"/me/tokens"' in line]  # the request log's
        refusals = [r for r in map(json.loads, requests) if r["path"] == "/me/tokens" and r["status"] == 403]
        assert refusals, "the server saw the request and refused it (the browser did send it)"


FORM = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>a game forum</title>
<form id="f" method="post" action="{action}"><input type="hidden" name="token" value="{token}"></form>
<script>document.getElementById("f").submit();</script>"""


def test_browser_another_sites_form_cannot_sign_the_visitor_in_to_its_account(service_and_log, browser, tmp_path):  # noqa: F811
    """Login CSRF, from the attacker's side: a page on another site posts the attacker's own
    sign-in link to /signin in the visitor's browser. Were it to sign in, the visitor's lobby
    would show the attacker's account, and keeping seats there would hand them over."""
    base, log = service_and_log
    before = links_so_far(log)
    assert call(base, "POST", "/auth/email-link", {"email": "mallory@example.com"})[0] == 202
    token = link_in(log, before).split("token=", 1)[1].split("&")[0]
    (tmp_path / "index.html").write_text(FORM.format(action=base + "/signin", token=token))
    with another_site(tmp_path) as port:
        errors: list[str] = []
        visitor = page_with_errors(browser, errors)
        visitor.goto(f"http://127.0.0.1:{port}/")  # another site: the form posts itself at once
        visitor.wait_for_url(lambda url: url.startswith(base))  # /signin refused, or the lobby signed in
        assert not [c for c in visitor.context.cookies() if "bm_session" in c["name"]]
        visitor.goto(base + "/")
        assert visitor.evaluate("async () => (await (await fetch('/auth/session')).json()).signed_in") is False
        assert call(base, "POST", "/auth/email-link/use", {"token": token})[0] == 200  # the link was not spent
