"""The pages in the reader's language (issue 24): a browser whose language is Russian, then one
whose language is Portuguese, gets the lobby and a seat's page in it, plays a whole turn there,
sees a refused command's problem worded in it from the problem's code, and switches to another
language with the header's selector, which the next visit remembers."""

from __future__ import annotations

import time

import pytest

from tests.e2e.conftest import call, wait_until
from tests.support.browser import (
    GAME_STREAM,
    SHOTS,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    settled,
    two_humans_over_http,
    walk,
)

#: a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

#: What the page must say in each language: texts written for it, not the English ones.
SAID = {
    "ru-RU": {
        "lang": "ru",
        "picker": "Язык",
        "lobby": "Новая игра",
        "city": "Город",
        "your_turn": "Ваш ход.",
        "steps": "У вас 2 шага.",  # Russian's "few" plural form
        "shuffled": "колода перемешана",
        "dealt": "получает 8 карт",  # and its "many" form
        "walked": "идёт на поле «",
        "end_turn": "Закончить ход",
        "ended": "заканчивает ход",
        "turn_2": "Ход 2",
        "stale": "Игра ушла вперёд",
    },
    "pt-BR": {
        "lang": "pt",
        "picker": "Idioma",
        "lobby": "Novo jogo",
        "city": "A cidade",
        "your_turn": "Sua vez.",
        "steps": "Você tem 2 passos.",
        "shuffled": "o baralho é embaralhado",
        "dealt": "recebe 8 cartas",
        "walked": "anda até",
        "end_turn": "Encerrar o turno",
        "ended": "encerra o turno",
        "turn_2": "Turno 2",
        "stale": "O jogo andou",
    },
}


def _log(page) -> str:
    return " | ".join(page.locator("#log li").all_text_contents())


@pytest.mark.parametrize("locale", SAID)
def test_browser_a_turn_is_played_in_the_browsers_language_and_another_language_is_picked(server, browser, locale):  # noqa: F811
    """Slow: two real browser pages against the whole service; a turn played by clicking, a
    command refused, the language switched and the page reloaded."""
    said = SAID[locale]
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors, locale=locale)
    page.goto(f"{server}/")
    page.wait_for_selector("#email-sign-in")
    assert page.get_attribute("html", "lang") == said["lang"]
    assert page.text_content("#new") == said["lobby"]
    assert page.get_by_role("combobox", name=said["picker"]).count() == 1  # the picker, named in the language
    page.screenshot(path=str(SHOTS / f"lobby-{said['lang']}.png"), full_page=True)

    # the seat whose turn it is plays it through the page: a step, then the end of the turn
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)
    assert said["your_turn"] in page.text_content("#status") and page.text_content("#city") == said["city"]
    assert said["steps"] in page.text_content("#actions")
    assert said["shuffled"] in _log(page) and said["dealt"] in _log(page), _log(page)
    walk(page)
    wait_until(page, f"document.querySelector('#log').textContent.includes({said['walked']!r})", timeout=30_000)
    page.wait_for_selector("#actions button[data-type=end_turn]:not([disabled])")
    end = page.locator("#actions button[data-type=end_turn]")
    assert said["end_turn"] in end.text_content()
    end.click()
    wait_until(page, f"document.querySelector('#status').textContent.includes({said['turn_2']!r})", timeout=30_000)
    wait_until(page, f"document.querySelector('#log').textContent.includes({said['ended']!r})", timeout=30_000)
    assert said["your_turn"] not in page.text_content("#status")
    page.screenshot(path=str(SHOTS / f"seat-{said['lang']}.png"), full_page=True)

    # the other seat's page goes stale (its turn ends behind its back, its stream held): the
    # command it sends is refused, and the problem is worded in the language from its code
    other = page_with_errors(browser, errors, locale=locale)
    held: list = []
    other.route(GAME_STREAM, lambda route: held.append(route))
    other.goto(f"{server}/play/{game}#token={tokens[1 - first]}")
    other.wait_for_selector("#board g.target.step")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        other.wait_for_timeout(50)
    assert held, "the page's event stream was not held"
    _, view = call(server, "GET", f"/games/{game}")
    end_turn = {"type": "end_turn", "expected_version": view["version"]}
    assert call(server, "POST", f"/games/{game}/commands", end_turn, token=tokens[1 - first])[0] == 200
    walk(other)
    wait_until(other, "document.querySelector('#problem').textContent.length > 0", timeout=30_000)
    assert said["stale"] in other.text_content("#problem"), other.text_content("#problem")
    for route in held:
        route.continue_()
    other.unroute(GAME_STREAM)

    # another language, picked in the header: the page is worded anew at once, and kept
    page.select_option("#language", "en")
    page.wait_for_selector("html[lang=en]")
    assert "You are seat" in page.text_content("#status") and page.text_content("#city") == "The city"
    assert "steps to" in _log(page) and said["walked"] not in _log(page)
    page.reload()
    page.wait_for_selector("#status:has-text('You are seat')")
    assert page.get_attribute("html", "lang") == "en" and page.input_value("#language") == "en"
    # the reloaded page hears the game's events again by its stream: its log fills after the status
    wait_until(page, "document.querySelector('#log').textContent.includes('steps to')", timeout=30_000)
    page.select_option("#language", said["lang"])  # and back
    page.wait_for_selector(f"html[lang={said['lang']}]")
    assert page.text_content("#city") == said["city"] and said["walked"] in _log(page)
    assert [e for e in errors if "409" not in e and "412" not in e] == []
