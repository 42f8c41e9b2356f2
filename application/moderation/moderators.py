"""The moderator role: an operator gives it to an account and takes it back (``bluemoon-moderators``,
cli/moderators.py), never a request to the API, so that no credential of the service's can make
a moderator. Each grant and revocation is in the moderation log."""

from __future__ import annotations

import json
import time
from typing import Any

from application.accounts.account_service import Accounts, normalise
from application.games.game_service import digest
from application.refusals import Forbidden, NotFound
from events import keys
from events.redis_store import RedisStore, text

from .log import ModerationLog

OPERATOR = "operator"  #: who the log names for an operator's command


class NotAModerator(Forbidden):
    status, code, title = 403, "not_a_moderator", "Only a moderator may do this"


class Moderators:
    def __init__(self, store: RedisStore, accounts: Accounts, log: ModerationLog) -> None:
        self.store = store
        self.client = store.client
        self.accounts = accounts
        self.log = log

    def grant(self, account: str, by: str = OPERATOR, reason: str = "") -> bool:
        """Make ``account`` a moderator; False when it was one already. 404 for no such account."""
        if not self.accounts.exists(account):
            raise NotFound(f"no account {account}")
        key, record = keys.MODERATORS, json.dumps({"since": int(time.time() * 1000), "by": by})
        made = bool(self.store.durably(key, lambda c: c.hsetnx(key, account, record)))
        if made:
            self.log.record(by, "grant", reason, account=account)
        return made

    def revoke(self, account: str, by: str = OPERATOR, reason: str = "") -> bool:
        """Take the role from ``account``; False when it had none."""
        key = keys.MODERATORS
        taken = bool(self.store.durably(key, lambda c: c.hdel(key, account)))
        if taken:
            self.log.record(by, "revoke", reason, account=account)
        return taken

    def is_moderator(self, account: str | None) -> bool:
        return account is not None and bool(self.client.hexists(keys.MODERATORS, account))

    def listed(self) -> list[dict[str, Any]]:
        """Every moderator: account, since (epoch ms), by whom; the longest-serving first."""
        found = [{"account": text(k), **json.loads(v)} for k, v in self.client.hgetall(keys.MODERATORS).items()]
        return sorted(found, key=lambda m: m["since"])

    def account_named(self, who: str) -> str:
        """The account ``who`` names: its id, or the email it signs in with (an operator knows
        people by their addresses). 404 for neither."""
        if "@" in who:
            found = self.client.get(keys.email_owner(digest(normalise(who))))
            if found is None:
                raise NotFound(f"no account signs in with {who}")
            return text(found)
        if not self.accounts.exists(who):
            raise NotFound(f"no account {who}")
        return who

    def refuse_unless_moderator(self, account: str) -> None:
        if not self.is_moderator(account):
            raise NotAModerator("this is for moderators: an operator gives the role (bluemoon-moderators)")
