"""The play socket (``GET /games/{game}/socket``) against the real service, from the attacker's
side: only the socket's own seat plays, a stranger's token and too many sockets are refused at
the opening, a spectator hears but cannot command, a message that cannot be read is a problem
that changes nothing, a replayed Idempotency-Key applies once, and the write rate limit counts
its commands. On the embedded Redis only (``own_store``): the transport is what it tests."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
import simple_websocket

from tests.e2e.conftest import against_greedy, call

pytestmark = pytest.mark.own_store


def opened(base: str, game: str, token: str | None = None, *, as_protocol: bool = False) -> simple_websocket.Client:
    """A socket to ``game``: the token as the Authorization header, or as a browser sends it."""
    url = base.replace("http://", "ws://") + f"/games/{game}/socket"
    protocols = ["bluemoon.v1"] + ([f"bearer.{token}"] if token and as_protocol else [])
    headers = {"Authorization": f"Bearer {token}"} if token and not as_protocol else {}
    return simple_websocket.Client.connect(url, subprotocols=protocols, headers=headers)


def heard(ws: simple_websocket.Client, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` (within 10 s), skipping the others."""
    while True:
        text = ws.receive(timeout=10)
        assert text is not None, f"no {kind} message within 10 s"
        message = json.loads(text)
        if message["type"] == kind:
            return message


def sent(ws: simple_websocket.Client, message: Any) -> dict[str, Any]:
    """Send ``message`` (a str as it is), and the answer: a result or a problem."""
    ws.send(message if isinstance(message, str) else json.dumps(message))
    while True:
        answer = json.loads(ws.receive(timeout=10))
        if answer["type"] in ("result", "problem"):
            return answer


def end_turn(version: int, key: str | None = None) -> dict[str, Any]:
    return {
        "id": f"m{version}",
        "command": {"type": "end_turn", "discards": [], "expected_version": version},
        **({"idempotency_key": key} if key else {}),
    }


def refused_opening(base: str, game: str, token: str | None) -> None:
    with pytest.raises(simple_websocket.ConnectionError):
        opened(base, game, token)


@pytest.mark.slow
def test_only_the_sockets_seat_plays_once_per_key_and_every_refusal_is_a_problem_that_changes_nothing(start_service):
    """Slow: the whole service is started (gunicorn, workers, Redis) with low limits to reach them."""
    base = start_service(QUOTA_STREAMS_PER_TOKEN="2", RATE_LIMIT_TOKEN_WRITES="3 per minute")
    status, created = call(
        base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    )
    assert status == 201
    game, tokens, version = created["game"], [s["token"] for s in created["seats"]], created["version"]
    _, stranger = call(base, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})

    first, second, watcher = (
        opened(base, game, tokens[0]),
        opened(base, game, tokens[1], as_protocol=True),
        opened(base, game),
    )
    assert first.subprotocol == second.subprotocol == "bluemoon.v1"
    refused_opening(base, game, stranger["seats"][0]["token"])  # another game's seat: 403 at the opening

    not_yours = sent(second, end_turn(version, "k-second"))["problem"]  # seat 1 plays seat 0's turn
    spectator = sent(watcher, end_turn(version, "k-watcher"))["problem"]
    garbled = sent(first, "{not json")["problem"]
    no_version = sent(first, {"command": {"type": "end_turn", "discards": []}})["problem"]
    assert not_yours["status"] in (409, 422) and spectator["status"] == 403
    assert garbled["status"] == 400 and garbled["code"] == "bad_request"
    assert no_version["status"] == 428
    assert call(base, "GET", f"/games/{game}")[1]["version"] == version  # nothing changed

    applied = sent(first, end_turn(version, "k1"))
    replayed = sent(first, end_turn(version, "k1"))
    assert applied["id"] == f"m{version}" and applied["result"]["duplicate"] is False
    assert replayed["result"]["duplicate"] is True and replayed["result"]["version"] == applied["result"]["version"]
    assert call(base, "GET", f"/games/{game}")[1]["version"] == applied["result"]["version"]  # applied once
    pushed = heard(second, "events")["events"]  # the other seat hears the move without asking
    assert [e["seq"] for e in pushed] == [e["seq"] for e in applied["result"]["events"]]

    limited = sent(first, end_turn(applied["result"]["version"], "k2"))[
        "problem"
    ]  # seat 0's 4th counted write this minute (no_version, k1, k1 again)
    assert limited["status"] == 429 and limited["limit"] == "RATE_LIMIT_TOKEN_WRITES" and limited["retry_after"] >= 1

    extra = opened(base, game, tokens[0])  # seat 0's second socket: its quota is 2
    with pytest.raises(simple_websocket.ConnectionError) as refused:
        opened(base, game, tokens[0], as_protocol=True)
    assert refused.value.status_code == 429
    for ws in (first, second, watcher, extra):
        ws.close()


@pytest.mark.slow
def test_against_a_bot_each_event_reaches_the_seat_once_and_nothing_is_deflated(start_service):
    """Slow: the whole service with a turn worker, and a greedy bot's replies. A command's answer
    carries its events and the pushes carry the bot's: the bot's turn is handed to the worker
    while the answer is being made, which woke the socket's follower to push the same events
    first. And the server does not take up permessage-deflate (its CPU outweighed the bytes)."""
    base = start_service()
    created = against_greedy(base)
    game, token, version = created["game"], created["seats"][0]["token"], created["version"]
    ws = opened(base, game, token)
    carried: list[int] = []
    view = None
    for _ in range(4):
        ws.send(json.dumps(end_turn(version, f"bot-{version}")))
        while True:  # the answer, then the bot's whole turn, back to this seat
            message = json.loads(ws.receive(timeout=20))
            assert message["type"] != "problem", message
            events = message["result"]["events"] if message["type"] == "result" else message["events"]
            carried += [e["seq"] for e in events]
            if message["type"] == "result":
                view = message["result"]["view"]
            elif any(e["type"] == "TurnStarted" and e["data"]["seat"] == 0 for e in events):
                break
        version = carried[-1]
        assert view is not None
    assert carried == list(range(carried[0], carried[-1] + 1)), "an event came twice or not at all"
    ws.close()

    with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=10) as raw:
        raw.sendall(
            f"GET /games/{game}/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\n"
            f"Sec-WebSocket-Protocol: bluemoon.v1\r\nAuthorization: Bearer {token}\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n".encode()
        )
        handshake = raw.recv(4096).decode("latin-1").lower()
    assert handshake.startswith("http/1.1 101") and "sec-websocket-extensions" not in handshake
