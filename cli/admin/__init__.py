"""``bluemoon-admin``: what an operator does by hand, without a Redis shell or the key layout.

    bluemoon-admin work list | work requeue ENTRY        stuck turns and overdue work (the outbox)
    bluemoon-admin jobs failed | jobs requeue|delete ID   RQ's failed jobs, per queue
    bluemoon-admin games end|delete GAME | games rebuild-index
    bluemoon-admin people suspend ACCOUNT --days N --reason WHY | people restore|export ACCOUNT
    bluemoon-admin backup DIR | backup --verify DIR | restore DIR

Words for people by default, ``--json`` (after the command) for scripts. It reaches the store
as the service does (STORE_URL, else REDIS_URL; RQ on QUEUE_URL). Exit 0 when done, 1 when
refused (the reason on stderr), 2 for a wrong command line. One module per group of commands;
what they do lives in application/admin/.
"""

from __future__ import annotations

import argparse
import json
import sys

import redis

from cli.admin import backups, games, jobs, people, work
from cli.admin.common import Refused

GROUPS = (work, jobs, games, people, backups)


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(
        prog="bluemoon-admin", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    groups = found.add_subparsers(required=True, metavar="command")
    for group in GROUPS:
        group.add(groups)
    return found


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        answer = args.run(args)
    except Refused as error:
        print(json.dumps({"error": str(error)}) if args.json else str(error), file=sys.stderr)
        return 1
    except redis.ConnectionError as error:
        print(f"cannot reach Redis: {error}", file=sys.stderr)
        return 1
    print(json.dumps(answer.data, indent=2, default=str) if args.json else "\n".join(answer.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
