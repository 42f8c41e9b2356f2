"""The tournaments page in a real browser (issue 41, item 6): a signed-in person makes a tournament
with the page's form, lands on it, joins it; the page reads in German too, and axe finds nothing
serious on it."""

from __future__ import annotations

import pytest

from tests.support.browser import browser, page_with_errors, serious, service_and_log, sign_in_by_mail  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_a_tournament_is_made_joined_and_read_in_two_languages(service_and_log, browser):  # noqa: F811
    """Slow: a browser signs in by email link, then uses the page's form and buttons."""
    base, log = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    sign_in_by_mail(page, base, log, "kim.tournaments@example.com")
    page.goto(f"{base}/tournaments-page")
    page.wait_for_selector("#make-section:not([hidden]) button[type=submit]:not([disabled])")
    page.fill("#make input[name=name]", "Browser Cup")
    page.fill("#make input[name=starts]", "2031-06-01T18:00")
    page.click("#make button[type=submit]")
    page.wait_for_selector("#detail-section:not([hidden]) #detail button")
    assert page.text_content("#detail-title") == "Browser Cup"
    page.click("#detail button")  # join
    page.wait_for_selector("#detail button:has-text('Leave')")
    assert "1 player" in page.text_content("#detail")
    assert serious(page) == []
    page.select_option("#language", "de")
    page.wait_for_selector("#detail button:has-text('Verlassen')")
    assert page.text_content("#list-title") == "Turniere"
    assert serious(page) == []
    page.select_option("#language", "en")
    assert errors == []
