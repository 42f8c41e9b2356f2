"""What the service says to people outside the play page, in their language: turn alerts (a
mail, a push, a channel message), the sign-in mail, and the server's own pages (sign-in,
unsubscribe).

One catalogue a language (application/catalogues/<language>.json). Its keys follow the
play page's catalogues, and where a key is in both (a tile's name, an event in words) the text
is the page's own, so that an alert says what the page's log says (a test keeps them equal).
A text is a string with {placeholders}, or one string per CLDR plural category."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "de", "ru", "pt")  #: those the page speaks; English where none was chosen
FOLDER = Path(__file__).with_name("catalogues")


@cache
def catalogue(language: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((FOLDER / f"{language}.json").read_text(encoding="utf-8"))
    return found


def plural(language: str, count: int) -> str:
    """The CLDR plural category of a whole number in ``language`` (the page uses Intl.PluralRules)."""
    if language == "ru":
        if count % 10 == 1 and count % 100 != 11:
            return "one"
        if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
            return "few"
        return "many"
    if language == "pt":
        return "one" if count in (0, 1) else "other"
    return "one" if count == 1 else "other"


def say(language: str, key: str, **params: Any) -> str:
    """The text of ``key`` in ``language`` (English if it has none), its placeholders filled."""
    words = catalogue(language if language in LANGUAGES else "en")
    text = words.get(key, catalogue("en")[key])
    if isinstance(text, dict):
        text = text.get(plural(language, int(params["count"])), text["other"])
    return str(text).format_map(params)
