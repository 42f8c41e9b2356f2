"""The play socket (``GET /games/{game}/socket``): one WebSocket per seat carrying commands in and
the game's events out, for clients that play many moves (phones, bots) and would otherwise pay a
request's cost (headers, auth, the rate limits' and Flask's work) for each.

Everything a command posted over REST is promised holds here: the caller is authenticated once,
when the socket opens (a seat token, a personal token, or the page's session, exactly as REST
reads them), and each command is then read with its Idempotency-Key record in one round trip,
applied by ``GameService.submit`` (the same checked, durable append, the version checked), counted
against the same write rate limits, and answered with the REST answer's body; a refusal is the
same RFC 9457 problem document. The socket holds a stream slot (service/quotas.py) as an SSE
stream does. Browsers cannot set headers on a WebSocket, so a token may come as the subprotocol
``bearer.<token>`` beside ``bluemoon.v1`` (``install``). docs/api.md describes the messages.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import redis
import simple_websocket
from flask import Flask, Response, current_app
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import BadRequest
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

from application.games.codec import command_from_json, dumps
from application.refusals import Forbidden, PreconditionRequired
from events.feed import Feed

from . import live
from .ratelimit import RateLimits, client_address
from .requests import game_view, served_events
from .schemas.play import CommandRequest
from .schemas.retries import idempotency_key

SUBPROTOCOL = "bluemoon.v1"  #: the protocol the server speaks, chosen whenever the client offers it
TOKEN_PROTOCOL = "bearer."  #: a subprotocol ``bearer.<token>``: the token, for clients that set no headers
MAX_MESSAGE = (
    64 * 1024
)  #: bytes a message may have, as a REST body (MAX_CONTENT_LENGTH); a bigger one closes the socket (1009)
PING_SECONDS = 25.0  #: the server pings this often, so that a dead peer's socket and slot are let go
EVENT_WAIT = 5.0  #: the event follower looks at the feed at least this often (then for a restart)


class SocketCommand(Schema):
    """A command message: the REST body under ``command``, the Idempotency-Key beside it."""

    id = fields.String(validate=validate.Length(max=100), load_default=None, allow_none=True)
    idempotency_key = fields.String(
        validate=idempotency_key().validators, load_default=None, metadata={"description": "As REST's Idempotency-Key."}
    )
    command = fields.Nested(CommandRequest, required=True)


_COMMAND = SocketCommand()


def install(app: Flask) -> None:
    """Let a client that cannot set headers (a browser) send its bearer token as the subprotocol
    ``bearer.<token>``: it becomes the upgrade request's Authorization header, so the socket is
    authenticated by the same code as every request (and never by a cookie a page on another site
    could send along)."""
    inner = app.wsgi_app

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        offered = environ.get("HTTP_SEC_WEBSOCKET_PROTOCOL")
        if offered and "HTTP_AUTHORIZATION" not in environ:
            for name in offered.split(","):
                if name.strip().startswith(TOKEN_PROTOCOL):
                    environ["HTTP_AUTHORIZATION"] = "Bearer " + name.strip()[len(TOKEN_PROTOCOL) :]
        return inner(environ, start_response)

    app.wsgi_app = wsgi  # type: ignore[method-assign]


class _Ended(Response):
    """The answer of a view that took the connection over: gunicorn closes it (StopIteration is
    how its gevent worker is told the response was written), any other server gets nothing."""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if "gunicorn.socket" in environ:
            raise StopIteration
        return []


class PlaySocket:
    """One open socket: ``caller``'s seat (None: a spectator, who hears the events only)."""

    def __init__(self, environ: dict[str, Any], game: str, seat: int | None, token: str | None) -> None:
        self.game, self.seat, self.token = game, seat, token
        self.components = current_app.extensions["bluemoon"]
        self.limits: RateLimits | None = current_app.extensions.get("rate_limits")
        self.address = client_address()
        self.sent = 0  #: the last version whose events this socket sent (answers and pushes)
        self.revealed = False
        self._lock = threading.Lock()
        self._idle = threading.Event()  #: set while no command is being answered
        self._idle.set()
        # no permessage-deflate: deflating each answer was 6.6% of the web workers' sampled CPU (a
        # profile under bench/peer_speed.py's load), and a move's messages are a few kilobytes
        environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
        self.ws = simple_websocket.Server(
            environ, subprotocols=[SUBPROTOCOL], ping_interval=PING_SECONDS, max_message_size=MAX_MESSAGE
        )

    def send(self, message: dict[str, Any]) -> None:
        """One message, written whole (the answers and the follower's pushes share the socket).
        A client gone meanwhile (closed, or its connection dropped while its answer was made) ends
        the socket as any close does (``ConnectionClosed``), not as a server error."""
        with self._lock:
            try:
                self.ws.sock.sendall(self.ws.ws.send(TextMessage(data=dumps(message).decode())))
            except (LocalProtocolError, OSError) as gone:
                self.ws.connected = False
                raise simple_websocket.ConnectionClosed() from gone

    def serve(self, version: int, finished: bool) -> Response:
        # nothing is sent before the client speaks: a client may read its handshake's answer and a
        # first message in one read and leave the message unread (simple-websocket's Client does)
        self.sent, self.revealed = version, finished
        follower = threading.Thread(target=self._follow, name="bluemoon-play-socket", daemon=True)
        follower.start()
        try:
            while (text := self.ws.receive()) is not None:
                self._idle.clear()
                try:
                    self.send(self._answer(text))
                finally:
                    self._idle.set()
        except simple_websocket.ConnectionClosed:
            pass
        finally:
            self.ws.connected = False  # the follower stops at its next look
        return _Ended()

    def _answer(self, text: str | bytes) -> dict[str, Any]:
        """The answer to one message: a result, or a problem that changed nothing."""
        message_id = None
        try:
            try:
                document = json.loads(text)
            except ValueError as error:
                raise BadRequest(f"the message is not JSON: {error}") from None
            if isinstance(document, dict) and isinstance(document.get("id"), str):
                message_id = document["id"]
            return {"type": "result", "id": message_id, "result": self._play(_COMMAND.load(document))}
        except Exception as error:  # answered as REST answers it, by the app's handlers
            return {"type": "problem", "id": message_id, "problem": problem_document(error)}

    def _play(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.seat is None:
            raise Forbidden("a spectator's socket hears the events but plays no command: open it with a seat's token")
        if self.limits is not None:
            self.limits.count("write", self.address, self.token)
        body = message["command"]
        expected = body.pop("expected_version", None)
        if expected is None:
            raise PreconditionRequired("send expected_version: the version you played against")
        service = self.components.service
        key = message.get("idempotency_key")
        # the seat was authenticated when the socket opened: the read brings the game and the key's record
        read = dataclasses.replace(service.read(self.game, None, key, sender=str(self.seat)), seat=self.seat)
        outcome = service.submit(self.game, command_from_json(body, self.seat), expected=expected, key=key, read=read)
        state = outcome.state
        self.revealed = self.revealed or state.finished
        self.sent = max(self.sent, state.version)
        return {
            "game": self.game,
            "version": state.version,
            "duplicate": outcome.duplicate,
            "events": served_events(outcome.events, self.seat, revealed=state.finished),
            "view": game_view(self.game, state, self.seat, outcome.settings),
        }

    def _follow(self) -> None:
        """Push the events that this socket's answers did not carry (the other seats' moves, a
        bot's, a deadline's) as they come; close the socket when the server restarts."""
        feed: Feed = self.components.feed
        with feed.watching(self.game):
            while self.ws.connected:
                if feed.closing:
                    self._close(1012, "the server is restarting: open the socket again")
                    return
                if feed.wait(self.game, self.sent, EVENT_WAIT) <= self.sent:
                    continue
                # a command being answered carries its own events: wait for its answer (the work its
                # append hands on, a bot's turn, may wake this before the answer is written)
                self._idle.wait()
                try:
                    stored = live.read_next(self.components, self.game, self.sent)
                except redis.RedisError:
                    self._close(1011, "the events could not be read: open the socket again")
                    return
                fresh = [s for s in stored if s.seq > self.sent]
                if not fresh:
                    continue
                self.revealed = self.revealed or any(s.type == "GameEnded" for s in fresh)
                self.sent = fresh[-1].seq
                try:
                    self.send({"type": "events", "events": [live.served(s, self.seat, self.revealed) for s in fresh]})
                except (OSError, simple_websocket.ConnectionClosed):
                    return

    def _close(self, code: int, reason: str) -> None:
        with suppress(OSError, simple_websocket.ConnectionClosed):
            self.ws.close(code, reason)


def problem_document(error: Exception) -> dict[str, Any]:
    """``error`` as the app's handlers answer it over REST (service/problems.py): its document."""
    response = current_app.make_response(current_app.handle_user_exception(error))
    document: dict[str, Any] = response.get_json()
    if response.headers.get("Retry-After"):
        document["retry_after"] = int(response.headers["Retry-After"])
    return document
