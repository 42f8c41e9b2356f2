"""The play-by-web pages as served: each page file (service/web/*.html) names only its title,
body and script, and its ``<!--#head-->`` is replaced by the one shared head
(service/web/head.html: charset, viewport, icons, manifest, theme colour, stylesheet), so that
what every page loads is written once. A page is revalidated by its ETag (``no-cache``), as the
files were, so a new release is seen at once and an unchanged page costs a 304."""

from __future__ import annotations

from pathlib import Path

from flask import Response, request

WEB = Path(__file__).resolve().parent / "web"
HEAD_MARK = "<!--#head-->"


def web_page(name: str) -> Response:
    """The page ``name`` (a file in service/web) with the shared head in place."""
    page = (WEB / name).read_text(encoding="utf-8")
    head = (WEB / "head.html").read_text(encoding="utf-8").strip()
    answer = Response(page.replace(HEAD_MARK, head, 1), mimetype="text/html")
    answer.cache_control.no_cache = True
    answer.add_etag()
    answer.make_conditional(request)  # (in place: a 304 when the browser's copy is current)
    return answer
