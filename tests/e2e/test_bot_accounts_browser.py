"""Bot accounts on the page: the lobby labels a bot account's open game as a bot's, and a person
can hide the games bot accounts sit at."""

from __future__ import annotations

import pytest

from tests.support.browser import browser, page_with_errors, service_and_log, sign_in_by_mail  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_a_bot_accounts_open_game_is_labelled_and_can_be_hidden(service_and_log, browser):  # noqa: F811
    """Slow: two browsers sign in by email link; the lobby lists by its poll."""
    base, log = service_and_log
    errors: list[str] = []
    robo, ada = page_with_errors(browser, errors), page_with_errors(browser, errors)
    sign_in_by_mail(robo, base, log, "robo@example.com")
    assert robo.evaluate("fetch('/me/bot', {method: 'POST'}).then((r) => r.status)") == 200
    robo.select_option("#open-game select[name=players]", "2")
    robo.uncheck("#open-game input[name=rated]")
    robo.click("#open-game button[type=submit]")
    robo.wait_for_selector("#open-games button[data-action=cancel]")
    sign_in_by_mail(ada, base, log, "ada@example.com")
    ada.wait_for_selector("#open-games button[data-action=join]", timeout=30_000)
    assert "🤖" in ada.text_content("#open-games li") and "(bot)" in ada.text_content("#open-games li")
    ada.check("#hide-bot-accounts")
    ada.wait_for_selector("#open-games li.muted")  # "No open game": the bot's is hidden
    assert ada.locator("#open-games button[data-action=join]").count() == 0
    assert errors == []
