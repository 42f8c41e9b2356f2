"""Turn alerts speak the page's four languages: each catalogue has every key, the texts the page
also has are the page's own (so an alert and the page's log say the same), the plural forms are
CLDR's, and a mail is worded throughout in its person's language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from application.alerts.messages import item_for, mail
from application.words import LANGUAGES, catalogue, plural, say
from domain import Options, fold, new_game
from domain.events import ContributionMade, FigureMoved, TurnEnded
from events.serialization import StoredEvent

PAGE = Path(__file__).resolve().parents[2] / "service" / "web" / "i18n"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalogue_has_every_key_and_the_pages_words_where_the_page_has_them(language: str) -> None:
    words, page = catalogue(language), json.loads((PAGE / f"{language}.json").read_text(encoding="utf-8"))
    assert set(words) == set(catalogue("en"))
    shared = set(words) & set(page)
    assert {k for k in words if k.startswith("tile.")} <= shared  # every tile's name comes from the page
    assert {k: words[k] for k in shared} == {k: page[k] for k in shared}


def test_plural_categories_are_cldrs() -> None:
    assert [plural("ru", n) for n in (1, 2, 4, 5, 11, 12, 21, 22, 25, 111)] == [
        "one", "few", "few", "many", "many", "many", "one", "few", "many", "many"
    ]  # fmt: skip
    assert [plural("pt", n) for n in (0, 1, 2)] == ["one", "one", "other"]
    assert [plural(lang, n) for lang in ("en", "de") for n in (0, 1, 2)] == ["other", "one", "other"] * 2
    assert say("ru", "alert.subject.games", count=21) == "Ваш ход в 21 игре Blue Moon City"
    assert say("ru", "alert.subject.games", count=3) == "Ваш ход в 3 играх Blue Moon City"


def test_an_unknown_language_is_worded_in_english() -> None:
    assert say("xx", "alert.play") == say("en", "alert.play") == "Play"


def _stored(events: list) -> list[StoredEvent]:
    at = "2026-11-27T10:00:00Z"
    return [StoredEvent("g1", i + 1, type(e).__name__, 1, at, "seat", "", "{}", e) for i, e in enumerate(events)]


def test_a_mail_is_worded_in_its_persons_language_from_subject_to_unsubscribe_link() -> None:
    state = fold(new_game(Options(2), b"words"))
    seats = [{"seat": 0, "kind": "human", "name": "Ada"}, {"seat": 1, "kind": "bot", "level": "greedy"}]
    moves = _stored(
        [TurnEnded(0), FigureMoved(1, "royal_palace"), ContributionMade(1, "royal_palace", 0, "red", ("red-3",), ())]
    )
    alert = {"game": "g1", "seat": 0, "turn": 3, "kind": "turn.started"}
    item = item_for(alert, state, moves, seats, "https://bluemoon.example", "de")
    assert item["title"] == "Ada, Bot (gierig) (CMON)"
    assert item["moves"] == [
        "Bot (gierig) geht auf das Feld Königspalast",
        "Bot (gierig) bezahlt Königspalast, Baufeld 1, mit red-3",
    ]
    subject, text, html = mail([item], "https://bluemoon.example/alerts/unsubscribe?token=t")
    assert subject == "Du bist am Zug in Ada, Bot (gierig) (CMON)"
    assert text.startswith("Ada, du bist am Zug in ") and "Spielen: https://bluemoon.example/play/g1" in text
    assert "Diese Mails abbestellen: https://bluemoon.example/alerts/unsubscribe?token=t" in text
    assert html.startswith('<!doctype html><html lang="de">') and ">Zu deinem Zug</a>" in html
    two = mail([item, {**item, "game": "g2"}], "https://bluemoon.example/u")[0]
    assert two == "Du bist in 2 Spielen von Blue Moon City am Zug"
