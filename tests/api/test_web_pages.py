"""The play-by-web pages share one <head> (service/web/head.html), written once and put into each
page as it is served (service/web_pages.py); a page is still revalidated by its ETag."""

from __future__ import annotations

from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "service" / "web"
PAGES = {
    "/": "index.html",
    "/ratings": "ratings.html",
    "/moderation": "moderation.html",
    "/tournaments-page": "tournaments.html",
    "/play/0123456789abcdef0123456789abcdef": "play.html",
    "/players/0123456789abcdef0123456789abcdef": "player.html",  # (JSON unless the browser asks for HTML)
}
BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}  #: what a browser's navigation asks for
HEAD = (WEB / "head.html").read_text().strip()


def test_every_page_file_leaves_its_head_to_the_shared_one():
    """What every page loads (charset, viewport, icons, manifest, stylesheet) is in head.html alone."""
    files = sorted(p.name for p in WEB.glob("*.html") if p.name != "head.html")
    assert files == sorted(PAGES.values())
    for name in files:
        page = (WEB / name).read_text()
        assert page.count("<!--#head-->") == 1, name
        for line in HEAD.splitlines()[1:]:  # (the first is head.html's own comment)
            assert line not in page, f"{name} repeats {line}"


@pytest.mark.parametrize("path", PAGES)
def test_a_page_is_served_with_the_shared_head_once_and_its_own_title(api, path):
    page = api.http.get(path, headers=BROWSER)  # (a page's ETag is HTTP's own, not documented with the API's)
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    head = text[text.index("<head>") : text.index("</head>")]
    assert "<!--#head-->" not in text and text.count(HEAD) == 1 and HEAD in head
    assert head.index('<meta charset="utf-8">') < head.index("<title")
    assert "Content-Security-Policy" in page.headers and page.headers["Cache-Control"] == "no-cache"
    again = api.http.get(path, headers={**BROWSER, "If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304 and not again.get_data()
