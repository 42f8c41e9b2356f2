"""Any screen (issue 24 item 3): from a 360-pixel phone to a 1920-pixel desktop, nothing on
the lobby or a seat's page overflows its panel, and on phones every control is at least
44 x 44 pixels (the size a finger hits)."""

from __future__ import annotations

import pytest

from tests.e2e.test_play_browser import SHOTS, _page, _scenario, _settled, browser  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service

WIDTHS = (360, 390, 768, 1280, 1920)
PHONES = (360, 390)

#: Every panel's overflow: an element wider inside than it shows, or the page wider than the screen.
OVERFLOWING = """() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push(`page ${document.documentElement.scrollWidth}`);
  for (const el of document.querySelectorAll("header, main, section, main > *, .group, fieldset, form")) {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.overflowX === "auto" || style.overflowX === "scroll") continue;
    if (el.scrollWidth > el.clientWidth + 1) found.push(`${el.tagName.toLowerCase()}#${el.id} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return found;
}"""

#: The visible controls smaller than 44 x 44 pixels (a checkbox counts by the label it sits in;
#: a link in a sentence is exempt, as WCAG 2.5.8 exempts inline targets).
SMALL = """() => [...document.querySelectorAll("button, a[href], select, input, [role=button], label:has(input[type=checkbox])")]
  .filter((el) => !(el.matches("input[type=checkbox]") && el.closest("label")) && !el.matches("p a"))
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .map((el) => [el, el.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 44)
  .map(([el, r]) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}[${(el.textContent || el.name || "").trim().slice(0, 20)}] ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def test_browser_no_panel_overflows_from_360_to_1920_pixels_and_phone_controls_are_44_pixels(server, browser):  # noqa: F811
    """Slow: two pages drawn and measured at five screen widths, each photographed."""
    errors: list[str] = []
    game, tokens = _scenario(server)
    problems = {}
    for width in WIDTHS:
        phone = width in PHONES
        page = _page(browser, errors, viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone)
        for name, url, ready in (
            ("lobby", f"{server}/", "#email-sign-in"),
            ("seat", f"{server}/play/{game}#token={tokens[0]}", "#actions button[data-type=end_turn]"),
        ):
            page.goto(url)
            page.wait_for_selector(ready)
            if name == "seat":
                _settled(page, server, game)
            found = page.evaluate(OVERFLOWING)
            if phone:
                found += page.evaluate(SMALL)
            if found:
                problems[f"{name} at {width}"] = found
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        page.context.close()
    assert problems == {}, problems
    assert errors == []
