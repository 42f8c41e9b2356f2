"""Following a Server-Sent Events stream, resumed where it broke.

The service's streams (a game's ``/games/{game}/stream``, a person's ``/me/stream``) end every few
minutes on purpose, and a connection can break at any time. ``follow`` reads one the way
EventSource does (https://html.spec.whatwg.org/multipage/server-sent-events.html): when it ends or
breaks it waits the ``retry:`` the server asked for and connects again with ``Last-Event-ID`` set
to the last event it delivered, so the caller sees every event once, in order. Unlike
EventSource it sends the client's own headers (a bearer token) and works outside a browser.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

# a keep-alive comes every 15 s: a read that waits much longer is on a dead connection
STREAM_TIMEOUT = httpx.Timeout(10.0, read=45.0)


@dataclass(frozen=True)
class ServerEvent:
    """One event of the stream: its ``id`` (resume after it), its type and its data."""

    id: str | None
    event: str
    data: str

    def json(self) -> Any:
        """The data as JSON (the service's events are JSON objects)."""
        return json.loads(self.data)


class StreamRefused(Exception):
    """The service refused the stream (4xx other than 429): connecting again would not help."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"{response.status_code}: {response.text}")
        self.response = response


def follow(
    http: httpx.Client,
    url: str,
    *,
    after: str | int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[ServerEvent]:
    """Every event of the SSE stream at ``url`` after ``after`` (or after the ``after`` query
    parameter of ``url``; else from the start), for as long as the caller reads. Stop by
    leaving the loop; the connection is closed then."""
    target = httpx.URL(url)
    last_id = None if after is None else str(after)
    if "after" in target.params:  # the stream takes `after` over Last-Event-ID: resume by the header only
        last_id = last_id if last_id is not None else target.params["after"]
        target = target.copy_remove_param("after")
    retry = 1.0
    while True:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        try:
            with http.stream("GET", target, headers=headers, timeout=STREAM_TIMEOUT) as response:
                if 400 <= response.status_code < 500 and response.status_code != 429:
                    response.read()
                    raise StreamRefused(response)
                if response.status_code == 200:
                    for item in _events(response.iter_lines()):
                        if isinstance(item, float):
                            retry = item
                            continue
                        last_id = item.id if item.id is not None else last_id
                        yield item
        except httpx.TransportError:
            pass  # broken: connect again after `retry`, as EventSource does
        sleep(retry)


def _events(lines: Iterator[str]) -> Iterator[ServerEvent | float]:
    """The events of a stream's lines, and each ``retry:`` (as seconds) as it comes; an event
    cut off before its blank line is never delivered (it comes again after the resume)."""
    event_id: str | None = None
    kind = ""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield ServerEvent(event_id, kind or "message", "\n".join(data))
            kind, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            kind = value
        elif field == "id" and "\0" not in value:
            event_id = value
        elif field == "retry" and value.isdigit():
            yield int(value) / 1000
