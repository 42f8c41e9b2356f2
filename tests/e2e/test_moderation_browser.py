"""Reports and moderation in real browsers (issue 38, items 2 and 3): a person files a report of
a chat message with the report dialog (service/web/reports.js, opened on the lobby as the play
page's chat opens it) in one browser; a moderator, made
one by the operator's command, sees it with its context on /moderation in another browser, on a
phone's screen, hides the message and resolves the report. Both pages are axe clean and every
control is 44 px on the phone. On the embedded Redis only (``own_store``): the store is
tests/api's and tests/integration's concern, and the operator's command is run against it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import redis

from application.chat.messages import ChatMessages
from events.embedded import shared
from events.redis_store import RedisStore
from tests.e2e.conftest import call, wait_until
from tests.support.browser import (  # noqa: F401 (the fixture)
    SMALL,
    browser,
    page_with_errors,
    serious,
    service_and_log,
    sign_in_by_mail,
)

pytestmark = [pytest.mark.slow, pytest.mark.own_store]  # real Chromium against the whole service

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
FILE = """(subject) => { window.filed = null;
  import("/web/reports.js").then((m) => m.report(subject)).then((r) => { window.filed = r; }); }"""


def test_browser_a_moderator_sees_a_report_filed_in_another_browser_and_hides_the_message(
    service_and_log,  # noqa: F811
    browser,  # noqa: F811
    tmp_path,
):
    base, log = service_and_log
    errors: list[str] = []
    status, created = call(base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert status == 201
    game = created["game"]
    url, started = shared(tmp_path / "redis-0")  # the service's own embedded Redis
    assert started is None
    client = redis.Redis.from_url(url)
    chat = ChatMessages(RedisStore(client))
    lines = ["good luck", "you all cheat, idiots", "gg"]
    sent = [chat.add(game, "spectators", "author-b", None, line) for line in lines]

    moderator = page_with_errors(browser, errors, **PHONE)
    sign_in_by_mail(moderator, base, log, "moderator-b@example.com")
    environment = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "STORE_URL")}
    granted = subprocess.run(
        [sys.executable, "-m", "cli.moderators", "grant", "moderator-b@example.com"],
        env={**environment, "BLUEMOON_DATA": str(tmp_path / "redis-0")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert granted.returncode == 0, granted.stderr

    reporter = page_with_errors(browser, errors)
    sign_in_by_mail(reporter, base, log, "reporter-b@example.com")
    # the lobby, where the dialog is opened as the play page's chat opens it
    reporter.evaluate(FILE, {"game": game, "room": "spectators", "message": sent[1]["id"]})
    reporter.wait_for_selector("#report-dialog[open] select[name=reason]")
    assert serious(reporter) == [], json.dumps(serious(reporter), indent=1)
    reporter.select_option("#report-dialog select[name=reason]", "abuse")
    reporter.fill("#report-dialog textarea[name=words]", "insults in the spectators' chat")
    reporter.click("#report-dialog button[type=submit]")
    wait_until(reporter, "window.filed && window.filed.status === 'open'", timeout=30_000)

    moderator.goto(base + "/moderation")
    moderator.wait_for_selector("article.report")
    shown = moderator.text_content("article.report")
    assert "you all cheat, idiots" in shown and "insults in the spectators' chat" in shown and "good luck" in shown
    assert serious(moderator) == [], json.dumps(serious(moderator), indent=1)
    assert moderator.evaluate(SMALL) == []
    moderator.fill("article.report input[name=why]", "insults")
    moderator.click("article.report button.hide")
    moderator.wait_for_selector("#log li:has-text('hide')")
    assert chat.one(game, "spectators", sent[1]["id"])["removed"] == "hidden"  # for everyone now
    assert [m["text"] for m in chat.read(game, "spectators")] == ["good luck", None, "gg"]
    assert "you all cheat, idiots" in moderator.text_content("article.report")  # the report kept its evidence
    moderator.click("article.report button.resolve")
    moderator.wait_for_selector("#log li:has-text('resolve')")
    assert moderator.locator("article.report").count() == 0
    client.close()
    assert errors == []
