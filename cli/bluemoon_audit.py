"""Audit a finished game from its log: ``bluemoon-audit log.json``, or every game of an export
(``bluemoon-audit games.ndjson``: one log a line, as ``GET /players/<id>/games/export`` writes
it), or ``bluemoon-audit --url http://127.0.0.1:8000 <game>``. Exits 0 when every check of
every game passes."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any

from application.games.log_audit import audit_log


class NotPublished(Exception):
    """The service has no log to give (yet)."""


def load(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The logs to audit: the service's one, the file's one, or each line's of an NDJSON file."""
    if args.url:
        try:
            with urllib.request.urlopen(f"{args.url.rstrip('/')}/games/{args.source}/log") as response:
                return [json.load(response)]
        except urllib.error.HTTPError as error:
            problem = json.loads(error.read() or b"{}")
            raise NotPublished(problem.get("detail") or f"the service answered {error.code}") from None
    with open(args.source) as f:
        text = f.read()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:  # more than one document: an export, one log a line
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "source", help="a log file (the JSON of GET /games/<id>/log), an NDJSON export, or a game id with --url"
    )
    parser.add_argument("--url", help="the service to fetch the log from")
    args = parser.parse_args(argv)
    try:
        logs = load(args)
    except NotPublished as error:
        print(f"cannot audit {args.source}: {error}", file=sys.stderr)
        return 2
    except (json.JSONDecodeError, OSError) as error:
        print(f"cannot audit {args.source}: {error}", file=sys.stderr)
        return 2
    failed = 0
    for log in logs:
        result = audit_log(log)
        if len(logs) > 1:
            print(f"game {log.get('game')}:")
        for c in result["checks"]:
            print(f"{'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}")
        print(f"setup: {result['setup']}")
        print("verified" if result["verified"] else "NOT verified")
        failed += not result["verified"]
    if len(logs) > 1:
        print(f"{len(logs) - failed} of {len(logs)} games verified")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
