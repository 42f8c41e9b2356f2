"""A challenge's alert (application/alerts/messages.py challenge_item) says who challenges whom to
what, in the person's language on every channel, links to the lobby where it is answered, and
shows a name as typed (escaped in the mail's HTML, no mention on Discord)."""

from __future__ import annotations

import pytest

from application.alerts.messages import challenge_item, discord, headline, mail, push
from application.words import LANGUAGES

ALERT = {
    "game": "c0ffee",
    "by_name": "Ann <b>&</b>",
    "options": {"players": 2, "edition": "cmon", "expansion": True},
    "rated": True,
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_channel_says_who_challenges_in_the_persons_language(language: str) -> None:
    item = challenge_item(ALERT, "Ben", "https://bluemoon.example", language)
    said = headline(item)
    assert said.startswith("Ben, Ann <b>&</b> ") and "CMON + " in said
    subject, text, html = mail([item], "https://bluemoon.example/alerts/unsubscribe?token=t")
    assert "Ann <b>&</b>" in subject and "https://bluemoon.example/#challenges" in text
    assert "Ann &lt;b&gt;&amp;&lt;/b&gt;" in html and "<b>" not in html.split("<body>")[1]
    assert push(item)["tag"] == "challenge-c0ffee" and push(item)["url"].endswith("/#challenges")
    assert discord(item)["allowed_mentions"] == {"parse": []}


def test_the_words_differ_by_language() -> None:
    said = {language: headline(challenge_item(ALERT, "Ben", "https://x", language)) for language in LANGUAGES}
    assert len(set(said.values())) == len(LANGUAGES)
