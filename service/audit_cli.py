"""Audit a finished game from its log: ``bluemoon-audit log.json`` or
``bluemoon-audit --url http://127.0.0.1:8000 <game>``. Exits 0 when every check passes."""
from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from typing import Any

from domain.audit import audit
from events.serialization import decode


def load(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        with urllib.request.urlopen(f"{args.url.rstrip('/')}/games/{args.source}/log") as response:
            return json.load(response)  # type: ignore[no-any-return]
    with open(args.source) as f:
        return json.load(f)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("source", help="a log file (the JSON of GET /games/<id>/log), or a game id with --url")
    parser.add_argument("--url", help="the service to fetch the log from")
    args = parser.parse_args(argv)
    log = load(args)
    events = [decode(e["type"], e["data"]) for e in log["events"]]
    checks = audit(events)
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    ok = all(c.ok for c in checks)
    print("verified" if ok else "NOT verified")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
