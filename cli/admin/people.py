"""``bluemoon-admin people``: suspend and restore an account (application/people/suspensions.py),
and export everything about a person (application/admin/person_export.py)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from application.admin import person_export
from application.refusals import NotFound, ServiceError
from cli.admin.common import Answer, Refused, command, components


def add(groups: Any) -> None:
    people = groups.add_parser("people", help="suspend, restore, export a person").add_subparsers(required=True)
    suspend = command(people, "suspend", suspended, "keep an account from chatting, creating, joining, challenging")
    suspend.add_argument("account")
    suspend.add_argument("--days", type=float, required=True, help="how long (at most 365 days)")
    suspend.add_argument("--reason", required=True, help="why: kept with the suspension")
    suspend.add_argument("--by", default="operator", help="who suspends (default: operator)")
    command(people, "restore", restored, "lift an account's suspension").add_argument("account")
    command(people, "export", exported, "everything about a person, as JSON").add_argument("account")


def _existing(account: str) -> Any:
    parts = components()
    if not parts.accounts.exists(account):
        raise Refused(f"no account {account}")
    return parts


def suspended(args: argparse.Namespace) -> Answer:
    parts = _existing(args.account)
    try:
        found = parts.suspensions.suspend(args.account, round(args.days * 86_400), args.reason, args.by)
    except ServiceError as error:
        raise Refused(f"--days: {error}") from error
    return Answer({"account": args.account, **found}, [f"{args.account}: suspended until {found['until']} (epoch ms)"])


def restored(args: argparse.Namespace) -> Answer:
    parts = _existing(args.account)
    was = parts.suspensions.suspension(args.account)
    parts.suspensions.lift(args.account)
    said = f"{args.account}: suspension lifted" if was else f"{args.account}: was not suspended"
    return Answer({"account": args.account, "lifted": was is not None}, [said])


def exported(args: argparse.Namespace) -> Answer:
    try:
        found = person_export.export(components(), args.account)
    except NotFound as error:
        raise Refused(f"no account {args.account}") from error
    return Answer(found, [json.dumps(found, indent=2, default=str)])  # an export is JSON either way
