"""With SENTRY_DSN set, an unhandled error in a request reaches the Sentry server it names: here a
real HTTP server on 127.0.0.1, sent to by sentry-sdk itself from the web app in another process
(Sentry's integrations patch Flask and RQ for the whole process, so not in the test run's)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zlib

import brotli

from tests.support.receiver import Receiver

WEB_PROCESS = """
import fakeredis, sentry_sdk
from application.background.handoff import CallbackHandoff
from service.app import create_app
from service.routes import meta_routes

def broken():
    raise RuntimeError("the catalogue broke")

meta_routes._catalogue = broken  # a real route meets an error nobody handles
app = create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(print), "RATE_LIMIT": 0})
answer = app.test_client().get("/catalogue", headers={"X-Request-ID": "sentry-trace-1"})
sentry_sdk.flush(10)
print(answer.status_code, answer.json["code"])
"""


def _events(receiver: Receiver) -> list[dict]:
    """The events in the envelopes sentry-sdk posted (each a header line, then items)."""
    found = []
    for sent in receiver.requests:
        raw = sent["raw"]
        encoding = {k.lower(): v for k, v in sent["headers"].items()}.get("content-encoding", "")
        if encoding == "br":  # sentry-sdk's choice where brotli is installed (flask-compress brings it)
            raw = brotli.decompress(raw)
        elif encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        lines = raw.split(b"\n")
        for header, item in zip(lines[1::2], lines[2::2]):
            if json.loads(header).get("type") == "event":
                found.append(json.loads(item))
    return found


def test_an_unhandled_error_in_a_request_is_reported_to_the_sentry_dsn_with_its_request_id():
    receiver = Receiver(200)
    try:
        port = receiver.server.server_address[1]
        done = subprocess.run(
            [sys.executable, "-c", WEB_PROCESS],
            env={**os.environ, "SENTRY_DSN": f"http://publickey@127.0.0.1:{port}/42"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.stdout.split()[-2:] == ["500", "internal_error"], done.stderr[-2000:]
        assert all(sent["path"] == "/api/42/envelope/" for sent in receiver.requests)
        events = _events(receiver)
        assert events, receiver.requests
        event = events[0]
        (exception,) = event["exception"]["values"]
        assert (exception["type"], exception["value"]) == ("RuntimeError", "the catalogue broke")
        assert event["tags"]["request_id"] == "sentry-trace-1"
        assert {"flask", "rq"} <= set(event["sdk"]["integrations"])
    finally:
        receiver.server.shutdown()
