"""A web page on another origin uses the API from a real browser (Debian's chromium driven by
Playwright): the preflight passes, and the script reads the headers the API exposes."""

from __future__ import annotations

import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.host_network import host_network

#: it drives a real Chromium against the whole service; what it tests is the page, not the store, so on the embedded Redis only
#: (``own_store``): the play, lobby, accounts and people tests run on the cluster too
pytestmark = [pytest.mark.slow, pytest.mark.own_store]

CHROMIUM = "/usr/bin/chromium"  # Debian's package: .ci/run installs it with apt-get

PAGE = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>another origin</title><pre id="out">…</pre>
<script>
(async () => {
  const api = new URLSearchParams(location.search).get("api");
  const out = document.getElementById("out");
  try {
    const created = await (await fetch(api + "/games", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({seats: [{kind: "human"}, {kind: "human"}]})})).json();
    const token = created.seats[0].token;
    const view = await fetch(api + "/games/" + created.game, {headers: {"Authorization": "Bearer " + token}});
    const body = await view.json();
    const end = await fetch(api + "/games/" + created.game + "/commands", {method: "POST",
      headers: {"Authorization": "Bearer " + created.seats[body.turn.seat].token, "Content-Type": "application/json",
                "If-Match": view.headers.get("ETag"), "Idempotency-Key": "browser-1"},
      body: JSON.stringify({type: "end_turn", discards: []})});
    out.textContent = JSON.stringify({game: created.game, etag: view.headers.get("ETag"), status: end.status,
      remaining: end.headers.get("RateLimit-Remaining"), version: (await end.json()).version});
  } catch (error) { out.textContent = "failed: " + error; }
})();
</script>"""


@pytest.fixture
def other_origin(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_page_on_another_origin_plays_through_the_api_in_a_real_browser(server, other_origin):
    import json

    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with host_network(alone=False), sync_playwright() as p:  # as the browser fixture holds it
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{other_origin}/index.html?api={server.replace('127.0.0.1', 'localhost')}")
        page.wait_for_function("document.getElementById('out').textContent !== '…'", timeout=30_000)
        result = page.text_content("#out")
        browser.close()
    assert not result.startswith("failed"), (result, errors)
    done = json.loads(result)
    # the view's ETag: its version and tag, and the encoding when compressed; If-Match took it
    assert re.fullmatch(r'"5\.[0-9a-f]{8}(:gzip|:br)?"', done["etag"]) and done["status"] == 200 and done["version"] > 5
    assert int(done["remaining"]) >= 0  # a rate-limit header, readable from another origin
    assert errors == []
