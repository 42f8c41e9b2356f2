"""From the attacker's side: a player names their seat to reach everyone in an opponent's Slack
or Discord channel (``<!channel>``, ``@everyone``, a mention, a masked link to a phishing page).
The turn alert posted there shows the name as typed: it notifies nobody and links nowhere but
the game. A name stored before names were checked (line breaks, bidi controls) reaches every
channel as spaces."""

from __future__ import annotations

import re

from application.accounts.shown_text import for_discord, for_slack, hidden_characters, shown
from application.alerts.messages import discord, item_for, mail, push, slack
from domain import Options, fold, new_game
from domain.events import FigureMoved, TurnEnded
from events.serialization import StoredEvent

SLACK_ATTACK = "<!channel> <@U024BE7LH> <https://evil.example/login|Reset your password> & <!here>"
DISCORD_ATTACK = "@everyone @here <@123456789> [Reset your password](https://evil.example/login)"


def _item(name: str) -> dict:
    state = fold(new_game(Options(2), b"names"))
    seats = [{"seat": 0, "kind": "human", "name": name}, {"seat": 1, "kind": "human", "name": "Bo"}]
    at = "2026-11-27T10:00:00Z"
    events = [TurnEnded(1), FigureMoved(0, "royal_palace"), TurnEnded(0)]
    stored = [StoredEvent("g1", i + 1, type(e).__name__, 1, at, "seat", "", "{}", e) for i, e in enumerate(events)]
    return item_for(
        {"game": "g1", "seat": 1, "turn": 4, "kind": "turn.started"}, state, stored, seats, "https://b.example"
    )


def _slack_texts(message: dict) -> list[str]:
    return [message["text"], message["blocks"][0]["text"]["text"]]


def test_a_slack_alert_shows_mentions_and_masked_links_in_a_name_as_typed():
    message = slack(_item(SLACK_ATTACK))
    for text in _slack_texts(message):
        assert SLACK_ATTACK not in text
        assert "&lt;!channel&gt; &lt;@U024BE7LH&gt; &lt;https://evil.example/login|Reset your password&gt;" in text
        assert "&amp; &lt;!here&gt;" in text
        assert "<" not in text and ">" not in text  # Slack's only markup for mentions and links
    assert message["blocks"][1]["elements"][0]["url"] == "https://b.example/play/g1"


def test_a_discord_alert_shows_mentions_and_masked_links_in_a_name_as_typed():
    message = discord(_item(DISCORD_ATTACK))
    assert message["allowed_mentions"] == {"parse": []}  # and nobody is pinged whatever the text
    embed = message["embeds"][0]
    assert DISCORD_ATTACK in embed["title"]  # a title renders no markdown: no link, no mention there
    for text in (message["content"], embed["description"]):
        assert "[Reset your password](https" not in text
        assert r"\@everyone \@here \<\@123456789\> \[Reset your password\]\(https\://evil.example/login\)" in text
        assert not re.search(r"(?<!\\)[\[\]()<>@]", text)  # every such character is escaped
    assert embed["url"] == "https://b.example/play/g1"


def test_escaping_keeps_what_the_reader_sees():
    assert for_slack("Ada & Bo <3") == "Ada &amp; Bo &lt;3"
    assert re.sub(r"\\(.)", r"\1", for_discord(DISCORD_ATTACK)) == DISCORD_ATTACK  # Discord drops the backslashes


def test_a_name_stored_before_the_check_reaches_every_channel_without_its_line_breaks():
    stored = "Ada\r\nBcc: everyone@example.com\u202e\x00"
    item = _item(stored)
    assert item["title"] == "Ada Bcc: everyone@example.com, Bo (CMON)"
    subject, text, _ = mail([item], "https://b.example/u")
    for shown_text in (subject, item["player"], push(item)["body"], *item["moves"]):
        assert not hidden_characters(shown_text), shown_text
    assert "\r" not in text and "\x00" not in text
    assert shown(" \u2066Ada\u2069\t\u200bBo ") == "Ada Bo"
    assert shown("\U0001f469\u200d\U0001f4bb Ada") == "\U0001f469\u200d\U0001f4bb Ada"  # joined emoji stay
