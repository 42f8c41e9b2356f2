"""Turn alerts on the pages (issue 22) in a real browser (Debian's chromium driven by Playwright)
against the whole service: a signed-in person's alert settings in the lobby (a refused Discord
address shown in words, a good change kept), a vacation, the failed deliveries listed, a seat's
time bank and vacation on the seat's page with its mute toggle; and the service worker: it
shows a pushed turn alert, and its click opens the seat's page. The manifest makes the pages
installable.

Headless Chromium has no push service, so ``pushManager.subscribe`` fails there (the page says
so); the push message is delivered to the service worker through the DevTools Protocol instead,
with the payload the workers send (application/alerts/messages.py ``push``). The DevTools
Protocol cannot click a system notification either, so the worker's own click handler is run
from inside it."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from events.embedded import free_port
from tests.e2e.conftest import call
from tests.support.browser import (
    OVERFLOWING,
    SHOTS,
    SMALL,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    serious,
    sign_in_by_mail,
)

pytestmark = pytest.mark.slow  # a real Chromium against the whole service, a service worker in it

ZONE = "America/Sao_Paulo"  #: the browser's time zone: the quiet hours' default


@pytest.fixture
def service_and_log(start_service):
    # "localhost": a secure context over plain http, as service workers need; a Discord address
    # on localhost is allowed (https still required), so its deliveries fail at once, refused
    base = start_service(RATE_LIMIT="0", WEBHOOK_ALLOW_HOSTS="localhost").replace("127.0.0.1", "localhost")
    return base, start_service.logs[-1]


def _open_alerts(page) -> None:
    page.wait_for_selector("#alerts-section:not([hidden]) #alert-settings summary")
    if page.get_attribute("#alert-settings", "open") is None:
        page.click("#alert-settings summary")
    page.wait_for_selector("#alert-form button[type=submit]")


def _alert_settings(page) -> dict:
    """GET /me/alerts as the page's session sees it."""
    return page.evaluate("fetch('/me/alerts').then((r) => r.json())")


def _muted_once_settled(page, expected: list[str]) -> list[str]:
    """The muted games, read until they are ``expected`` (up to 10 s). Under the whole suite's load
    one CI run read the game still muted right after the unmute's label showed (the label changes
    only once the DELETE is answered): the cause is not proven, and a lasting mismatch still fails."""
    deadline = time.monotonic() + 10
    while (muted := _alert_settings(page)["muted"]) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return muted


