"""``bluemoon-admin jobs``: RQ's failed jobs, per queue (application/admin/failed_jobs.py)."""

from __future__ import annotations

import argparse
from typing import Any

from application.admin import failed_jobs
from cli.admin.common import Answer, Refused, command, queue_connection


def add(groups: Any) -> None:
    jobs = groups.add_parser("jobs", help="failed jobs (RQ's failed job registry)").add_subparsers(required=True)
    listed = command(jobs, "failed", listed_failed, "list the failed jobs of the turn and deliveries queues")
    for parser in (listed, command(jobs, "requeue", requeued, "put a failed job back on its queue")):
        parser.add_argument("--queue", help="the turn queue's name (default: BLUEMOON_QUEUE)")
    command(jobs, "delete", deleted, "forget a failed job").add_argument("--queue", help="the turn queue's name")
    for name in ("requeue", "delete"):
        jobs.choices[name].add_argument("job", help="the failed job's id")


def listed_failed(args: argparse.Namespace) -> Answer:
    found = failed_jobs.failed(queue_connection(), args.queue)
    lines = [f"{j['id']}  {j['queue']}  {j['job']}  ended {j['ended']}  {j['error']}" for j in found]
    return Answer(found, lines or ["no failed jobs"])


def requeued(args: argparse.Namespace) -> Answer:
    try:
        queue = failed_jobs.requeue(queue_connection(), args.job, args.queue)
    except failed_jobs.UnknownJob as error:
        raise Refused(str(error)) from error
    return Answer({"job": args.job, "queue": queue}, [f"{args.job}: back on {queue}"])


def deleted(args: argparse.Namespace) -> Answer:
    try:
        failed_jobs.delete(queue_connection(), args.job, args.queue)
    except failed_jobs.UnknownJob as error:
        raise Refused(str(error)) from error
    return Answer({"job": args.job, "deleted": True}, [f"{args.job}: deleted"])
