"""Following a game: the events after a version (a long poll), and the Server-Sent Events stream."""

from __future__ import annotations

import math
import re
from typing import Any

from flask import Blueprint, current_app
from marshmallow import ValidationError, fields
from marshmallow.validate import Range

from application.accounts.scopes import READ
from application.chat.rooms import GameChat
from application.games.game_service import digest

from .. import chat_live, live
from ..operation import MAX_VERSION, OPTIONAL_AUTH, Answer, Body, Caller, Operation, Parameters, Reply, TrueOrFalse
from ..quotas import quotas
from ..requests import components, service, signed_in, tokens
from ..schemas.feeds import EventPage
from ..sse_response import sse_response

feeds = Blueprint("feeds", __name__)
_NOT_A_VERSION = f"must be a version: a whole number from 0 to {MAX_VERSION}"
_DIGITS = re.compile(r"[0-9]{1,16}")


class Version(fields.Integer):
    """A version as text: ASCII digits only (``int()`` would also take ``+1``, `` 1`` or ``1_0``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            validate=Range(min=0, max=MAX_VERSION, error=_NOT_A_VERSION),
            error_messages={"invalid": _NOT_A_VERSION},
            **kwargs,
        )

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return int(value)


_VERSION = Version()


class LastEventId(fields.Field[int | None]):
    """What EventSource sends on a reconnect: a version, spaces around it ignored; empty counts as absent."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        text = str(value).strip()
        return _VERSION.deserialize(text) if text else None


