"""Turn alerts' test kit: a browser's push subscription keys, a local push service, two people in
one game who end their turns, a mail's parts, and an alert's outbox entry attempted by the job
with the Discord and Slack posts captured."""

from __future__ import annotations

import base64
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.support.accounts import personal_token
from tests.support.games import made_with_first_turn
from workers import alert_jobs


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def browser_keys() -> tuple[ec.EllipticCurvePrivateKey, dict[str, str]]:
    """A subscription's keys as a browser makes them: a P-256 key pair and 16 auth bytes."""
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return private, {"p256dh": b64(point), "auth": b64(bytes(range(16)))}


class PushService:
    """A push service on 127.0.0.1: keeps each message's headers and encrypted body, and
    answers from a script (201, or 410 for a subscription that is gone); the last repeats.
    ``location``, when set, goes with every answer (a redirect's target)."""

    def __init__(self, *script: int) -> None:
        self.script, self.received = list(script) or [201], []
        self.location: str | None = None
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.received.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
                status = service.script.pop(0) if len(service.script) > 1 else service.script[0]
                self.send_response(status)
                if service.location:
                    self.send_header("Location", service.location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/push/{uuid.uuid4().hex}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def two_people(api) -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return personal_token(api, f"ada-{tag}@example.com"), personal_token(api, f"bo-{tag}@example.com")


def joined_game(api, ada: str, bo: str) -> tuple[str, str, str]:
    """Ada's game (seat 0, her turn first) that Bo joined (seat 1)."""
    made = made_with_first_turn(api, {"seats": [{"kind": "human"}, {"kind": "open"}]}, token=ada)
    game = made["game"]
    joined = api.post(f"/games/{game}/seats/1/join", json={"invite": made["seats"][1]["invite"]}, token=bo).json
    return game, made["seats"][0]["token"], joined["token"]


def end_the_turn(api, game: str, token: str, step: bool = False) -> None:
    """End the seat's turn, after one step on the board if ``step``."""
    version = api.get(f"/games/{game}", token=token).json["version"]
    if step:
        move = next(c for c in api.get(f"/games/{game}/legal", token=token).json["commands"] if c["type"] == "move")
        stepped = api.post(f"/games/{game}/commands", json={**move, "expected_version": version}, token=token)
        assert stepped.status_code == 200, stepped.json
        version = stepped.json["view"]["version"]
    answer = api.post(f"/games/{game}/commands", json={"type": "end_turn", "expected_version": version}, token=token)
    assert answer.status_code == 200, answer.json


def parts_of(message: Message) -> dict[str, str]:
    parts = (part for part in message.walk() if not part.is_multipart())
    return {part.get_content_type(): part.get_payload(decode=True).decode() for part in parts}


def outbox_entry(api, name: str) -> str | None:
    found = api.app.extensions["bluemoon"].store.outbox_entry(name)
    return found[0] if found else None


@contextmanager
def channels_captured() -> Iterator[list]:
    """Discord and Slack posts kept in a list, not sent (203.0.113.9 is allowed); mail is only logged."""
    sent: list = []
    with (
        mock.patch.dict("os.environ", {"WEBHOOK_ALLOW_HOSTS": "203.0.113.9"}),
        mock.patch.object(alert_jobs.alert_channels, "post_json", lambda field, url, body: sent.append(body) or 204),
        mock.patch.object(alert_jobs, "delivery", lambda: "server log"),
    ):
        yield sent


def attempt_alert(api, name: str) -> str:
    payload = outbox_entry(api, name)
    assert payload is not None
    return alert_jobs.attempt(api.app.extensions["bluemoon"], name, payload)
