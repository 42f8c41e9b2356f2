"""What a moderator does to a message or an account, each recorded in the moderation log: hide a
message for everyone (its words are kept, never shown again), suspend an account for a time, or
let it back. The moderator role is checked by the caller (Moderators.refuse_unless_moderator)."""

from __future__ import annotations

from typing import Any

from application.accounts.account_service import Accounts
from application.chat.messages import ChatMessages
from application.people.suspensions import Suspensions
from application.refusals import NotFound
from events.redis_store import RedisStore

from .log import ModerationLog


class ModeratorActions:
    def __init__(self, store: RedisStore, accounts: Accounts, suspensions: Suspensions, log: ModerationLog) -> None:
        self.chat = ChatMessages(store)
        self.accounts = accounts
        self.suspensions = suspensions
        self.log = log

    def hide(self, by: str, game: str, room: str, message: str, reason: str) -> dict[str, Any]:
        """Hide ``message`` for everyone; one already removed (deleted or hidden) stays as it
        is, and nothing is logged. Returns the message as everyone now sees it."""
        if self.chat.one(game, room, message) is None:
            raise NotFound(f"no message {message} in the {room} room of game {game}")
        if self.chat.remove(game, message, "hidden", by):
            self.log.record(by, "hide", reason, game=game, room=room, message=message)
        shown = self.chat.one(game, room, message)
        assert shown is not None
        return shown

    def suspend(self, by: str, account: str, seconds: int, reason: str) -> dict[str, Any]:
        """Suspend ``account`` for ``seconds`` (a new suspension replaces the one it has)."""
        if not self.accounts.exists(account):
            raise NotFound(f"no account {account}")
        suspension = self.suspensions.suspend(account, seconds, reason, by)
        self.log.record(by, "suspend", reason, account=account, until=suspension["until"])
        return {"account": account, **suspension}

    def lift(self, by: str, account: str, reason: str) -> None:
        """Let a suspended account back at once (404 for one not suspended)."""
        if self.suspensions.suspension(account) is None:
            raise NotFound(f"account {account} is not suspended")
        self.suspensions.lift(account)
        self.log.record(by, "lift", reason, account=account)
