"""People in real browsers (issue 38 items 4, 6, 7): Ada opens Bo's profile and follows him, her
own profile's friends list shows Bo's current game and whose turn it is, with a link to watch
it, and on that game's page she keeps a private note; from his profile she challenges him, and Bo
finds his games on his own profile by their number of players (and none by a place or an ending, in play); Bo blocks Ada, and Ada can no longer follow him (she is told she cannot, not why). Ada's
pages are drawn on a phone: axe finds nothing serious and every control is 44 pixels."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import wait_until
from tests.support.browser import (  # noqa: F401 (the fixtures)
    OVERFLOWING,
    SMALL,
    browser,
    page_with_errors,
    serious,
    service_and_log,
    sign_in_by_mail,
)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_browser_follow_see_a_friends_game_then_blocked_cannot_follow(service_and_log, browser):  # noqa: F811
    """Slow: two browsers sign in by email link and click through both profiles."""
    base, log = service_and_log
    errors: list[str] = []
    ada, bo = page_with_errors(browser, errors, **PHONE), page_with_errors(browser, errors)
    sign_in_by_mail(ada, base, log, "ada-people-browser@example.com")
    sign_in_by_mail(bo, base, log, "bo-people-browser@example.com")
    own = {"Origin": base}
    bo.request.patch(f"{base}/me", data={"display_name": "Bo"}, headers=own)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    made = bo.request.post(f"{base}/games", data={"seats": seats, "setup": {"first_player": 0}}, headers=own)
    game = made.json()["game"]
    bo_id = bo.request.get(f"{base}/me").json()["account"]
    ada_id = ada.request.get(f"{base}/me").json()["account"]

    ada.goto(f"{base}/players/{bo_id}")  # a browser asks for HTML: the page
    ada.wait_for_selector("#follow[aria-pressed=false]")
    assert ada.text_content("#name") == "Bo"
    ada.click("#follow")
    ada.wait_for_selector("#follow[aria-pressed=true]")
    ada.fill("#note-text", "<b>plays fast</b>")  # a note is text: shown as typed, never markup
    ada.click("#note button[type=submit]")
    ada.wait_for_selector(".note-said:has-text('saved')")
    assert serious(ada) == [] and ada.evaluate(SMALL) == [] and ada.evaluate(OVERFLOWING) == []
    ada.click("#challenge")  # the profile's challenge form (challenges.js), for Bo
    ada.click("#challenge-section button[type=submit]")
    ada.wait_for_selector("#challenge-section [role=status]:has-text('Bo')")
    assert [c["challenged"]["account"] for c in ada.request.get(f"{base}/me/challenges").json()["outgoing"]] == [bo_id]

    bo.goto(f"{base}/players/{bo_id}")  # his own games, searched: in play too, as only he sees them
    bo.wait_for_selector(f"#games a[href='/play/{game}']")
    bo.select_option("#games-filter select[name=players]", "3")
    bo.wait_for_selector("#games .muted")
    assert "players=3" in bo.get_attribute("#games-export", "href")
    bo.select_option("#games-filter select[name=players]", "2")
    bo.wait_for_selector(f"#games a[href='/play/{game}']")
    bo.select_option("#games-filter select[name=ended]", "clock")  # a game in play has not ended, nor has a place
    bo.wait_for_selector("#games .muted")
    assert "ended=clock" in bo.get_attribute("#games-export", "href")
    bo.select_option("#games-filter select[name=ended]", "")
    bo.wait_for_selector(f"#games a[href='/play/{game}']")
    bo.select_option("#games-filter select[name=place]", "1")
    bo.wait_for_selector("#games .muted")
    assert "place=1" in bo.get_attribute("#games-export", "href")
    bo.select_option("#games-filter select[name=place]", "")
    bo.wait_for_selector(f"#games a[href='/play/{game}']")
    assert serious(bo) == []

    ada.goto(f"{base}/")
    ada.click("#my-profile")  # the lobby's link to her own profile: her friends and their games
    ada.wait_for_url(f"{base}/players/{ada_id}")
    friend = ada.wait_for_selector("#my-friends .friend")
    assert "Bo" in friend.text_content() and "Bo's turn" in friend.text_content()
    assert ada.get_attribute("#my-friends a.watch", "href") == f"/play/{game}"
    assert serious(ada) == [] and ada.evaluate(SMALL) == [] and ada.evaluate(OVERFLOWING) == []
    ada.select_option("#language", "de")
    ada.wait_for_selector("#my-friends a.watch:has-text('Zuschauen')")
    ada.click("#my-friends a.watch")  # watching Bo's game: her private note on it, on its page
    ada.fill("#note-section textarea", "Bo opens with the fire temple")
    ada.click("#note-section button[type=submit]")
    ada.wait_for_selector("#note-section .note-said:has-text('gespeichert')")
    ada.reload()
    wait_until(ada, "document.querySelector('#note-section textarea')?.value.includes('fire temple')")

    bo.goto(f"{base}/players/{ada_id}")
    bo.click("#block")
    bo.wait_for_selector("#block[aria-pressed=true]")
    ada.goto(f"{base}/players/{bo_id}")
    ada.wait_for_selector("#follow[aria-pressed=false]")  # the block ended her following
    assert ada.input_value("#note-text") == "<b>plays fast</b>"
    ada.click("#follow")
    ada.wait_for_selector("#said:has-text('erlaubt')")  # "Diese Person erlaubt das nicht." (German, as chosen)
    assert "block" not in ada.text_content("#said").lower()
    assert ada.get_attribute("#follow", "aria-pressed") == "false"
    # Chromium logs each answer that is not 2xx: the refused follow's 403 alone
    assert errors and all("status of 403" in e for e in errors), errors