class Seconds(fields.Field[float]):
    """How long a long poll may wait: 0 to the app's MAX_WAIT (live.MAX_WAIT unless configured)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        try:
            wait = float(value)
        except ValueError:
            wait = math.nan
        longest = current_app.config["MAX_WAIT"]
        if not 0 <= wait <= longest:  # also refuses nan
            raise ValidationError(f"must be a number of seconds from 0 to {longest:g}")
        return wait


class Page(Parameters):
    after = Version(
        load_default=0, metadata={"description": "The last version you have; events after it are returned."}
    )
    wait = Seconds(
        load_default=0,
        metadata={
            "type": "number",
            "minimum": 0,
            "maximum": live.MAX_WAIT,
            "description": f"Seconds (0 to {live.MAX_WAIT:g}) to wait for a new event when there is none yet.",
        },
    )
    chat_after = Version(
        metadata={
            "description": "Also the game's chat: the notices after this number (0: every one kept) in `chat`, "
            "and the wait ends for a chat message too; pass the page's `chat_next` next time."
        }
    )


@Operation(
    feeds,
    "get",
    "/games/{game}/events",
    id="listEvents",
    tag="follow",
    summary="Events after a version, redacted for you; long-poll with wait.",
    description=f"At most {live.PAGE} events per page, oldest first; pass `next` as `after` for the "
    f"next page. With `wait`, when there is no event after `after` yet, the request waits up to "
    f"`wait` seconds (at most {live.MAX_WAIT:g}) for one, and answers 200 with an empty page if "
    "none comes.",
    security=OPTIONAL_AUTH,
    scope=READ,
    query=Page,
    responses={200: Reply("A page of events (empty when `wait` passed with none).", EventPage)},
    problems=(403, 404, 422),
)
def list_events(game: str, caller: Caller, query: Body) -> Answer:
    after, chat_after = query["after"], query.get("chat_after")
    state = service().state(game, caller.read)  # 404 for an unknown game
    c = components()
    chat: dict[str, Any] = {}
    if chat_after is None:
        stored, version = live.poll(c, game, after, query["wait"], state.version)
    else:
        reader = _chat_reader(caller)
        stored, version, shown, chat_next = chat_live.poll(
            c, game, after, chat_after, query["wait"], state.version, reader
        )
        chat = {"chat": shown, "chat_next": chat_next}
    finished = state.finished or any(s.type == "GameEnded" for s in stored)  # after the end, nothing is hidden
    cursor = stored[-1].seq if stored else after
    return {
        "game": game,
        "version": version,
        "events": [live.served(s, caller.seat, finished) for s in stored],
        "next": cursor,
        "next_after": cursor,  # the older name of `next` (deprecated), as clients written before it read it
        **chat,
    }


def _chat_reader(caller: Caller) -> Any:
    """Who watches, as the chat sees them, read again each time (their mutes may change meanwhile)."""
    c, account = components(), signed_in()
    chat = GameChat(c.store, c.relations, c.suspensions)
    return lambda: chat.reader(caller.seat, account, caller.settings)


class Start(Parameters):
    after = Version(metadata={"description": "Start after this version; takes precedence over Last-Event-ID."})
    chat = TrueOrFalse(
        load_default=False,
        metadata={
            "description": "`true`: also the game's chat as it comes, as `event: chat` (a message) and "
            "`event: chat.removed` frames without an `id` (Last-Event-ID keeps naming the game's version); "
            "after a reconnection read the rooms for what came meanwhile."
        },
    )


class Resume(Parameters):
    last_event_id = LastEventId(
        data_key="Last-Event-ID",
        metadata={
            "type": "string",
            "pattern": "^ *[0-9]{0,15} *$",
            "description": "The last event id received (what EventSource sends when it reconnects). "
            "Empty counts as absent: the stream starts after version 0.",
        },
    )


#: The headers of every SSE answer (a game's stream, a person's), as documented.
SSE_HEADERS = {
    "Cache-Control": {"description": "`no-cache`.", "schema": {"type": "string"}},
    "X-Accel-Buffering": {
        "description": "`no`: tells a proxy in front not to buffer the stream.",
        "schema": {"type": "string"},
    },
}

SSE_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The event's seq: send it back as Last-Event-ID to resume."},
        "event": {"type": "string", "description": "The event's type, e.g. ContributionMade."},
        "data": {"type": "string", "description": "The Event object as JSON (see components.schemas.Event)."},
        "retry": {"type": "string"},
    },
}


@Operation(
    feeds,
    "get",
    "/games/{game}/stream",
    id="streamEvents",
    tag="follow",
    summary="Server-Sent Events: each event as 'id: <seq>', 'event: <type>', 'data: <Event JSON>'; "
    "resume with Last-Event-ID.",
    description=f"The stream starts with `retry: {live.SSE_RETRY_MS}` (EventSource reconnects after "
    f"{live.SSE_RETRY_MS} ms), then sends every event after `after` (or after `Last-Event-ID`), "
    f"then each new event as it happens. When {live.SSE_KEEPALIVE:g} s pass without an event it "
    f"sends a comment line (`: keep-alive`). After {live.SSE_SECONDS * (1 - live.LIFETIME_JITTER):g}-"
    f"{live.SSE_SECONDS:g} s (at random) the stream ends "
    "cleanly with a comment; EventSource then reconnects with `Last-Event-ID` and misses nothing. "
    "A stream ended early by a server restart first sends `retry: <ms>`, drawn at random from "
    f"{live.SSE_RESTART_RETRY_MS[0]}-{live.SSE_RESTART_RETRY_MS[1]} ms, so that its clients do not all "
    "reconnect at once.",
    security=OPTIONAL_AUTH,
    scope=READ,
    query=Start,
    headers=Resume,
    responses={
        200: Reply(
            f"An event stream that ends after {live.SSE_SECONDS * (1 - live.LIFETIME_JITTER):g}-"
            f"{live.SSE_SECONDS:g} s; reconnect to resume. "
            "The schema is that of one event of the stream.",
            {"text/event-stream": {"schema": SSE_EVENT}},
            headers=SSE_HEADERS,
        )
    },
    problems=(403, 404, 422, 429),
)
def stream_events(game: str, caller: Caller, query: Body, headers: Body) -> Answer:
    after = query["after"] if "after" in query else headers.get("last_event_id") or 0
    finished = service().state(game, caller.read).finished
    limits, sent = quotas(), tokens()
    release = limits.open_stream(digest(sent[0]) if sent and caller.seat is not None else None) if limits else None
    config = current_app.config
    frames = live.frames(
        current_app.extensions["bluemoon"],
        game,
        caller.seat,
        after,
        lifetime=config["SSE_SECONDS"],
        keepalive=config["SSE_KEEPALIVE"],
        revealed=finished,
        beside=chat_live.beside(components(), game, _chat_reader(caller)) if query["chat"] else None,
    )
    return sse_response(frames, release)
