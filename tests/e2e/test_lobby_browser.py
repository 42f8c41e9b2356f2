"""The lobby in a real browser: a person opens a game, another signed in elsewhere sees it
appear without reloading and joins it with one click, and the game starts in both lobbies."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.conftest import call
from tests.support.browser import browser, page_with_errors, scenario_over_http, service_and_log, sign_in_by_mail  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service


def test_browser_an_open_game_is_seen_live_joined_in_one_click_and_started_for_both(service_and_log, browser):  # noqa: F811
    """Slow: two browsers sign in by email link and wait on the lobby's 3-second poll."""
    base, log = service_and_log
    errors: list[str] = []
    ada, bo = page_with_errors(browser, errors), page_with_errors(browser, errors)
    sign_in_by_mail(ada, base, log, "ada@example.com")
    sign_in_by_mail(bo, base, log, "bo@example.com")
    bo.wait_for_selector("#open-games li")  # bo's lobby is open, with nothing to join yet
    assert bo.locator("#open-games button[data-action=join]").count() == 0
    ada.select_option("#open-game select[name=players]", "2")
    ada.click("#open-game button[type=submit]")
    ada.wait_for_selector("#open-games button[data-action=cancel]")  # her own: she may cancel it
    bo.wait_for_selector("#open-games button[data-action=join]", timeout=30_000)  # live: no reload
    assert "1 free" in bo.text_content("#open-games li")
    bo.click("#open-games button[data-action=join]")
    bo.wait_for_selector("#games li a")
    ada.wait_for_selector("#games li a", timeout=30_000)  # her lobby follows without a reload
    game = bo.get_attribute("#games li a", "href")
    assert ada.get_attribute("#games li a", "href") == game and game.startswith("/play/")
    assert bo.locator("#open-games button[data-action=join]").count() == 0  # full: no longer listed
    assert "greedy bot" in ada.text_content("#leaderboard")
    ada.click("a[href='/ratings']")  # the leaderboard page: people, and how strong each bot level is
    ada.wait_for_selector("#bots td a")
    assert {"random bot", "greedy bot", "mcts bot"} <= set(ada.locator("#bots td a").all_text_contents())
    assert errors == []


def test_browser_the_forms_make_a_game_and_open_games_with_a_clock_and_the_lobby_lists_each_clock(
    service_and_log,  # noqa: F811
    browser,  # noqa: F811
):
    """Slow: a browser signs in by email link, creates a game with a time bank (once refused: a cap
    below the bank, the field named), then opens a game with a time bank and one with a deadline per turn, each seen
    in the list of open games; the API says what the forms asked for."""
    base, log = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    sign_in_by_mail(page, base, log, "ada@example.com")

    page.select_option("#create select[name=clock]", "bank")
    for name, value in {"bank_days": "2", "bank_hours": "12", "increment_days": "0", "increment_hours": "6"}.items():
        page.fill(f"#create input[name={name}]", value)
    page.fill("#create input[name=cap_days]", "1")  # below the bank: the API refuses it (422)
    page.select_option("#create select[name=deadline_level]", "greedy")
    page.click("#create button.primary")
    page.wait_for_selector("#problem:has-text('malformed')")
    # which field and why: the form's label for the field, the server's reason
    assert "Cap (empty: the bank): must be at least bank_seconds" in page.text_content("#problem")
    page.fill("#create input[name=cap_days]", "4")
    page.click("#create button.primary")
    page.wait_for_selector("#created a")
    assert page.text_content("#problem") == ""
    game = page.get_attribute("#created a", "href").split("/play/")[1].split("#")[0]
    status, view = call(base, "GET", f"/games/{game}")
    assert status == 200
    assert view["settings"]["clock"] == {"bank_seconds": 216_000, "increment_seconds": 21_600, "cap_seconds": 345_600}
    assert view["settings"]["deadline_level"] == "greedy" and view["settings"]["turn_deadline"] is None
    # the person's seat (seat 0) starts with the bank, less the seconds it has run if its turn came first
    assert 216_000_000 - 60_000 < view["clocks"][0]["bank_ms"] <= 216_000_000

    page.select_option("#open-game select[name=players]", "2")
    page.select_option(
        "#open-game select[name=clock]", "bank"
    )  # the defaults: 3 days, 1 day a turn, capped at the bank
    page.click("#open-game button[type=submit]")
    listed = page.wait_for_selector("#open-games li[data-open]:has-text('time bank 3 d + 1 d/turn')")
    assert "at most" not in listed.text_content()  # the cap is the bank: not worth a word
    opened = call(base, "GET", "/open-games")[1]["open_games"]
    assert [(t["clock"], t["turn_deadline"], t["deadline_level"]) for t in opened] == [
        ({"bank_seconds": 259_200, "increment_seconds": 86_400, "cap_seconds": 259_200}, None, "pass")
    ]

    page.click("#open-games button[data-action=cancel]")
    page.wait_for_selector("#open-games li.muted")  # no open game left
    page.select_option("#open-game select[name=clock]", "deadline")  # 24 hours unless changed
    page.select_option("#open-game select[name=deadline_level]", "mcts")
    page.click("#open-game button[type=submit]")
    page.wait_for_selector("#open-games li[data-open]:has-text('24 h per turn')")
    opened = call(base, "GET", "/open-games")[1]["open_games"]
    assert [(t["clock"], t["turn_deadline"], t["deadline_level"]) for t in opened] == [(None, 86_400, "mcts")]
    refused = "the server responded with a status of 422"  # the console's word for the refused creation
    assert [e for e in errors if refused not in e] == [] and len(errors) == 1


