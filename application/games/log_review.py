"""Review a published log (``GET /games/{id}/log``'s document): the review job and the
``bluemoon-review`` command run exactly this, so that they give the same numbers."""

from __future__ import annotations

from typing import Any

from domain.review import NotReviewable, review_game
from domain.review.review import SAMPLES
from events.serialization import decode


def clock_versions(events: list[dict[str, Any]]) -> set[int]:
    """The versions at which the clock played a seat's command (the event's actor is
    ``deadline:<level>``, the version in its meta): not the seat's decisions."""
    return {e["meta"]["version"] for e in events if str(e.get("actor", "")).startswith("deadline:")}


def review_log(log: dict[str, Any], samples: int = SAMPLES) -> dict[str, Any]:
    """The review of a published log; ``NotReviewable`` if it cannot be read or reviewed."""
    try:
        events = [decode(e["type"], e["data"]) for e in log["events"]]
        clock = clock_versions(log["events"])
    except (KeyError, TypeError, ValueError) as error:
        raise NotReviewable(f"the log cannot be read: {error}") from None
    return review_game(events, samples=samples, played_for=clock)
