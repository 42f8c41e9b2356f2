"""Schemathesis hooks for tests/e2e/test_fuzz.py (loaded through SCHEMATHESIS_HOOKS).

A long poll with nothing to report waits the whole ``wait`` it was given, up to the documented
30 s; a fuzzing run that sends the boundary values would spend minutes waiting for nothing.
A ``wait`` the document allows (a number from 0 to 30) is sent as at most a tenth of a second,
so it is still a valid wait and still answered by the same code; an invalid one (negative,
over 30, not a number) is sent unchanged, so the refusals stay checked.
"""

from __future__ import annotations

from typing import Any

import schemathesis

SHORTEST_USEFUL_WAIT = 0.1  #: seconds: still a real wait through the long-poll path


@schemathesis.hook
def map_query(context: Any, query: dict[str, Any] | None) -> dict[str, Any] | None:
    if not query or "wait" not in query:
        return query
    wait = query["wait"]
    if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 <= wait <= 30:
        query = {**query, "wait": min(wait, SHORTEST_USEFUL_WAIT)}
    return query
