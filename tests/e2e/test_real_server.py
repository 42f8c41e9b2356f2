"""The service started as the README says (`bluemoon`: gunicorn, an RQ worker and the embedded
Redis), played over real HTTP: create a game with a bot, play a turn, see the bot reply."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from events.embedded import free_port


def call(base: str, method: str, path: str, body=None, token=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@pytest.fixture
def server(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["BLUEMOON_DATA"] = str(tmp_path / "redis")
    proc = subprocess.Popen([sys.executable, "-m", "service.run", "--port", str(port)], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if call(base, "GET", "/readyz")[0] == 200:
                break
        except (urllib.error.URLError, ConnectionError):
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.2)
    yield base
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)


def test_the_readme_quick_start_over_real_http(server):
    status, created = call(server, "POST", "/games", {
        "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
        "setup": {"first_player": 0},
    })
    assert status == 201
    game, token = created["game"], created["seats"][0]["token"]
    status, legal = call(server, "GET", f"/games/{game}/legal", token=token)
    assert status == 200 and legal["commands"]
    end_turn = next(c for c in legal["commands"] if c["type"] == "end_turn")
    status, result = call(server, "POST", f"/games/{game}/commands", end_turn, token=token,
                          headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "first-turn"})
    assert status == 200 and result["view"]["turn"]["seat"] == 1
    # the bot answers from the background worker; wait for it through the long poll
    after = result["version"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, page = call(server, "GET", f"/games/{game}/events?after={after}&wait=5", token=token)
        assert status == 200
        after = page["next_after"]
        if any(e["type"] == "TurnStarted" and e["data"]["seat"] == 0 for e in page["events"]):
            break
    else:
        raise AssertionError("the bot did not reply")
    status, view = call(server, "GET", f"/games/{game}", token=token)
    assert view["turn"]["seat"] == 0 and view["turn"]["number"] == 3
