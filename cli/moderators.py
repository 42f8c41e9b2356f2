"""Give or take the moderator role, or list the moderators: the operator's command (the API
never makes a moderator). ``bluemoon-moderators grant ACCOUNT``, ``revoke ACCOUNT``, ``list``;
ACCOUNT is an account id or the email it signs in with. It reaches the store as the service
does (STORE_URL, REDIS_URL, or the embedded server under BLUEMOON_DATA); each grant and
revocation is in the moderation log, by ``operator``. The functions are bluemoon-admin's too."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from application.moderation.log import ModerationLog
from application.moderation.moderators import Moderators
from application.refusals import NotFound
from application.wiring import build, store_url


def moderators() -> Moderators:
    """The moderators of the store this process is configured for."""
    components = build(store_url())
    return Moderators(components.store, components.accounts, ModerationLog(components.store))


def grant(who: str, reason: str = "") -> str:
    """Make ``who`` (an account id or email) a moderator; says what happened."""
    roles = moderators()
    account = roles.account_named(who)
    made = roles.grant(account, reason=reason)
    return f"{account} is a moderator now" if made else f"{account} was a moderator already"


def revoke(who: str, reason: str = "") -> str:
    """Take the role from ``who``; says what happened."""
    roles = moderators()
    account = roles.account_named(who)
    taken = roles.revoke(account, reason=reason)
    return f"{account} is no longer a moderator" if taken else f"{account} was no moderator"


def listed() -> str:
    """One line a moderator: account, since when (UTC), by whom."""
    lines = [
        f"{m['account']}  since {datetime.fromtimestamp(m['since'] / 1000, UTC):%Y-%m-%d %H:%M} UTC  by {m['by']}"
        for m in moderators().listed()
    ]
    return "\n".join(lines) or "no moderators"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bluemoon-moderators", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("grant", "give the role"), ("revoke", "take the role back")):
        command = commands.add_parser(name, help=what)
        command.add_argument("account", help="an account id, or the email it signs in with")
        command.add_argument("--reason", default="", help="why, for the moderation log")
    commands.add_parser("list", help="list the moderators")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print(listed())
        else:
            print((grant if args.command == "grant" else revoke)(args.account, args.reason))
    except NotFound as error:
        print(error.detail, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
