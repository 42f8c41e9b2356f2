"""A finished game's review on its page (service/web/review.js), from the whole service: the
reviews worker that ``bluemoon`` starts computes it, and the page shows each seat's curve (with
its description and table), its totals in words and its costliest decisions, which take the
replay to their version; in another language too, and with no serious axe violation."""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.conftest import call
from tests.support.browser import browser, page_with_errors, serious  # noqa: F401 (browser: the fixture)

#: a real Chromium against the whole service, and a whole bots' game reviewed; on the embedded Redis only
#: (``own_store``): the page is what it tests, not the store (the API tests cover the review's reads)
pytestmark = [pytest.mark.slow, pytest.mark.own_store]


@pytest.fixture
def finished_bots_game(reviewing_server: str) -> str:
    """Two greedy bots, played to the end by the service's turn worker (each seat then has mistakes).
    A fixture, so that the game is played before the test takes its turn with the one browser."""
    server = reviewing_server
    body = {"seats": [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]}
    game = call(server, "POST", "/games", body)[1]["game"]
    deadline = time.monotonic() + 120
    while call(server, "GET", f"/games/{game}")[1]["status"] != "finished":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.5)
    return game


def test_browser_the_review_shows_each_seats_curve_totals_and_mistakes_and_a_mistake_opens_the_replay(
    reviewing_server,
    finished_bots_game,
    browser,  # noqa: F811
):
    """Slow: two greedy bots play a whole game (seconds), then the reviews worker reviews it (seconds)."""
    server = reviewing_server
    errors: list[str] = []
    game = finished_bots_game
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}")
    # pending, looked at again, then shown: about 10 s of one core, at a low priority on a busy machine
    page.wait_for_selector("#review .review-seat", timeout=240_000)
    review = call(server, "GET", f"/games/{game}/review")[1]["review"]
    seats = page.locator("#review .review-seat")
    assert seats.count() == 2
    first = seats.nth(0)
    assert "decisions cost" in first.locator(".review-totals").text_content()
    assert "the draws gave" in first.locator(".review-totals").text_content()
    curve = first.locator("svg[role=img]")
    assert "chance of finishing first" in curve.locator("title").text_content()
    assert "Started at" in curve.locator("desc").text_content()  # the line in words
    assert first.locator(".review-table tbody tr").count() == len(review["seats"][0]["curve"])  # and as a table
    mistakes = first.locator("button.review-mistake")
    assert mistakes.count() == len(review["seats"][0]["mistakes"]) > 0
    version = review["seats"][0]["mistakes"][0]["version"]
    mistakes.nth(0).click()
    page.wait_for_function(f"document.querySelector('#version').value === '{version}'")
    page.wait_for_selector(f"#shown:has-text('version {version} of')")
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    page.select_option("#language", "de")
    page.wait_for_selector("#review .review-totals:has-text('Entscheidungen')")
    assert "Chance" in first.locator("svg[role=img] title").text_content()
    assert errors == []
