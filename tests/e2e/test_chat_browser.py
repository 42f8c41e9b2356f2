"""The play page's chat in real browsers against the whole service (on the embedded Redis and on
the Redis Cluster, as every test of this folder): one seat writes with the keyboard alone on a
phone, the other seat sees it live, as text; a deletion shows as deleted for the other; axe finds
nothing serious and every chat control is 44 px or more on the phone."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import call, wait_until
from tests.support.browser import SMALL, browser, page_with_errors, serious, two_humans_over_http  # noqa: F401

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

    wait_until(reader, "document.querySelectorAll('#chat-messages li').length === 1", timeout=10_000)
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
    wait_until(reader, "!document.querySelector('#chat-messages').textContent.includes('gl hf')", timeout=10_000)
    assert "Message deleted" in reader.text_content("#chat-messages")
    _, page = call(server, "GET", f"/games/{game}/chat/seats", token=tokens[1])
    assert [(m["text"], m["removed"]) for m in page["messages"]] == [(None, "deleted")]
    assert errors == []
