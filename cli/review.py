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

from application.games.log_review import review_log
from cli.bluemoon_audit import NotPublished, load
from domain.review import NotReviewable
from domain.review.review import SAMPLES


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