def test_browser_alert_settings_refuse_an_unsafe_address_keep_a_good_change_and_list_failures(
    service_and_log,
    browser,  # noqa: F811 (the fixture)
):
    """Slow: a real browser signs in by the logged link and plays with the settings on a phone."""
    base, log = service_and_log
    here = datetime.now(ZoneInfo(ZONE))  # quiet hours 6 to 8 hours from now: an alert now is not held
    start, end = f"{(here.hour + 6) % 24:02d}:00", f"{(here.hour + 8) % 24:02d}:30"
    errors: list[str] = []
    page = page_with_errors(
        browser, errors, viewport={"width": 360, "height": 800}, is_mobile=True, has_touch=True, timezone_id=ZONE
    )
    sign_in_by_mail(page, base, log, "ada@example.com")
    _open_alerts(page)
    assert page.input_value("#alert-form input[name=zone]") == ZONE  # the browser's own zone by default
    assert page.input_value("#alert-form input[name=delay]") == "10"  # 600 seconds, in minutes
    assert _alert_settings(page)["language"] == "en"  # never chosen: the page's language, set on first showing

    # quiet hours and a Discord address that is not https (and is loopback): refused, in words
    page.check("#alert-form input[name=quiet]")
    page.fill("#alert-form input[name=start]", start)
    page.fill("#alert-form input[name=end]", end)
    page.fill("#alert-form input[name=discord]", "http://127.0.0.1/api/webhooks/1/secret")
    page.click("#save-alerts")
    page.wait_for_selector("#alerts-problem:has-text('That webhook URL is not allowed')")
    assert page.text_content("#alerts-problem").startswith("Discord: ")
    assert page.get_attribute("#alert-form input[name=discord]", "aria-invalid") == "true"
    assert _alert_settings(page)["quiet_hours"] is None  # nothing of a refused change is kept

    # the same words in German: the problem is worded by the page from its code
    page.select_option("#language", "de")
    # (wait for the German words: the English problem already says "Discord: ", so waiting for
    # that alone let the assertion read the English text before the page re-rendered it)
    page.wait_for_selector("#alerts-problem:has-text('nicht erlaubt')")
    assert page.text_content("#alerts-problem").startswith("Discord: ")
    assert "nicht erlaubt" in page.text_content("#alerts-problem")
    page.select_option("#language", "en")

    # a good change: https on an allowed host, quiet hours, a longer mail delay, no reminders
    hook = f"https://localhost:{free_port()}/api/webhooks/1/secret"  # nothing listens: every delivery fails
    page.fill("#alert-form input[name=discord]", hook)
    page.fill("#alert-form input[name=delay]", "25")
    page.uncheck("#alert-form input[name=reminders]")
    page.select_option("#alert-form select[name=alert-language]", "pt")
    page.click("#save-alerts")
    page.wait_for_selector("#alerts-saved:has-text('Saved')")
    assert page.text_content("#alerts-problem") == ""
    kept = _alert_settings(page)
    assert kept["language"] == "pt"
    assert kept["quiet_hours"] == {"start": start, "end": end, "time_zone": ZONE}
    assert kept["discord"] == {"url": hook}
    assert kept["email"]["delay_seconds"] == 25 * 60 and kept["deadline_reminders"] is False

    page.reload()  # the form shows what the service keeps
    _open_alerts(page)
    assert page.input_value("#alert-form input[name=discord]") == hook
    assert page.input_value("#alert-form input[name=start]") == start
    assert page.input_value("#alert-form input[name=end]") == end
    assert page.is_checked("#alert-form input[name=quiet]")
    assert page.input_value("#alert-form input[name=delay]") == "25"
    assert not page.is_checked("#alert-form input[name=reminders]")

    # on a phone, with everything open: nothing overflows, every control is big enough, axe is content
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate(SMALL) == []
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    # a game with a time bank (made as the lobby's page would, by the session), then a vacation
    # taken in the lobby: the seat's page shows my bank paused and until when I am away
    created = page.evaluate(
        """fetch('/games', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(
             {seats: [{kind: 'human'}, {kind: 'human'}], setup: {first_player: 0}, clock: {bank_seconds: 2 * 86400 + 3 * 3600}})}).then((r) => r.json())"""
    )
    game = created["game"]  # my seat is the first human one, kept in my account
    back = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%d")
    page.fill("#vacation-form input[name=until]", back)
    page.click("#go-away")
    page.wait_for_selector("#away:has-text('You are away until')")
    assert "of 14 vacation days left" in page.text_content("#vacation-days")
    # it is my turn in that game: the alert went to Discord, where nothing listens; the lobby lists
    # the failed delivery (the email channel says why it sent nothing: this service has no SMTP)
    deadline = time.monotonic() + 30
    while not page.query_selector("#deliveries tr.outcome-retrying, #deliveries tr.outcome-failed"):
        assert time.monotonic() < deadline, page.text_content("#alerts")
        page.click("#refresh-deliveries")
        page.wait_for_timeout(500)
    row = page.locator("#deliveries tr.outcome-retrying, #deliveries tr.outcome-failed").first
    assert "Discord" in row.text_content() and "refused" in row.text_content()
    page.screenshot(path=str(SHOTS / "alerts-lobby-360.png"), full_page=True)

    page.goto(f"{base}/play/{game}")
    page.wait_for_selector("#table td.clock[data-seat='0'] .away")
    mine, theirs = (
        page.text_content("#table td.clock[data-seat='0']"),
        page.text_content("#table td.clock[data-seat='1']"),
    )
    assert re.match(r"2 d [23] h\s+away until ", mine), mine  # paused while I am away
    assert theirs.strip() in ("2 d 3 h", "2 d 2 h") and "away" not in theirs
    page.locator("#table").screenshot(path=str(SHOTS / "alerts-clock-360.png"))

    # my own seat: mute this game, and the service keeps it
    page.click("#mute:has-text('Mute this game')")
    page.wait_for_selector("#mute:has-text('Unmute this game')")
    page.locator("#you").locator("xpath=..").screenshot(path=str(SHOTS / "alerts-muted-360.png"))
    assert _alert_settings(page)["muted"] == [game]
    page.reload()
    page.wait_for_selector("#mute:has-text('Unmute this game')")
    page.click("#mute")
    page.wait_for_selector("#mute:has-text('Mute this game')")
    assert _muted_once_settled(page, []) == []
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate(SMALL) == []
    assert serious(page) == [], json.dumps(serious(page), indent=1)

    # back in the lobby: come back from vacation
    page.goto(base + "/")
    _open_alerts(page)
    page.click("#come-back")
    page.wait_for_selector("#vacation-form")
    assert _alert_settings(page)["muted"] == []
    assert [e for e in errors if "status of 422" not in e] == []  # the refused change: the only error
    assert len(errors) == 1, errors


