"""The pages under their Content-Security-Policy in a real browser (service/browser_policy.py):
/docs (Swagger UI) still runs with nothing refused, and no other site may frame the lobby. The lobby's and the game's pages are run under it by every other browser test,
which fails on any console error (a refused script or style is one)."""

from __future__ import annotations

import pytest

from tests.support.browser import (
    another_site,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
)

#: a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

WATCH = """document.addEventListener("securitypolicyviolation",
  (e) => console.error(`refused by the policy: ${e.violatedDirective} ${e.blockedURI}`));"""


def test_browser_docs_run_swagger_ui_under_the_policy_with_nothing_refused(server, browser):  # noqa: F811
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    page.add_init_script(WATCH)  # (the test's own channel, before the page's scripts)
    page.goto(server + "/docs")
    page.wait_for_selector("#swagger-ui .opblock", timeout=30_000)  # drawn by its script from /web/docs.js
    page.wait_for_load_state("networkidle")
    # Swagger UI draws OpenAPI 3.1 (4.x refused it: "does not specify a valid version field")
    assert page.locator("#swagger-ui .opblock").count() > 70
    assert page.locator("#swagger-ui .errors-wrapper").count() == 0
    assert page.text_content("p.rulings").startswith("The rules as this service plays them")
    assert errors == []


FRAMING = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>framing</title>
<iframe id="f" src="{src}" title="the lobby"></iframe>"""


def test_browser_no_other_site_may_frame_a_page(server, browser, tmp_path):  # noqa: F811
    """Clickjacking: a page of another site frames the lobby under a decoy; the browser refuses."""
    (tmp_path / "index.html").write_text(FRAMING.format(src=server + "/"))
    with another_site(tmp_path) as port:
        errors: list[str] = []
        page = page_with_errors(browser, errors)
        page.goto(f"http://localhost:{port}/")
        page.wait_for_timeout(1500)
        framed = page.frame_locator("#f")
        assert framed.locator("#account-title").count() == 0  # the lobby never drew inside the frame
        assert any("frame-ancestors" in e or "refused" in e.lower() for e in errors), errors
