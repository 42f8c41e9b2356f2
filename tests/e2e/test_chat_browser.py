"""The play page's chat in real browsers against the whole service (on the embedded Redis and on
the Redis Cluster, as every test of this folder): one seat writes with the keyboard alone on a
phone, the other seat sees it live, as text; a deletion shows as deleted for the other; axe finds
nothing serious and every chat control is 44 px or more on the phone."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import call, wait_until
from tests.support.browser import (  # noqa: F401 (the fixtures)
    SMALL,
    browser,
    page_with_errors,
    serious,
    service_and_log,
    sign_in_by_mail,
    two_humans_over_http,
)

pytestmark = pytest.mark.slow  # drives two Chromium contexts against the whole service


def test_browser_one_seat_writes_the_other_reads_it_live_and_sees_it_deleted(server, browser):  # noqa: F811
    errors: list[str] = []
    game, tokens, _ = two_humans_over_http(server)
    writer = page_with_errors(browser, errors, viewport={"width": 390, "height": 844}, has_touch=True)
    reader = page_with_errors(browser, errors)
    reader.goto(f"{server}/play/{game}#token={tokens[1]}")
    writer.goto(f"{server}/play/{game}#token={tokens[0]}")
    for page in (reader, writer):
        page.wait_for_selector("#chat-form")
    reader.wait_for_timeout(300)  # the stream is open: what follows comes live, not from the first read

    words = f"gl hf <b>bold</b> https://evil.example/x and {server}/rulings"
    writer.focus("#chat-text")
    writer.keyboard.type(words)
    writer.keyboard.press("Tab")  # the send button is the next stop
    assert writer.evaluate("document.activeElement.id") == "chat-send"
    writer.keyboard.press("Enter")

    wait_until(reader, "document.querySelectorAll('#chat-messages li').length === 1", timeout=30_000)
    line = reader.locator("#chat-messages li").first
    assert "gl hf <b>bold</b>" in line.text_content()  # the markup shown as text
    assert reader.query_selector("#chat-messages b") is None
    assert [a.get_attribute("href") for a in reader.query_selector_all("#chat-messages a")] == [f"{server}/rulings"]
    assert reader.get_attribute("#chat-messages", "aria-live") == "polite"
    assert reader.query_selector("#chat-messages .chat-delete") is None  # not theirs to delete
    assert serious(reader) == []

    writer.wait_for_selector("#chat-messages .chat-delete")
    # the chat's controls (a link inside a message's words is inline: exempt, as WCAG 2.5.8 says)
    in_chat = SMALL.replace("document.querySelectorAll(", "document.querySelector('#chat').querySelectorAll(")
    assert writer.evaluate(in_chat.replace('el.matches("p a")', 'el.matches("p a, .chat-text a")')) == []
    assert serious(writer) == []
    writer.click("#chat-messages .chat-delete")
    wait_until(reader, "!document.querySelector('#chat-messages').textContent.includes('gl hf')", timeout=30_000)
    assert "Message deleted" in reader.text_content("#chat-messages")
    _, page = call(server, "GET", f"/games/{game}/chat/seats", token=tokens[1])
    assert [(m["text"], m["removed"]) for m in page["messages"]] == [(None, "deleted")]
    assert errors == []


def test_browser_a_muted_persons_words_never_reach_the_page_of_who_muted_them(service_and_log, browser):  # noqa: F811
    """Issue 38 item 8 on the page: Ada mutes Bo, who holds the other seat; his message never
    appears on her page, live or after a reload, while hers reach his and her later words reach her
    own page (so the stream was open when his would have come)."""
    base, log = service_and_log
    errors: list[str] = []
    ada, bo = page_with_errors(browser, errors), page_with_errors(browser, errors)
    sign_in_by_mail(ada, base, log, "ada-mutes-on-the-page@example.com")
    sign_in_by_mail(bo, base, log, "bo-muted-on-the-page@example.com")
    own = {"Origin": base}
    made = bo.request.post(f"{base}/games", data={"seats": [{"kind": "human"}, {"kind": "open"}]}, headers=own)
    assert made.status == 201, made.text()
    game, seats = made.json()["game"], made.json()["seats"]
    joined = ada.request.post(f"{base}/games/{game}/seats/1/join", data={"invite": seats[1]["invite"]}, headers=own)
    assert joined.status == 201, joined.text()
    bo_id = bo.request.get(f"{base}/me").json()["account"]
    assert ada.request.put(f"{base}/me/mutes/{bo_id}", headers=own).status == 204

    ada.goto(f"{base}/play/{game}#token={joined.json()['token']}")
    bo.goto(f"{base}/play/{game}#token={seats[0]['token']}")
    for page in (ada, bo):
        page.wait_for_selector("#chat-form")
    ada.wait_for_timeout(300)  # the stream is open
    bo.fill("#chat-text", "words Ada chose not to read")
    bo.click("#chat-send")
    wait_until(bo, "document.querySelector('#chat-messages').textContent.includes('not to read')", timeout=30_000)
    ada.fill("#chat-text", "anyone there?")
    ada.click("#chat-send")
    wait_until(bo, "document.querySelector('#chat-messages').textContent.includes('anyone there?')", timeout=30_000)
    wait_until(ada, "document.querySelector('#chat-messages').textContent.includes('anyone there?')", timeout=30_000)
    assert "not to read" not in ada.text_content("#chat-messages")
    ada.reload()
    ada.wait_for_selector("#chat-messages li")
    ada.wait_for_timeout(500)
    assert "anyone there?" in ada.text_content("#chat-messages")
    assert "not to read" not in ada.text_content("#chat-messages")
    assert errors == []
