"""Sign in by email through a real SMTP server (aiosmtpd): the link is followed from the message
as received, through the page it opens, to a signed-in session."""

from __future__ import annotations

import re
import time

import pytest
import redis

from application.background.handoff import CallbackHandoff
from events.embedded import free_port
from service.app import create_app
from tests.api.client import CheckedClient


def test_a_link_sent_by_smtp_is_followed_from_the_message_to_a_session(inbox, redis_url):
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "RATE_LIMIT": 0})
    )
    email = f"ada-{free_port()}@example.com"
    asked = api.post("/auth/email-link", json={"email": email})
    assert asked.status_code == 202 and asked.json["delivery"] == "email"
    deadline = time.monotonic() + 10
    while not inbox.messages:
        assert time.monotonic() < deadline, "no message reached the SMTP server"
        time.sleep(0.05)
    ((recipients, message),) = inbox.messages
    assert recipients == [email] and message["From"] == "Blue Moon City <games@bluemoon.example>"
    link = re.search(r"http://localhost/signin\?token=([\w-]+)", message.get_payload(decode=True).decode())
    assert link, message.get_payload()
    page = api.get(f"/signin?token={link.group(1)}")
    assert page.status_code == 200 and f'value="{link.group(1)}"' in page.get_data(as_text=True)
    assert api.get("/me").status_code == 401  # opening the page spends nothing and signs in no one
    signed = api.http.post("/signin", data={"token": link.group(1)}, headers={"Origin": "http://localhost"})
    assert signed.status_code == 303 and signed.headers["Location"] == "/"
    assert "HttpOnly" in signed.headers["Set-Cookie"]
    assert api.get("/me").json["email"] == email
    again = api.http.post("/signin", data={"token": link.group(1)}, headers={"Origin": "http://localhost"})
    assert again.status_code == 401 and "already used" in again.get_data(as_text=True)
    client.close()


def test_an_unreachable_smtp_server_loses_the_link_but_the_answer_tells_nothing(monkeypatch, redis_url, caplog):
    monkeypatch.setenv("SMTP_URL", f"smtp://127.0.0.1:{free_port()}")  # nothing listens there
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "RATE_LIMIT": 0})
    )
    asked = api.post("/auth/email-link", json={"email": "bo@example.com"})
    assert asked.status_code == 202 and asked.json["delivery"] == "email"
    assert any("could not be sent" in r.getMessage() for r in caplog.records)  # the fault really happened
    client.close()


@pytest.mark.parametrize(
    ("public_url", "links_to"),
    [(None, "http://localhost/signin?token="), ("https://bluemoon.example", "https://bluemoon.example/signin?token=")],
)
def test_a_request_with_a_foreign_host_never_gets_a_link_to_it_mailed(
    inbox, redis_url, monkeypatch, public_url, links_to
):
    """The attack: ask for the victim's link with ``Host: evil.example``; the victim gets a real,
    valid link, and a click hands its token to evil.example. The link's origin is PUBLIC_URL's,
    or without it the service's own loopback origin, whatever the request's Host says."""
    if public_url:
        monkeypatch.setenv("PUBLIC_URL", public_url)
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda t: None), "RATE_LIMIT": 0})
    )
    victim = f"victim-{free_port()}@example.com"
    for host in ("evil.example", "evil.example:8000", "localhost.evil.example"):
        asked = api.post("/auth/email-link", json={"email": victim}, headers={"Host": host})
        assert asked.status_code == 202
    deadline = time.monotonic() + 10
    while len(inbox.messages) < 3:
        assert time.monotonic() < deadline, "the messages did not all reach the SMTP server"
        time.sleep(0.05)
    for _, message in inbox.messages:
        text = message.get_payload(decode=True).decode()
        assert "evil.example" not in text, text
        assert links_to in text, text
    client.close()
