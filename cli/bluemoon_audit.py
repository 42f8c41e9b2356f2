"""Audit a finished game from its log: ``bluemoon-audit log.json`` or
``bluemoon-audit --url http://127.0.0.1:8000 <game>``. Exits 0 when every check passes."""

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


def load(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        try:
            with urllib.request.urlopen(f"{args.url.rstrip('/')}/games/{args.source}/log") as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            problem = json.loads(error.read() or b"{}")
            raise NotPublished(problem.get("detail") or f"the service answered {error.code}") from None
    with open(args.source) as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("source", help="a log file (the JSON of GET /games/<id>/log), or a game id with --url")
    parser.add_argument("--url", help="the service to fetch the log from")
    args = parser.parse_args(argv)
    try:
        log = load(args)
    except NotPublished as error:
        print(f"cannot audit {args.source}: {error}", file=sys.stderr)
        return 2
    result = audit_log(log)
    for c in result["checks"]:
        print(f"{'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}")
    print(f"setup: {result['setup']}")
    print("verified" if result["verified"] else "NOT verified")
    return 0 if result["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
