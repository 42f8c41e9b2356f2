"""The lobby in a real browser: a person opens a game, another signed in elsewhere sees it
appear without reloading and joins it with one click, and the game starts in both lobbies."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import call
from tests.e2e.test_accounts_browser import _sign_in, service_and_log  # noqa: F401 (the fixture)
from tests.e2e.test_play_browser import _page, _scenario, browser  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_an_open_game_is_seen_live_joined_in_one_click_and_started_for_both(service_and_log, browser):  # noqa: F811
    """Slow: two browsers sign in by email link and wait on the lobby's 3-second poll."""
    base, log = service_and_log
    errors: list[str] = []
    ada, bo = _page(browser, errors), _page(browser, errors)
    _sign_in(ada, base, log, "ada@example.com")
    _sign_in(bo, base, log, "bo@example.com")
    bo.wait_for_selector("#open-games li")  # bo's lobby is open, with nothing to join yet
    assert bo.locator("#open-games button[data-action=join]").count() == 0
    ada.select_option("#open-game select[name=players]", "2")
    ada.click("#open-game button[type=submit]")
    ada.wait_for_selector("#open-games button[data-action=cancel]")  # her own: she may cancel it
    bo.wait_for_selector("#open-games button[data-action=join]", timeout=10_000)  # live: no reload
    assert "1 free" in bo.text_content("#open-games li")
    bo.click("#open-games button[data-action=join]")
    bo.wait_for_selector("#games li a")
    ada.wait_for_selector("#games li a", timeout=10_000)  # her lobby follows without a reload
    game = bo.get_attribute("#games li a", "href")
    assert ada.get_attribute("#games li a", "href") == game and game.startswith("/play/")
    assert bo.locator("#open-games button[data-action=join]").count() == 0  # full: no longer listed
    assert "greedy bot" in ada.text_content("#leaderboard")
    ada.click("a[href='/ratings']")  # the leaderboard page: people, and how strong each bot level is
    ada.wait_for_selector("#bots td a")
    assert {"random bot", "greedy bot", "mcts bot"} <= set(ada.locator("#bots td a").all_text_contents())
    assert errors == []


def test_browser_a_rematch_offered_on_one_page_and_accepted_on_the_other_takes_both_to_the_new_game(server, browser):  # noqa: F811
    """Seat 0 holds five offerings and makes the sixth: the game ends. Its page offers a
    rematch, seat 1's page (each holds a seat token) sees the offer and accepts it, and both
    pages go to the new game, where each plays the same seat with its new token."""
    errors: list[str] = []
    game, tokens = _scenario(server, figures=["courtyard", "courtyard"], crystals=[30, 0], obelisk=[0, 0, 0, 0, 0])
    status, _ = call(
        server,
        "POST",
        f"/games/{game}/commands",
        {"type": "offer", "expected_version": _version(server, game)},
        tokens[0],
    )
    assert status == 200
    pages = [_page(browser, errors), _page(browser, errors)]
    for page, token in zip(pages, tokens):
        page.goto(f"{server}/play/{game}#token={token}")
    pages[0].click("#actions button[data-type=rematch]")
    pages[0].wait_for_selector("#rematch-status")
    pages[1].wait_for_selector("#actions button[data-type=rematch]:has-text('Accept')", timeout=10_000)
    pages[1].click("#actions button[data-type=rematch]")
    for page in pages:
        page.wait_for_url(re.compile(r"/play/(?!" + game + r")[0-9a-f]{32}"), timeout=10_000)
    new = pages[0].url.split("/play/")[1].split("#")[0]
    assert pages[1].url.split("/play/")[1].split("#")[0] == new
    for seat, page in enumerate(pages):
        page.wait_for_selector("#status:has-text('Turn')")
        assert f"You are seat {seat}." in page.text_content("#status")
    assert errors == []


def _version(server: str, game: str) -> int:
    return call(server, "GET", f"/games/{game}")[1]["version"]
