"""Any screen (issue 24 item 3): from a 360-pixel phone to a 1920-pixel desktop, nothing on
the lobby or a seat's page overflows its panel, and on phones every control is at least
44 x 44 pixels (the size a finger hits)."""

from __future__ import annotations

import pytest

from tests.support.browser import (
    OVERFLOWING,
    SHOTS,
    SMALL,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    scenario_over_http,
    settled,
)

#: a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

WIDTHS = (360, 390, 768, 1280, 1920)
PHONES = (360, 390)


def test_browser_no_panel_overflows_from_360_to_1920_pixels_and_phone_controls_are_44_pixels(server, browser):  # noqa: F811
    """Slow: two pages drawn and measured at five screen widths, each photographed."""
    errors: list[str] = []
    game, tokens = scenario_over_http(server)
    problems = {}
    for width in WIDTHS:
        phone = width in PHONES
        page = page_with_errors(
            browser, errors, viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone
        )
        for name, url, ready in (
            ("lobby", f"{server}/", "#email-sign-in"),
            ("seat", f"{server}/play/{game}#token={tokens[0]}", "#actions button[data-type=end_turn]"),
        ):
            page.goto(url)
            page.wait_for_selector(ready)
            if name == "seat":
                settled(page, server, game)
            found = page.evaluate(OVERFLOWING)
            if phone:
                found += page.evaluate(SMALL)
            if found:
                problems[f"{name} at {width}"] = found
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        page.context.close()
    assert problems == {}, problems
    assert errors == []
