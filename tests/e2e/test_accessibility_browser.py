"""axe-core (pinned in package.json, installed from npm, injected by the test: the pages never
load it) finds no serious or critical violation on the lobby, a seat's page mid-game and a
finished game's page (with its review); this covers every control's accessible name (button-name, label,
select-name, link-name), contrast and ARIA use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import call
from tests.support.browser import (
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    scenario_over_http,
    serious,
    settled,
)

#: a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

ROOT = Path(__file__).resolve().parents[2]


def test_browser_axe_finds_no_serious_violation_in_the_lobby_a_game_and_a_finished_game(reviewing_server, browser):  # noqa: F811
    """Slow: a real browser, and axe's full rule set run on four pages."""
    server = reviewing_server  # the finished game's page shows its review
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/")
    page.wait_for_selector("#email-sign-in")
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    game, tokens = scenario_over_http(
        server, figures=["courtyard", "earth_temple"], crystals=[30, 0], obelisk=[0, 0, 0, 0, 0]
    )
    page.goto(f"{server}/play/{game}#token={tokens[0]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    version = call(server, "GET", f"/games/{game}")[1]["version"]
    assert (
        call(server, "POST", f"/games/{game}/commands", {"type": "offer", "expected_version": version}, tokens[0])[0]
        == 200
    )
    page.reload()
    page.wait_for_selector("#audits:not([hidden])")
    page.wait_for_selector("#actions button[data-type=rematch]")
    page.wait_for_selector("#review .review-seat", timeout=60_000)  # its review, computed by the reviews worker
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    page.goto(f"{server}/ratings")
    page.wait_for_selector("#bots td")
    assert serious(page) == [], json.dumps(serious(page), indent=1)
    assert errors == []