def test_browser_a_rematch_offered_on_one_page_and_accepted_on_the_other_takes_both_to_the_new_game(server, browser):  # noqa: F811
    """Seat 0 holds five offerings and makes the sixth: the game ends. Its page offers a
    rematch, seat 1's page (each holds a seat token) sees the offer and accepts it, and both
    pages go to the new game, where each plays the same seat with its new token."""
    errors: list[str] = []
    game, tokens = scenario_over_http(
        server, figures=["courtyard", "courtyard"], crystals=[30, 0], obelisk=[0, 0, 0, 0, 0]
    )
    status, _ = call(
        server,
        "POST",
        f"/games/{game}/commands",
        {"type": "offer", "expected_version": _version(server, game)},
        tokens[0],
    )
    assert status == 200
    pages = [page_with_errors(browser, errors), page_with_errors(browser, errors)]
    for page, token in zip(pages, tokens):
        page.goto(f"{server}/play/{game}#token={token}")
    pages[0].click("#actions button[data-type=rematch]")
    pages[0].wait_for_selector("#rematch-status")
    pages[1].wait_for_selector("#actions button[data-type=rematch]:has-text('Accept')", timeout=30_000)
    pages[1].click("#actions button[data-type=rematch]")
    for page in pages:
        page.wait_for_url(re.compile(r"/play/(?!" + game + r")[0-9a-f]{32}"), timeout=30_000)
    new = pages[0].url.split("/play/")[1].split("#")[0]
    assert pages[1].url.split("/play/")[1].split("#")[0] == new
    for seat, page in enumerate(pages):
        page.wait_for_selector("#status:has-text('Turn')")
        assert f"You are seat {seat}." in page.text_content("#status")
    assert errors == []


def _version(server: str, game: str) -> int:
    return call(server, "GET", f"/games/{game}")[1]["version"]


def test_browser_a_form_clicked_before_its_script_arrives_waits_for_it_instead_of_reloading_the_page(
    service_and_log,  # noqa: F811
    browser,  # noqa: F811
):
    """Slow: the lobby's script is held back two seconds, as on a slow phone or a busy machine. A
    click on "Create the game" meanwhile used to submit the form natively (a GET of ``/?edition=…``
    that reloaded the page and made no game; it failed the whole-game browser test under load).
    The button is disabled until the script has bound the form, so the click waits and the game
    is made."""
    base, _ = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)

    def late(route):
        time.sleep(2)
        route.continue_()

    page.route("**/web/lobby.js", late)
    page.goto(f"{base}/", wait_until="commit")
    page.wait_for_selector("#create button[type=submit]", state="attached")
    page.click("#create button[type=submit]", timeout=20_000)
    page.click("text=Play seat 0", timeout=20_000)
    assert "?" not in page.url and "/play/" in page.url
    assert errors == []
