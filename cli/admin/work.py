"""``bluemoon-admin work``: overdue outbox entries (application/admin/stuck_work.py), and
handing one on again."""

from __future__ import annotations

import argparse
import datetime
from typing import Any

from application.admin import stuck_work
from cli.admin.common import Answer, Refused, command, components


def add(groups: Any) -> None:
    work = groups.add_parser("work", help="stuck turns and overdue work (the outbox)").add_subparsers(required=True)
    listed = command(work, "list", listed_work, "list outbox entries overdue by more than their lease, or retried")
    listed.add_argument("--grace-ms", type=int, help="list entries due more than this long ago (default: each lease)")
    again = command(work, "requeue", requeued, "make one entry due now and enqueue its job")
    again.add_argument("name", help="the outbox entry (a game's id for its turn, rt:<game> a rating, ...)")


def _when(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).isoformat(timespec="seconds")


def listed_work(args: argparse.Namespace) -> Answer:
    found = stuck_work.overdue(components().client, args.grace_ms)
    lines = [
        f"{o.name}  {o.kind}  due {_when(o.due_ms)}  late {o.late_ms / 1000:.0f} s  claimed {o.tries}x" for o in found
    ]
    return Answer([o.shown() for o in found], lines or ["nothing overdue"])


def requeued(args: argparse.Namespace) -> Answer:
    service = components(handing=True).service
    try:
        handed = stuck_work.requeue(service.outbox, service.dispatcher, args.name)
    except stuck_work.UnknownEntry as error:
        raise Refused(str(error)) from error
    said = f"{args.name}: due now, handed to the workers" if handed else f"{args.name}: due now (not handed on)"
    return Answer({"entry": args.name, "handed": handed}, [said])
