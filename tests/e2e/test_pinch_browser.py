"""On a phone the board zooms and pans with two fingers (issue 24 item 3). Headless Chromium
ignores the browser's own pinch, so the page does it (service/web/zoom.js); here real touches
reach it through the DevTools protocol (Input.dispatchTouchEvent), as a phone's touch screen
would send them: two fingers spreading apart zoom the city, both moving pan it, the reset button
returns it to its size, and one finger still taps a tile to walk there."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import call, wait_until
from tests.support.browser import (
    SHOTS,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    settled,
    two_humans_over_http,
)

#: a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: The city's drawing as it shows: its box on the screen (the SVG, scaled and moved by the zoom).
CITY = "(() => { const r = document.querySelector('#board .city svg').getBoundingClientRect(); return [r.left, r.top, r.width]; })()"


def _touch(cdp, kind: str, *points: tuple[float, float]) -> None:
    touches = [{"x": x, "y": y, "id": i, "radiusX": 5, "radiusY": 5, "force": 1} for i, (x, y) in enumerate(points)]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": touches})


def _tap(cdp, box: dict) -> None:
    """One finger down and up inside ``box`` (a bounding box), away from its edges."""
    _touch(cdp, "touchStart", (box["x"] + 10, box["y"] + 10))
    _touch(cdp, "touchEnd")


def _gesture(cdp, start: list[tuple[float, float]], end: list[tuple[float, float]], steps: int = 8) -> None:
    """Fingers down at ``start``, moved in ``steps`` to ``end``, held still a moment (else the
    browser sees a fling, and the tap that follows only stops it), lifted."""
    _touch(cdp, "touchStart", *start)
    for k in range(1, steps + 1):
        _touch(
            cdp,
            "touchMove",
            *[(a + (b - a) * k / steps, c + (d - c) * k / steps) for (a, c), (b, d) in zip(start, end)],
        )
    time.sleep(0.2)
    _touch(cdp, "touchMove", *end)
    _touch(cdp, "touchEnd")


def test_browser_two_fingers_zoom_and_pan_the_board_and_one_finger_still_walks(server, browser):  # noqa: F811
    """Slow: a real Chromium with a touch screen against the whole service; gestures sent
    touch by touch."""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors, **PHONE)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#board g.target.step")
    settled(page, server, game)
    # the browser's own gestures are off over the city alone: the rest of the page scrolls
    assert page.evaluate("getComputedStyle(document.querySelector('#board .city')).touchAction") == "none"
    assert page.evaluate("getComputedStyle(document.querySelector('#hand')).touchAction") == "auto"
    page.locator("#board .city").scroll_into_view_if_needed()
    box = page.locator("#board .city").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    left, top, width = page.evaluate(CITY)
    assert page.locator("#reset-zoom").is_hidden()
    cdp = page.context.new_cdp_session(page)

    # two fingers spread apart from 60 to 200 pixels: the city grows about their midpoint
    _gesture(cdp, [(cx - 30, cy), (cx + 30, cy)], [(cx - 100, cy), (cx + 100, cy)])
    zoomed_left, zoomed_top, zoomed_width = page.evaluate(CITY)
    assert zoomed_width > 2.5 * width, (width, zoomed_width)
    assert zoomed_left < left and zoomed_top < top  # grown around the middle, not from a corner
    page.screenshot(path=str(SHOTS / "pinch-zoomed.png"))
    # both fingers move up and left together: the city follows them
    _gesture(cdp, [(cx - 40, cy + 60), (cx + 40, cy + 60)], [(cx - 100, cy - 20), (cx - 20, cy - 20)])
    panned_left, panned_top, panned_width = page.evaluate(CITY)
    assert panned_width == pytest.approx(zoomed_width, rel=0.01)
    assert panned_left < zoomed_left - 30 and panned_top < zoomed_top - 30, (
        zoomed_left,
        zoomed_top,
        panned_left,
        panned_top,
    )
    # the reset button (a finger's size, named for what it does) returns the city to its size
    reset = page.get_by_role("button", name="Reset zoom")
    size = reset.bounding_box()
    assert size["width"] >= 44 and size["height"] >= 44, size
    _tap(cdp, size)
    page.wait_for_selector("#reset-zoom", state="hidden")
    assert page.evaluate(CITY) == pytest.approx([left, top, width], abs=1)

    # one finger taps a tile a step reaches: the figure walks there, as a click does
    target = page.locator("#board g.target.step").first
    tile = target.get_attribute("data-tile")
    _tap(cdp, target.locator("rect.tile").bounding_box())
    walked = f"document.querySelector('#log').textContent.includes({tile.replace('_', ' ')!r})"
    wait_until(page, f"{walked} || document.querySelector('#choices button[data-type=move]')", timeout=30_000)
    if page.locator("#choices button[data-type=move]").count():  # a power reaches it too: choose the step
        _tap(cdp, page.locator("#choices button[data-type=move]").bounding_box())
    wait_until(page, walked, timeout=30_000)
    _, view = call(server, "GET", f"/games/{game}")
    assert view["players"][first]["position"] == tile
    assert errors == []
