"""Following a person: their news across all their games (application/person_stream/news.py), by
long poll (``GET /me/events``) or Server-Sent Events (``GET /me/stream``), resumed after an id."""

from __future__ import annotations

from flask import Blueprint, current_app
from marshmallow import ValidationError

from application.accounts.scopes import READ
from application.person_stream.news import TYPES
from events.person_streams import IDLE_DAYS, LENGTH

from .. import live, person_live
from ..operation import PERSON, Answer, Body, Operation, Parameters, Reply
from ..quotas import quotas
from ..requests import components, person
from ..schemas.person_stream import PersonEventPage
from ..sse_response import sse_response
from .feed_routes import SSE_HEADERS, LastEventId, Seconds, Version

people = Blueprint("person_stream", __name__)

RETENTION = (
    f"A person's stream keeps their last {LENGTH:,} events (a few more at times: Redis trims whole blocks), "
    f"and lapses after {IDLE_DAYS} days without one; ids go on counting up for good, so an id that jumps by more "
    "than one says that events were trimmed away (read `GET /me/games` again)."
)
TOLD = (
    f"The event types: {', '.join(f'`{t}`' for t in TYPES)} (one schema each: `PersonEvent`). "
    "A game's events reach the stream through the outbox a moment after the command that caused them "
    "(the workers write it); `rating.changed` follows a rated game's `game.ended` once the rating job has rated it."
)


def _resumed(account: str, after: int | None, field: str) -> int:
    """Where to start: after ``after`` if given (an id this stream sent), else after its last event
    (from now on). An id past the last one names no event it sent: 422 naming ``field``."""
    last = components().person_streams.last(account)
    if after is None:
        return last
    if after > last:
        raise ValidationError(
            {field: [f"{after} is after the last event of your stream ({last}): resume from an id it sent"]}
        )
    return after


class Page(Parameters):
    after = Version(
        metadata={
            "description": "The last event id you have; events after it are returned (0: every event kept). "
            "Absent: after the last event now, so only what comes next."
        }
    )
    wait = Seconds(
        load_default=0,
        metadata={
            "type": "number",
            "minimum": 0,
            "maximum": live.MAX_WAIT,
            "description": f"Seconds (0 to {live.MAX_WAIT:g}) to wait for an event when there is none yet.",
        },
    )


@Operation(
    people,
    "get",
    "/me/events",
    id="listMyEvents",
    tag="follow",
    summary="Your news across all your games, after an id; long-poll with wait.",
    description=f"At most {live.PAGE} events per page, oldest first; pass `next` as `after` for the next "
    f"page. With `wait`, when there is no event after `after` yet, the request waits up to `wait` seconds "
    f"(at most {live.MAX_WAIT:g}) for one, and answers 200 with an empty page if none comes. An `after` past "
    f"the stream's last id is refused (422 naming `after`). {TOLD} {RETENTION}",
    security=PERSON,
    scope=READ,
    query=Page,
    responses={200: Reply("A page of your events (empty when `wait` passed with none).", PersonEventPage)},
    problems=(401, 422),
)
def list_my_events(query: Body) -> Answer:
    account = person()
    after = _resumed(account, query.get("after"), "after")
    found = person_live.poll(components(), account, after, query["wait"])
    return {"events": [item.document() for item in found], "next": found[-1].seq if found else after}


class Start(Parameters):
    after = Version(metadata={"description": "Start after this id; takes precedence over Last-Event-ID."})


class Resume(Parameters):
    last_event_id = LastEventId(
        data_key="Last-Event-ID",
        metadata={
            "type": "string",
            "pattern": "^ *[0-9]{0,15} *$",
            "description": "The last event id received (what EventSource sends when it reconnects). "
            "Empty or absent: the stream starts after its last event now.",
        },
    )


PERSON_SSE_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The event's id: send it back as Last-Event-ID to resume."},
        "event": {"type": "string", "enum": list(TYPES), "description": "The event's type."},
        "data": {
            "type": "string",
            "description": "The PersonEvent object as JSON (see components.schemas.PersonEvent).",
        },
        "retry": {"type": "string"},
    },
}


@Operation(
    people,
    "get",
    "/me/stream",
    id="streamMyEvents",
    tag="follow",
    summary="Server-Sent Events of your news across all your games: 'id: <id>', 'event: <type>', "
    "'data: <PersonEvent JSON>'; resume with Last-Event-ID.",
    description=f"As a game's stream (`streamEvents`): it starts with `retry: {live.SSE_RETRY_MS}`, sends every "
    "event after `after` (or after `Last-Event-ID`; with neither, from now on), then each new event as it happens, "
    f"a `: keep-alive` comment after {live.SSE_KEEPALIVE:g} s of silence, and ends cleanly after "
    f"{live.SSE_SECONDS * (1 - live.LIFETIME_JITTER):g}-{live.SSE_SECONDS:g} s (at random); EventSource then "
    "reconnects with `Last-Event-ID` and misses nothing. An id past the stream's last one is refused "
    "(422 naming `Last-Event-ID` or `after`). Only the account itself reads it. The events, and how long "
    "they are kept: as `listMyEvents` says.",
    security=PERSON,
    scope=READ,
    query=Start,
    headers=Resume,
    responses={
        200: Reply(
            f"An event stream that ends after {live.SSE_SECONDS * (1 - live.LIFETIME_JITTER):g}-"
            f"{live.SSE_SECONDS:g} s; reconnect to resume. The schema is that of one event of the stream.",
            {"text/event-stream": {"schema": PERSON_SSE_EVENT}},
            headers=SSE_HEADERS,
        )
    },
    problems=(401, 422, 429),
)
def stream_my_events(query: Body, headers: Body) -> Answer:
    account = person()
    if "after" in query:
        after = _resumed(account, query["after"], "after")
    else:
        after = _resumed(account, headers.get("last_event_id"), "Last-Event-ID")
    limits = quotas()
    release = limits.open_stream(None, account=account) if limits else None
    config = current_app.config
    frames = person_live.frames(
        components(), account, after, lifetime=config["SSE_SECONDS"], keepalive=config["SSE_KEEPALIVE"]
    )
    return sse_response(frames, release)
