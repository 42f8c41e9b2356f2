"""A seat's play socket (``GET /games/{game}/socket``, docs/api.md): its commands sent over one
WebSocket instead of a request each, with REST behind it.

``PlaySocket.play`` answers as ``POST /games/{game}/commands`` does: its status and its body (the
``CommandResult``'s JSON, or the problem document). The socket is opened at the first command, and
again after a drop once a backoff is over (1 s, doubled up to 30 s). A command that finds no socket
open, or whose socket drops or stays silent before the answer, is sent over REST with the same
Idempotency-Key and version, so it is played at most once. The socket needs the ``socket`` extra
(simple-websocket); without it every command goes over REST.
"""

from __future__ import annotations

import json
import time
import uuid
from contextlib import suppress
from typing import Any

import httpx

SUBPROTOCOL = "bluemoon.v1"
ANSWER_SECONDS = 10.0  #: a command unanswered on the socket by then is sent over REST (its key kept)
BACKOFF_SECONDS = (1.0, 30.0)  #: after a drop or a failed opening, no socket is tried for 1 s, doubled up to 30 s
LONGEST_WAIT = 30.0  #: a 429 asking for a wait up to this long is waited out and the command sent again


class PlaySocket:
    """The play socket of the seat ``token`` names in ``game``, on the service ``http`` (the
    httpx client of ``connect``'s, whose retries and token serve the REST fallback)."""

    def __init__(self, http: httpx.Client, game: str, token: str | None, *, attempts: int = 4) -> None:
        self.http, self.game, self.token, self.attempts = http, game, token, attempts
        # http://host -> ws://host, https://host -> wss://host
        self.url = str(http.base_url).rstrip("/").replace("http", "ws", 1) + f"/games/{game}/socket"
        self.over_socket = 0  #: commands answered over the socket
        self.over_rest = 0  #: commands sent over REST (no socket, or it dropped)
        self._ws: Any = None
        self._backoff = 0.0
        self._next_try = 0.0
        self._sent = 0

    def play(self, command: dict[str, Any], expected_version: int, key: str | None = None) -> tuple[int, Any]:
        """Play ``command`` (``POST /games/{game}/commands``'s body) against ``expected_version``:
        (status, body) as REST answers it."""
        key = key or str(uuid.uuid4())
        for attempt in range(1, self.attempts + 1):
            answer = self._asked({**command, "expected_version": expected_version}, key)
            if answer is None:
                break
            status, body = answer
            wait = body.get("retry_after") if status == 429 else None
            if wait is None or wait > LONGEST_WAIT or attempt == self.attempts:
                self.over_socket += 1
                return status, body
            time.sleep(wait)
        self.over_rest += 1
        headers = {"If-Match": f'"{expected_version}"', "Idempotency-Key": key}
        response = self.http.post(f"/games/{self.game}/commands", json=command, headers=headers)
        return response.status_code, response.json()

    def close(self) -> None:
        if self._ws is not None:
            with suppress(Exception):
                self._ws.close()
            self._ws = None

    def _asked(self, command: dict[str, Any], key: str) -> tuple[int, Any] | None:
        """The socket's answer to one command, or None if none came (the socket is let go)."""
        ws = self._opened()
        if ws is None:
            return None
        import simple_websocket

        self._sent += 1
        sent = f"c{self._sent}"
        try:
            ws.send(json.dumps({"id": sent, "idempotency_key": key, "command": command}))
            deadline = time.monotonic() + ANSWER_SECONDS
            while (left := deadline - time.monotonic()) > 0 and (text := ws.receive(timeout=left)) is not None:
                message = json.loads(text)
                if message.get("id") != sent:
                    continue  # the game's events, pushed: the seat follows its stream for them
                if message["type"] == "result":
                    return 200, message["result"]
                return message["problem"]["status"], message["problem"]
        except (simple_websocket.ConnectionClosed, OSError):
            pass
        self._dropped()
        return None

    def _opened(self) -> Any:
        """The open socket; None if it cannot open (it is then not tried again before the backoff is over)."""
        if self._ws is not None and self._ws.connected:
            return self._ws
        if self._ws is not None:
            self._dropped()
        if time.monotonic() < self._next_try:
            return None
        try:
            import simple_websocket
        except ImportError:  # installed without the ``socket`` extra: REST only
            return None
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            self._ws = simple_websocket.Client.connect(self.url, subprotocols=[SUBPROTOCOL], headers=headers)
        except (simple_websocket.ConnectionError, OSError):
            self._dropped()
            return None
        self._backoff = 0.0
        return self._ws

    def _dropped(self) -> None:
        self.close()
        self._backoff = min(self._backoff * 2 or BACKOFF_SECONDS[0], BACKOFF_SECONDS[1])
        self._next_try = time.monotonic() + self._backoff
