"""The browser tests' kit: the module's Chromium with nothing left open, a page that records its
console errors and what it sent its commands over, games made over HTTP, a sign-in by the logged email link, and the checks the
screens and accessibility tests share (axe-core, overflow, small targets)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from events.embedded import free_port
from tests.e2e.conftest import call, wait_until
from tests.support.host_network import host_network
from tests.support.shared_folders import node_tools

ROOT = Path(__file__).resolve().parents[2]
#: A game's event stream as the play page asks for it (with ``?chat=true``), for a test's route.
GAME_STREAM = re.compile(r"/games/[^/?]+/stream(\?.*)?$")
SHOTS = ROOT / "var" / "screenshots"


@pytest.fixture
def browser(_chromium):
    """The module's Chromium, with no context open: every context a test opens (its pages,
    its cookies, its service workers) is closed when the test ends, so the next test starts
    from a browser as fresh as a new launch."""
    launched = _chromium()
    assert launched.contexts == []
    with host_network(alone=False):  # not while the containers' test changes the host's interfaces
        yield launched
        for context in launched.contexts:
            context.close()


def page_with_errors(browser, errors: list[str], **options):
    """A page whose console errors and uncaught exceptions are put in ``errors``. Those, its
    failed requests and its answers of 400 or more are printed too, with the time: pytest shows
    them with a test that failed (a CI run's only trace of a page that stalled)."""
    page = browser.new_context(**options).new_page()

    def error(text: str) -> None:
        errors.append(text)
        _trace(page, text)

    page.on("console", lambda m: error(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: error(str(e)))
    page.on("requestfailed", lambda r: _trace(page, f"{r.method} {r.url} failed: {r.failure}"))
    page.on("response", lambda r: _trace(page, f"{r.request.method} {r.url} {r.status}") if r.status >= 400 else None)
    return page


def _trace(page, text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} page {id(page):x}: {text}")


class Traffic:
    """What a page sent its game's commands over: the play socket's frames (the commands sent,
    the answers heard) and the requests ``POST /games/{game}/commands``."""

    def __init__(self, page) -> None:
        self.sent: list[dict] = []
        self.heard: list[dict] = []
        self.posted: list[dict] = []
        page.on("websocket", self._socket)
        page.on("request", self._request)

    def _socket(self, ws) -> None:
        if ws.url.endswith("/socket"):
            ws.on("framesent", lambda text: self.sent.append(json.loads(text)))
            ws.on("framereceived", lambda text: self.heard.append(json.loads(text)))

    def _request(self, request) -> None:
        if request.method == "POST" and request.url.endswith("/commands"):
            self.posted.append({"key": request.headers.get("idempotency-key"), "body": request.post_data_json})

    def commands(self) -> list[str]:
        """The types of the commands sent over the socket, in order."""
        return [frame["command"]["type"] for frame in self.sent]

    def answers(self, kind: str) -> list[dict]:
        return [frame for frame in self.heard if frame["type"] == kind]

    def heard_answers(self, page, kind: str, count: int, timeout: float = 10.0) -> list[dict]:
        """The answers of ``kind`` once ``count`` have come (within ``timeout`` s). The page may show
        a move from its event stream before its socket's answer: Playwright hands a frame to
        ``framereceived`` only while a call of the test waits on it, so the test waits here."""
        deadline = time.monotonic() + timeout
        while len(self.answers(kind)) < count:
            assert time.monotonic() < deadline, f"{count} {kind} answers not heard within {timeout} s: {self.heard}"
            page.wait_for_timeout(50)
        return self.answers(kind)


def settled(page, server: str, game: str) -> None:
    """Wait until the page's log shows every event so far. The stream's opening burst arrives
    just after the first drawing and lengthens the log, which moves what lies below it: a click
    made meanwhile can land where the target no longer is, and do nothing."""
    _, view = call(server, "GET", f"/games/{game}")
    wait_until(page, f"document.querySelectorAll('#log li').length >= {view['version']}", timeout=10_000)


def walk(page) -> None:
    """Click the first tile a step reaches; if a power reaches it too, choose the step."""
    page.locator("#board g.target.step").first.click()
    if page.locator("#choices button").count():
        page.click("#choices button[data-type=move]")


def two_humans_over_http(server) -> tuple[str, list[str], int]:
    status, created = call(server, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert status == 201
    tokens = [s["token"] for s in created["seats"]]
    _, view = call(server, "GET", f"/games/{created['game']}")
    return created["game"], tokens, view["turn"]["seat"]


def scenario_over_http(server, options: dict | None = None, **position) -> tuple[str, list[str]]:
    base = {
        "hands": [
            ["red-2a", "brown-1a", "brown-2a", "green-1a", "white-1a", "blue-3a", "blue-2a", "yellow-1a"],
            ["black-1a"],
        ],
        "figures": ["earth_temple", "courtyard"],
        "crystals": [4, 9],
        "scales": [0, 0],
        "dragons": [],
        "markers": [],
        "obelisk": [],
    }
    status, created = call(
        server,
        "POST",
        "/games",
        {"seats": [{"kind": "human"}, {"kind": "human"}], "scenario": {**base, **position}, **(options or {})},
    )
    assert status == 201, created
    return created["game"], [s["token"] for s in created["seats"]]


def sign_in_by_mail(page, base: str, log: Path, email: str) -> None:
    """As a person does: the lobby's email form, then the link (from the log) and its button."""
    page.goto(base + "/")
    before = links_so_far(log)
    page.fill("#email-sign-in input[name=email]", email)
    page.click("#email-sign-in button[type=submit]")
    page.wait_for_selector("#account-note:has-text('log')")  # the page says where the link went
    link = link_in(log, before).replace("http://127.0.0.1", "http://localhost")
    page.goto(link)
    page.click("button[type=submit]")
    page.wait_for_selector("#signed-in")


def link_in(log: Path, after: int) -> str:
    """The newest sign-in link the service logged past ``after`` links."""
    deadline = time.monotonic() + 10
    while len(found := re.findall(r"(http://\S+/signin\?token=bml_[\w-]+)", log.read_text(errors="replace"))) <= after:
        assert time.monotonic() < deadline, "no sign-in link was logged"
        time.sleep(0.1)
    return found[-1]


def links_so_far(log: Path) -> int:
    return len(re.findall(r"/signin\?token=bml_", log.read_text(errors="replace")))


@pytest.fixture
def service_and_log(start_service):
    base = start_service(RATE_LIMIT="0").replace("127.0.0.1", "localhost")
    return base, start_service.logs[-1]


def axe() -> Path:
    node_tools(ROOT, "axe-core/axe.min.js")
    return AXE


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def serious(page) -> list[dict]:
    """The serious and critical violations axe finds on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):  # (evaluated by the test's own channel: the pages' CSP
        page.evaluate(axe().read_text())  # runs only their own files, and a <script> tag added to them is refused)
    found = page.evaluate("axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations)")
    return [
        {"rule": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


#: Every panel's overflow: an element wider inside than it shows, or the page wider than the screen.
OVERFLOWING = """() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push(`page ${document.documentElement.scrollWidth}`);
  for (const el of document.querySelectorAll("header, main, section, main > *, .group, fieldset, form")) {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.overflowX === "auto" || style.overflowX === "scroll") continue;
    if (el.scrollWidth > el.clientWidth + 1) found.push(`${el.tagName.toLowerCase()}#${el.id} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return found;
}"""


#: The visible controls smaller than 44 x 44 pixels (a checkbox counts by the label it sits in;
#: a link in a sentence is exempt, as WCAG 2.5.8 exempts inline targets).
SMALL = """() => [...document.querySelectorAll("button, a[href], select, input, [role=button], label:has(input[type=checkbox])")]
  .filter((el) => !(el.matches("input[type=checkbox]") && el.closest("label")) && !el.matches("p a"))
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .map((el) => [el, el.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 44)
  .map(([el, r]) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}[${(el.textContent || el.name || "").trim().slice(0, 20)}] ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@contextmanager
def another_site(directory: Path) -> Iterator[int]:
    """A web server on 127.0.0.1 serving ``directory`` (an attacker's page), on a port of its
    own: another origin than the service's. Yields the port; stopped at the end."""

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(directory), **kwargs)

        def log_message(self, *args):
            pass

    port = free_port()
    other = ThreadingHTTPServer(("127.0.0.1", port), Quiet)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        yield port
    finally:
        other.shutdown()
