"""Turn alerts reach real receivers from a real worker: a mail through an SMTP server (aiosmtpd)
covering every game that became the person's turn within their delay, with one-click
unsubscribe; Discord- and Slack-shaped posts to local HTTP receivers, retried without repeating
what other channels already took; a Web Push message to a local push service, which the test
decrypts with the subscription's own keys (RFC 8291) and whose VAPID signature it checks."""

from __future__ import annotations

import base64
import json
import time

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.support.alerts import PushService, browser_keys, end_the_turn, joined_game, parts_of, two_people
from tests.support.games import made_with_first_turn
from tests.support.workers import wait_until

pytestmark = pytest.mark.slow  # real workers, real receivers, real waiting for a mail batch


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_one_mail_covers_the_games_within_the_delay_and_its_link_unsubscribes(
    inbox, setting
):  # (the SMTP server first: the worker takes its address)
    api = setting
    ada, bo = two_people(api)
    bo_email = api.get("/me", token=bo).json["email"]
    api.patch("/me/alerts", json={"email": {"enabled": True, "delay_seconds": 3}}, token=bo)
    first, ada_first, _ = joined_game(api, ada, bo)
    second, ada_second, bo_second = joined_game(api, ada, bo)
    end_the_turn(api, first, ada_first, step=True)
    end_the_turn(api, second, ada_second)
    wait_until(lambda: [m for to, m in inbox.messages if bo_email in to], 20, "Bo's mail")
    time.sleep(4)  # a second mail would come within the delay: none does
    mails = [m for to, m in inbox.messages if bo_email in to]
    assert len(mails) == 1, [m["Subject"] for m in mails]
    mail = mails[0]
    assert mail["Subject"] == "Your turn in 2 Blue Moon City games"
    parts = parts_of(mail)
    assert set(parts) == {"text/plain", "text/html"}
    for game in (first, second):
        assert f"https://bluemoon.example/play/{game}" in parts["text/plain"]
        assert f'href="https://bluemoon.example/play/{game}"' in parts["text/html"]
    assert " steps to " in parts["text/plain"]  # Ada's step in the first game, in words
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = mail["List-Unsubscribe"].strip("<>")
    assert link.startswith("https://bluemoon.example/alerts/unsubscribe?token=")
    clicked = api.post(link.removeprefix("https://bluemoon.example"), data="List-Unsubscribe=One-Click")
    assert clicked.status_code == 200  # no session, no token: the link alone
    assert api.get("/me/alerts", token=bo).json["email"]["enabled"] is False
    end_the_turn(api, second, bo_second)
    end_the_turn(api, second, ada_second)  # Bo's turn again: no mail now
    store = api.app.extensions["bluemoon"].store
    wait_until(lambda: store.outbox_entry(f"al:{second}:1") is None, 30, "the worker to be done with the alert")
    assert len([m for to, m in inbox.messages if bo_email in to]) == 1
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    assert [d["outcome"] for d in log if d["channel"] == "email"] == ["delivered", "delivered"]  # both games' alerts


def test_discord_slack_and_push_each_get_the_alert_once_and_a_failed_post_is_retried(setting, receivers):
    api = setting
    ada, bo = two_people(api)
    discord, slack = receivers(500, 204), receivers(200)
    push_service = PushService(201, 410)
    private, keys_sent = browser_keys()
    changes = {
        "email": {"enabled": False, "delay_seconds": 0},
        "discord": {"url": discord.url},
        "slack": {"url": slack.url},
    }
    assert api.patch("/me/alerts", json=changes, token=bo).status_code == 200
    made = api.post("/me/push-subscriptions", json={"endpoint": push_service.endpoint, "keys": keys_sent}, token=bo)
    assert made.status_code == 201, made.json
    game, ada_seat, bo_seat = joined_game(api, ada, bo)
    end_the_turn(api, game, ada_seat)
    wait_until(lambda: len(discord.requests) == 2, 20, "Discord's retried post")
    time.sleep(1)  # the retry must not send the others again
    assert len(slack.requests) == 1 and len(push_service.received) == 1
    first, retried = (json.loads(r["body"]) for r in discord.requests)
    assert first == retried and "your turn" in first["content"] and first["embeds"][0]["url"].endswith(f"/play/{game}")
    posted = json.loads(slack.requests[0]["body"])
    assert "your turn" in posted["text"] and posted["blocks"][1]["elements"][0]["url"].endswith(f"/play/{game}")

    pushed = push_service.received[0]
    assert pushed["headers"]["content-encoding"] == "aes128gcm" and int(pushed["headers"]["ttl"]) > 0
    auth = _b64decode(keys_sent["auth"])
    shown = json.loads(http_ece.decrypt(pushed["body"], private_key=private, auth_secret=auth, version="aes128gcm"))
    assert shown["url"] == f"https://bluemoon.example/play/{game}" and "your turn" in shown["body"]
    _check_vapid(
        pushed["headers"]["authorization"],
        api.get("/me/alerts", token=bo).json["vapid_public_key"],
        push_service.endpoint,
    )

    end_the_turn(api, game, bo_seat)
    end_the_turn(api, game, ada_seat)  # Bo's turn again: the push service now says the subscription is gone
    wait_until(
        lambda: not api.get("/me/alerts", token=bo).json["push_subscriptions"], 20, "the gone subscription dropped"
    )
    log = api.get("/me/alerts/deliveries", token=bo).json["deliveries"]
    firsts = [(d["channel"], d["outcome"]) for d in reversed(log)][:4]
    assert ("discord", "retrying") in firsts and ("slack", "delivered") in firsts and ("push", "delivered") in firsts


def _check_vapid(header: str, service_key: str, endpoint: str) -> None:
    """``vapid t=<JWT>, k=<key>``: signed with ES256 by the service's key, for the push service's origin."""
    fields = dict(part.strip().split("=", 1) for part in header.removeprefix("vapid ").split(","))
    assert fields["k"] == service_key
    head, claims, signature = fields["t"].split(".")
    raw = _b64decode(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _b64decode(service_key))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    decoded = json.loads(_b64decode(claims))
    assert endpoint.startswith(decoded["aud"]) and decoded["exp"] > time.time()


def test_the_reminder_before_a_deadline_goes_out_once_per_turn(setting, receivers):
    api = setting
    ada, bo = two_people(api)
    discord = receivers(204)
    changes = {"email": {"enabled": False, "delay_seconds": 0}, "discord": {"url": discord.url}}
    assert api.patch("/me/alerts", json=changes, token=bo).status_code == 200
    made = made_with_first_turn(
        api, {"seats": [{"kind": "human"}, {"kind": "open"}], "clock": {"bank_seconds": 4}}, token=ada
    )
    game = made["game"]
    bo_seat = api.post(f"/games/{game}/seats/1/join", json={"invite": made["seats"][1]["invite"]}, token=bo).json
    assert bo_seat["seat"] == 1
    end_the_turn(api, game, made["seats"][0]["token"])
    started = time.monotonic()
    wait_until(lambda: len(discord.requests) == 2, 30, "the turn's alert and its reminder")
    assert time.monotonic() - started >= 2.5  # the reminder comes in the last quarter of Bo's 4 s
    first, reminder = (json.loads(r["body"])["content"] for r in discord.requests)
    assert "it is your turn" in first and "ends in about" in reminder
    wait_until(lambda: api.get(f"/games/{game}", token=ada).json["turn"]["seat"] == 0, 30, "Bo's bank to run out")
    time.sleep(1)
    assert len(discord.requests) == 2  # once per turn