def _latest(versions: list[dict], base: str) -> list[dict]:
    """Each version of the service's worker as DevTools last described it."""
    latest = {v["versionId"]: v for v in versions}
    return [v for v in latest.values() if v["scriptURL"] == base + "/sw.js"]


def _running_registration(page, cdp, versions: list[dict], base: str) -> str:
    """The registration of the service's worker once it is activated and running (started
    through DevTools if Chromium has stopped it)."""
    deadline, started = time.monotonic() + 10, False
    while not (
        running := [v for v in _latest(versions, base) if (v["status"], v["runningStatus"]) == ("activated", "running")]
    ):
        assert time.monotonic() < deadline, versions
        if not started and any(v["status"] == "activated" for v in _latest(versions, base)):
            cdp.send("ServiceWorker.startWorker", {"scopeURL": base + "/"})
            started = True
        page.wait_for_timeout(100)
    return running[-1]["registrationId"]


PUSHED = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
  .map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}))"""


def test_browser_the_service_worker_shows_a_pushed_turn_alert_and_its_click_opens_the_game(
    service_and_log,
    browser,  # noqa: F811 (the fixture)
):
    """Slow: a real browser installs the service worker, which is sent a push through DevTools."""
    base, log = service_and_log
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    context = page.context
    sign_in_by_mail(page, base, log, "bo@example.com")
    page.click("#create button.primary")  # me and a greedy bot: my seat is in my account
    page.wait_for_selector("#games li a")
    game = page.get_attribute("#games li a", "href").split("/play/")[1].split("#")[0]

    status, manifest = call(base, "GET", "/manifest.webmanifest")
    assert status == 200 and manifest["name"] == "Blue Moon City" and manifest["start_url"] == "/"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}
    for icon in manifest["icons"]:
        assert page.request.get(base + icon["src"]).ok, icon
    assert page.evaluate("document.querySelector('link[rel=manifest]').href") == base + "/manifest.webmanifest"
    served = page.request.get(base + "/sw.js")
    assert served.ok and served.headers["content-type"].startswith("text/javascript")

    # DevTools tells which service worker registrations there are, and their versions' states
    versions: list[dict] = []
    cdp = context.new_cdp_session(page)
    cdp.on("ServiceWorker.workerVersionUpdated", lambda event: versions.extend(event["versions"]))
    cdp.send("ServiceWorker.enable")
    context.grant_permissions(["notifications"], origin=base)

    _open_alerts(page)
    page.click("#push-subscribe")  # registers /sw.js; headless Chromium then cannot subscribe
    page.wait_for_selector("#push-note:has-text('This browser could not subscribe to push alerts (')")
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)") == base + "/"
    payload = {  # as application/alerts/messages.py push() words it
        "title": "Blue Moon City",
        "body": f"Bo, it is your turn in {game}",
        "url": f"{base}/play/{game}",
        "game": game,
        "tag": f"turn-{game}",
    }
    # DevTools delivers the push to a running worker. On a loaded machine Chromium may stop the
    # idle worker, and a message delivered while it starts again is lost (CI, 2026-11-29: no
    # notification in 10 s): so the worker is started first, and the same push (one tag, so one
    # notification at most) delivered again, up to three times, until the worker shows it
    for attempt in range(3):
        registration = _running_registration(page, cdp, versions, base)
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": registration, "data": json.dumps(payload)},
        )
        deadline = time.monotonic() + 8
        while not (shown := page.evaluate(PUSHED)) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        if shown:
            break
        print(f"push {attempt + 1} not shown in 8 s; the worker as DevTools saw it: {_latest(versions, base)}")
    assert shown, "the service worker showed no notification for any of three pushes"
    assert shown == [{"title": "Blue Moon City", "body": payload["body"], "tag": payload["tag"], "url": payload["url"]}]

    # the click: the worker's own handler, run inside the worker, moves the open page to the game
    worker = context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
    assert worker.url == base + "/sw.js"
    worker.evaluate(
        """async () => {
          const [notification] = await self.registration.getNotifications();
          self.dispatchEvent(new NotificationEvent("notificationclick", {notification}));
        }"""
    )
    page.wait_for_url(f"{base}/play/{game}", timeout=30_000)
    page.wait_for_selector("#status:has-text('seat')")
    assert page.evaluate("location.hash") == ""  # the account's seat: no token in the address
    assert page.evaluate(PUSHED) == []  # the click closed it
    # Chromium's own word on the failed subscription (a Playwright context is like incognito)
    assert [e for e in errors if "does not support the Push API in incognito" not in e] == []
