"""An SSE response as every stream of the service answers: never cached, never buffered by a
proxy (``X-Accel-Buffering``), and its quota slots given back when it closes (its end, or a client
gone), whichever stream it is."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from flask import Response, stream_with_context


def sse_response(frames: Iterator[bytes], release: Callable[[], None] | None) -> Response:
    response = Response(
        stream_with_context(frames),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    if release is not None:
        response.call_on_close(release)
    return response
