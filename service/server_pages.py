"""The few pages the server writes itself (an emailed sign-in link's page, a mail's unsubscribe
page), in the reader's language: the link's ``lang`` (the language the mail was written in),
else the browser's Accept-Language, else English."""

from __future__ import annotations

from html import escape

from flask import Response, request

from application.words import LANGUAGES, say

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Blue Moon City</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/web/app.css"></head>
<body><main><h1>Blue Moon City</h1>{body}</main></body></html>"""


def page_language() -> str:
    asked = request.args.get("lang", "")
    if asked in LANGUAGES:
        return asked
    return request.accept_languages.best_match(LANGUAGES) or "en"


def server_page(language: str, title: str, body: str, status: int = 200) -> Response:
    """A page titled by the catalogue's ``title`` key; ``body`` is HTML already escaped."""
    page = PAGE.format(lang=language, title=escape(say(language, title)), body=body)
    return Response(page, status=status, mimetype="text/html")


def words(language: str, key: str, **params: str) -> str:
    """A catalogue text, escaped for HTML."""
    return escape(say(language, key, **params))
