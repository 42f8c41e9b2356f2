"""Review a finished game offline from its log: ``bluemoon-review log.json`` (the JSON of
``GET /games/<id>/log``), or ``bluemoon-review --url http://127.0.0.1:8000 <game>``. Prints
the review as JSON (one line per game for an NDJSON export). The numbers are those the service
computes: the review's seed comes from the game's revealed seed and the value model's version,
so the same log and model give the same review anywhere. Exits 2 when a log cannot be reviewed
(a game that has not ended has no revealed seed)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.bluemoon_audit import NotPublished, load
from domain.review import NotReviewable, review_game
from domain.review.review import SAMPLES
from events.serialization import decode


def review_log(log: dict[str, Any], samples: int = SAMPLES) -> dict[str, Any]:
    """The review of a published log (``GET /games/<id>/log``'s document); the commands its
    events' actor says the clock played (``deadline:<level>``, with the version in their meta)
    are not the seat's decisions."""
    try:
        events = [decode(e["type"], e["data"]) for e in log["events"]]
        clock = {e["meta"]["version"] for e in log["events"] if str(e.get("actor", "")).startswith("deadline:")}
    except (KeyError, TypeError, ValueError) as error:
        raise NotReviewable(f"the log cannot be read: {error}") from None
    return review_game(events, samples=samples, played_for=clock)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "source", help="a log file (the JSON of GET /games/<id>/log), an NDJSON export, or a game id with --url"
    )
    parser.add_argument("--url", help="the service to fetch the log from")
    parser.add_argument("--samples", type=int, default=SAMPLES, help=f"worlds per decision (default {SAMPLES})")
    args = parser.parse_args(argv)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    try:
        logs = load(args)
        reviews = [review_log(log, args.samples) for log in logs]
    except (NotPublished, NotReviewable, json.JSONDecodeError, OSError) as error:
        print(f"cannot review {args.source}: {error}", file=sys.stderr)
        return 2
    for review in reviews:
        print(json.dumps(review, indent=None if len(reviews) > 1 else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
