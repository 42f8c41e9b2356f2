"""Every language of the web pages says everything the pages say (issue 24): each key the
pages' scripts and HTML use, and each problem code the service can answer with, is in every
catalogue (service/web/i18n/<language>.json); no catalogue keeps a key nothing uses; a text's
{placeholders} are the same in every language; and a text that depends on a number has exactly
the plural forms Intl.PluralRules gives for its language.

The keys are found where they are written: the pages call t("key", …) and tParts("key", …)
with the key as a literal, and mark static HTML with data-i18n="key" / data-i18n-label="key".
The problem codes are found in the Python that makes problem documents: the rules' refusals
(IllegalCommand / InvalidCommand), the application's refusals (a ``code`` class attribute),
service/problems.py's ``problem(status, code, …)`` calls and its table of HTTP errors."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "service" / "web"
LANGUAGES = ("en", "de", "ru", "pt")
#: The plural categories of each language, as Intl.PluralRules gives them for whole numbers
#: (Portuguese may also have "many", which CLDR 42+ gives for large round numbers).
PLURALS = {
    "en": ({"one", "other"},),
    "de": ({"one", "other"},),
    "ru": ({"one", "few", "many", "other"},),
    "pt": ({"one", "other"}, {"one", "many", "other"}),
}
#: Where the Python makes problem documents (the rest imports these).
PYTHON = ("domain", "application", "events", "service", "workers")

CALL = re.compile(r"(?<!function )\b(t|tParts)\(\s*(?:\"([^\"]*)\"|'([^']*)'|(.))")  # a call, not the definition
MARKUP = re.compile(r"\bdata-i18n(?:-label)?=\"([^\"]+)\"")
PAGE_PROBLEM = re.compile(r"\bcode: \"(\w+)\"")  # a problem a page makes itself (transport.js: no answer at all)
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _scripts() -> list[Path]:
    return sorted(p for p in WEB.glob("*.js"))


def used_keys() -> set[str]:
    """Every key the pages use, with a failure if a call's key is not a literal (then no test
    could know it)."""
    keys: set[str] = set()
    for script in _scripts():
        for match in CALL.finditer(script.read_text()):
            assert match.group(4) is None, f"{script.name}: {match.group(0)!r}: a key must be a literal string"
            keys.add(match.group(2) if match.group(2) is not None else match.group(3))
        keys.update(f"problem.{code}" for code in PAGE_PROBLEM.findall(script.read_text()))
    for page in WEB.glob("*.html"):
        keys.update(MARKUP.findall(page.read_text()))
    return keys


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def problem_codes() -> set[str]:
    """Every ``code`` the service's problem documents can carry, read from the Python source."""
    codes: set[str] = set()
    for package in PYTHON:
        for source in (ROOT / package).rglob("*.py"):
            tree = ast.parse(source.read_text(), str(source))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    called = _name(node.func)
                    # IllegalCommand("code", detail) / InvalidCommand("code", detail)
                    if called in ("IllegalCommand", "InvalidCommand", "CommandError") and node.args:
                        codes.add(_string(node.args[0]) or "")
                    # problem(status, "code", title, detail)
                    elif called == "problem" and len(node.args) > 1 and _string(node.args[1]):
                        codes.add(_string(node.args[1]) or "")
                    # {404: "not_found", …}.get(status, "http_error"): the HTTP errors' codes
                    elif (
                        called == "get"
                        and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Dict)
                    ):
                        codes.update(s for s in map(_string, [*node.func.value.values, *node.args]) if s)
                elif isinstance(node, ast.ClassDef):
                    # class SeatTaken(ServiceError): status, code, title = 409, "seat_taken", …
                    for statement in node.body:
                        if not isinstance(statement, ast.Assign):
                            continue
                        for target in statement.targets:
                            if isinstance(target, ast.Name) and target.id == "code" and _string(statement.value):
                                codes.add(_string(statement.value) or "")
                            if isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple):
                                for name, value in zip(target.elts, statement.value.elts):
                                    if isinstance(name, ast.Name) and name.id == "code" and _string(value):
                                        codes.add(_string(value) or "")
    codes.discard("")
    return codes


def catalogue(language: str) -> dict[str, str | dict[str, str]]:
    return json.loads((WEB / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def needed() -> set[str]:
    return used_keys() | {f"problem.{code}" for code in problem_codes()}


def test_the_finders_find_what_the_pages_and_the_service_are_known_to_use():
    """The scans above are what the other tests stand on: they must find the known cases."""
    assert {
        "not_your_turn",
        "lone_mimix",
        "unknown_card",
        "seat_taken",
        "stale_version",
        "rate_limited",
        "cross_origin",
        "unavailable",
        "internal_error",
        "invalid_request",
        "open_game_full",
        "method_not_allowed",
        "http_error",
        "passkey_refused",
    } <= problem_codes()
    assert "command_error" in problem_codes()  # the base class's default, caught by the class scan
    assert {
        "status.yourTurn",
        "event.FigureMoved",
        "tile.earth_temple",
        "lobby.create",
        "play.resetZoom",
        "language",
        "lobby.lowest",
        "problem.offline",
    } <= used_keys()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_key_the_pages_use_and_every_problem_code(language):
    missing = sorted(needed() - set(catalogue(language)))
    assert missing == [], f"{language}.json lacks {missing}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_language_keeps_a_key_that_nothing_uses(language):
    unused = sorted(set(catalogue(language)) - needed())
    assert unused == [], f"{language}.json has keys nothing uses: {unused}"


def _placeholders(text: str | dict[str, str]) -> set[str]:
    forms = text.values() if isinstance(text, dict) else [text]
    return {name for form in forms for name in PLACEHOLDER.findall(form)}


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "en"])
def test_each_text_has_the_same_placeholders_as_the_english(language):
    english, other = catalogue("en"), catalogue(language)
    differ = {
        key: (sorted(_placeholders(english[key])), sorted(_placeholders(text)))
        for key, text in other.items()
        if key in english and _placeholders(english[key]) != _placeholders(text)
    }
    assert differ == {}, differ


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_plural_text_has_its_languages_plural_forms_and_is_plural_in_every_language(language):
    english, texts = catalogue("en"), catalogue(language)
    wrong = {
        key: sorted(text)
        for key, text in texts.items()
        if isinstance(text, dict) and set(text) not in PLURALS[language]
    }
    assert wrong == {}, f"{language}: plural forms should be {PLURALS[language]}: {wrong}"
    mixed = sorted(
        key
        for key, text in texts.items()
        if key in english and isinstance(text, dict) != isinstance(english[key], dict)
    )
    assert mixed == [], f"{language}: plural in one language and not in the other: {mixed}"


def test_each_catalogue_is_plain_text():
    """Texts reach the page through lit-html as text, never markup: a catalogue holds no tags."""
    for language in LANGUAGES:
        for key, text in catalogue(language).items():
            for form in text.values() if isinstance(text, dict) else [text]:
                assert isinstance(form, str) and form.strip() and not re.search(r"<\w", form), (language, key)
