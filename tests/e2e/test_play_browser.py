"""The play-by-web page in a real browser (Debian's chromium driven by Playwright) against the
real service: the lobby, a whole game against a greedy bot played by clicking, two humans
seeing each other's moves live, a refused command shown, the phone layout, no console error."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import call

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def _page(browser, errors: list[str], **options):
    page = browser.new_context(**options).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def _status(page) -> str:
    return page.text_content("#status") or ""


def test_browser_a_whole_game_against_a_greedy_bot_is_played_from_the_lobby_to_the_end(start_service, browser):
    # the test clicks far faster than a person (several commands a second): no rate limits
    server = start_service(RATE_LIMIT="0")
    errors: list[str] = []
    page = _page(browser, errors)
    page.goto(f"{server}/")
    page.click("button[type=submit]")
    page.click("text=Play seat 0")
    page.wait_for_selector("#status:has-text('seat')")
    rnd, clicks, built = random.Random(5), 0, 0
    while "Finished" not in _status(page):
        assert clicks < 2500, "the game did not end"
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Finished') ||"
            " document.querySelector('#actions button:not([disabled])') !== null",
            timeout=30_000,
        )
        if "Finished" in _status(page):
            break
        kinds = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.dataset.type)")
        building = [i for i, kind in enumerate(kinds) if kind in ("contribute", "offer")]
        moves = [i for i, kind in enumerate(kinds) if kind == "move"]
        choice = rnd.choice(building) if building else rnd.choice(moves) if moves and rnd.random() < 0.6 else None
        target = kinds.index("end_turn") if choice is None and "end_turn" in kinds else choice
        if target is None:
            continue
        try:  # the live feed may redraw the buttons under the pointer: then look again
            page.locator("#actions button").nth(target).click(timeout=5_000)
        except PlaywrightError:
            continue
        built += kinds[target] in ("contribute", "offer")
        clicks += 1
        page.wait_for_function("!document.querySelector('#actions button[disabled]')", timeout=30_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "finished.png"))
    assert "winners" in _status(page) and clicks > 10 and built > 3, (clicks, built)
    assert page.query_selector("#board svg") is not None and len(page.query_selector_all("#log li")) > 20
    # the replay: the slider steps through every version, by keyboard too; the audit is shown
    page.wait_for_selector("#audit li:has-text('Verified')")
    final = page.text_content("#board")
    page.focus("#version")
    page.keyboard.press("Home")
    page.wait_for_selector("#shown:has-text('version 1 of')")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#shown:has-text('version 2 of')")
    assert page.text_content("#board") != final  # the city before anything was built
    page.click("#live")
    assert errors == []


def _two_humans(server) -> tuple[str, list[str], int]:
    status, created = call(server, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert status == 201
    tokens = [s["token"] for s in created["seats"]]
    _, view = call(server, "GET", f"/games/{created['game']}")
    return created["game"], tokens, view["turn"]["seat"]


def test_browser_two_humans_see_each_others_moves_live(server, browser):
    errors: list[str] = []
    game, tokens, first = _two_humans(server)
    mover = _page(browser, errors)
    watcher = _page(browser, errors)
    mover.goto(f"{server}/play/{game}#token={tokens[first]}")
    watcher.goto(f"{server}/play/{game}#token={tokens[1 - first]}")
    watcher.wait_for_selector("#log li")
    mover.wait_for_selector("#actions button[data-type=move]")
    before = len(watcher.query_selector_all("#log li"))
    target = mover.get_attribute("#actions button[data-type=move]", "data-type")
    assert target == "move"
    mover.click("#actions button[data-type=move]")
    watcher.wait_for_function(f"document.querySelectorAll('#log li').length > {before}", timeout=10_000)
    assert "goes to" in watcher.text_content("#log li:last-child")
    assert errors == []


def test_browser_a_refused_command_shows_the_problem(server, browser):
    errors: list[str] = []
    game, tokens, first = _two_humans(server)
    page = _page(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#actions button[data-type=move]")
    _, view = call(server, "GET", f"/games/{game}")
    status, _ = call(
        server,
        "POST",
        f"/games/{game}/commands",
        {"type": "end_turn", "expected_version": view["version"]},
        token=tokens[first],
    )
    assert status == 200  # the turn ended behind the page's back: its buttons are stale
    page.click("#actions button[data-type=move]", no_wait_after=True)
    page.wait_for_function("document.querySelector('#problem').textContent.length > 0", timeout=10_000)
    assert "version" in page.text_content("#problem") or "turn" in page.text_content("#problem")
    assert [e for e in errors if "409" not in e and "412" not in e] == []


def test_browser_the_page_fits_a_390_pixel_phone(server, browser):
    errors: list[str] = []
    game, tokens, first = _two_humans(server)
    page = _page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.tap("#actions button[data-type=end_turn]")
    page.wait_for_function("document.querySelector('#status').textContent.includes('Turn 2')", timeout=10_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
    assert errors == []
