"""Challenges in a real browser (issue 38, item 5): Ann challenges Ben from the lobby's form; Ben,
signed in elsewhere, sees it arrive without reloading, on a phone's screen (axe finds nothing
serious, every control 44 px), and accepts it; both land in the new game, in their own seats."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import SMALL, browser, page_with_errors, serious, service_and_log, sign_in_by_mail  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_a_challenge_is_seen_by_the_challenged_accepted_and_both_land_in_the_game(service_and_log, browser):  # noqa: F811
    """Slow: two browsers sign in by email link and wait on the challenges' 5-second poll."""
    base, log = service_and_log
    errors: list[str] = []
    ann = page_with_errors(browser, errors)
    ben = page_with_errors(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    sign_in_by_mail(ann, base, log, "ann.challenges@example.com")
    sign_in_by_mail(ben, base, log, "ben.challenges@example.com")
    ben.wait_for_selector("#challenges-incoming li")  # his section is there, with nothing waiting yet
    ben_id = ben.evaluate("fetch('/me').then((r) => r.json()).then((me) => me.account)")
    ann.wait_for_selector("#challenges form")
    ann.fill("#challenges input[name=account]", ben_id)
    ann.select_option("#challenges select[name=clock]", "bank")
    ann.click("#challenges form button[type=submit]")
    ann.wait_for_selector("#challenges-outgoing li[data-challenge]")
    assert "Challenge sent" in ann.text_content("#challenges form [role=status]")

    ben.wait_for_selector("#challenges-incoming li[data-challenge]", timeout=30_000)  # live: no reload
    said = ben.text_content("#challenges-incoming li[data-challenge]")
    assert "challenges you" in said and "3-day time bank" in said
    assert serious(ben) == []
    assert ben.evaluate(SMALL) == []
    ben.click("#challenges-incoming li[data-challenge] button.primary")
    ben.wait_for_url(re.compile(r"/play/[0-9a-f]{32}$"), timeout=30_000)
    game = ben.url.split("/play/")[1]

    ann.wait_for_selector("#challenges-answered a", timeout=30_000)  # her lobby hears of the answer
    ann.click("#challenges-answered a")
    ann.wait_for_url(f"{base}/play/{game}", timeout=30_000)
    for seat, page in enumerate((ann, ben)):
        page.wait_for_selector("#status:has-text('Turn')")
        assert f"You are seat {seat}." in page.text_content("#status")
    assert errors == []
