"""People's reports of a chat message or of a person, with a reason, for the moderators.

A message's report keeps a copy of the messages around it as they were when it was filed
(ChatMessages.around), so that a later delete or hide takes no evidence away. Nobody reports a
message they could not read: the seats' room is its seats', and a stranger's report of one is
answered as if it did not exist (404), so that a report tells nothing about a room it cannot see.

Limits (documented numbers): QUOTA_REPORTS_PER_ACCOUNT reports a day per reporter (429 with
Retry-After past it); one open report per reporter and subject (409 ``already_reported``); a
report's text at most LONGEST_REPORT_TEXT characters. A closed report is kept CLOSED_KEPT_S,
then lapses (the log keeps the action that closed it).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from application import counters
from application.accounts.account_service import Accounts
from application.chat.messages import ChatMessages
from application.refusals import NotFound, ServiceError
from application.settings import QUOTA_REPORTS_PER_ACCOUNT
from events import keys
from events.redis_store import RedisStore, text

from .log import ModerationLog

REASONS = ("abuse", "spam", "cheating", "other")  #: why a person reports (the documented list)
LONGEST_REPORT_TEXT = 1000  #: characters in a report's own words
CONTEXT_EACH_SIDE = 5  #: messages kept before and after a reported one
CLOSED_KEPT_S = 90 * 24 * 3600  #: a resolved or dismissed report is kept 90 days
QUOTA_WINDOW_S = 24 * 3600  #: QUOTA_REPORTS_PER_ACCOUNT counts a day
OUTCOMES = {"resolved": "resolve", "dismissed": "dismiss"}  #: how a report closes -> the log's action

#: Keep the report unless its reporter has an open one of the subject: then its id.
FILE = """
local open = redis.call('HGET', KEYS[1], ARGV[1])
if open then return open end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('ZADD', KEYS[3], 0, ARGV[2])
return false
"""
#: Close an open report (1), or say it was not open (0).
CLOSE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 0 end
redis.call('HDEL', KEYS[3], redis.call('HGET', KEYS[1], 'reported'))
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'closed_by', ARGV[3], 'closed_at', ARGV[4], 'note', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
"""


class AlreadyReported(ServiceError):
    status, code, title = 409, "already_reported", "You have reported this already"


class TooManyReports(ServiceError):
    status, code, title = 429, "too_many_reports", "Too many reports lately"


class ReportOfSelf(ServiceError):
    status, code, title = 422, "report_of_self", "You cannot report yourself"


class ReportClosed(ServiceError):
    status, code, title = 409, "report_closed", "The report is closed"


def may_read(room: str, seat: int | None) -> bool:
    """Whether someone at ``seat`` (None: not seated) reads ``room``: the spectators' room is
    everyone's, the seats' room its seats' alone."""
    return room == "spectators" or seat is not None


class Reports:
    def __init__(self, store: RedisStore, accounts: Accounts, log: ModerationLog) -> None:
        self.store = store
        self.client = store.client
        self.accounts = accounts
        self.chat = ChatMessages(store)
        self.log = log
        self._file = self.client.register_script(FILE)
        self._close = self.client.register_script(CLOSE)

    def file(self, reporter: str, subject: dict[str, Any], reason: str, words: str) -> dict[str, Any]:
        """Keep ``reporter``'s report of ``subject`` (``{"account": id}`` or ``{"game", "room",
        "message"}``): 404 for a subject that does not exist or that the reporter cannot read."""
        subject, context = self._found(reporter, subject)
        reported = f"{reporter} {_subject_key(subject)}"
        if self.client.hexists(keys.REPORTED, reported):
            raise AlreadyReported("you have an open report of this already: a moderator will look at it")
        self._count(reporter)
        at = int(time.time() * 1000)
        report_id = f"r{at:013d}{secrets.token_hex(4)}"
        fields = {
            "id": report_id,
            "reporter": reporter,
            "subject": json.dumps(subject),
            "reason": reason,
            "text": words,
            "at": str(at),
            "context": json.dumps(context),
            "status": "open",
            "reported": reported,
        }
        flat = [part for pair in fields.items() for part in pair]
        names = [keys.REPORTED, keys.report(report_id), keys.OPEN_REPORTS]
        open_one = self.store.durably(
            names[1], lambda c: self._file(keys=names, args=[reported, report_id, *flat], client=c)
        )
        if open_one:  # the same report, filed at once twice: the first stands
            raise AlreadyReported("you have an open report of this already: a moderator will look at it")
        return _shown(fields)

    def _found(self, reporter: str, subject: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The subject as a report keeps it (a message with its author) and its context."""
        if "account" in subject:
            if subject["account"] == reporter:
                raise ReportOfSelf("you cannot report yourself", field="account")
            if not self.accounts.exists(subject["account"]):
                raise NotFound(f"no account {subject['account']}")
            return {"kind": "account", "account": subject["account"]}, []
        game, room, message = subject["game"], subject["room"], subject["message"]
        unseen = NotFound(f"no message {message} in the {room} room of game {game} that you can read")
        if not may_read(room, self.accounts.seat_in(reporter, game)):
            raise unseen  # the same answer as for no such message: a report tells nothing of a closed room
        found = self.chat.one(game, room, message)
        if found is None:
            raise unseen
        shown = {"kind": "message", "game": game, "room": room, "message": message, "author": found["author"]}
        return shown, self.chat.around(game, room, message, CONTEXT_EACH_SIDE)

    def _count(self, reporter: str) -> None:
        most = QUOTA_REPORTS_PER_ACCOUNT.read()
        (counted,) = counters.count(self.client, [(f"quota:reports:{reporter}", QUOTA_WINDOW_S)])
        if counted.total > most:
            raise TooManyReports(
                f"at most {most} reports a day per account (QUOTA_REPORTS_PER_ACCOUNT); wait Retry-After seconds",
                retry_after=max(1, -(-counted.left_ms // 1000)),
                limit="QUOTA_REPORTS_PER_ACCOUNT",
            )

    def get(self, report_id: str) -> dict[str, Any]:
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.report(report_id)).items()}
        if not found:
            raise NotFound(f"no report {report_id}")
        return _shown(found)

    def open_reports(self, limit: int, after: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """Up to ``limit`` open reports, oldest first, after the report ``after``; and the id to
        read on from (None on the last page)."""
        ids = [
            text(i)
            for i in self.client.zrangebylex(keys.OPEN_REPORTS, "(" + after if after else "-", "+", 0, limit + 1)
        ]
        with self.client.pipeline(transaction=False) as pipe:
            for report_id in ids[:limit]:
                pipe.hgetall(keys.report(report_id))
            found = [{text(k): text(v) for k, v in doc.items()} for doc in pipe.execute()]
        shown = [_shown(doc) for doc in found if doc]
        return shown, ids[limit - 1] if len(ids) > limit else None

    def close(self, report_id: str, outcome: str, by: str, note: str) -> dict[str, Any]:
        """Resolve or dismiss an open report (409 ``report_closed`` for one closed already),
        recorded in the moderation log."""
        self.get(report_id)  # 404 for no such report
        names = [keys.report(report_id), keys.OPEN_REPORTS, keys.REPORTED]
        at = int(time.time() * 1000)
        args = [report_id, outcome, by, at, note, CLOSED_KEPT_S * 1000]
        closed = self.store.durably(names[0], lambda c: self._close(keys=names, args=args, client=c))
        if not closed:
            raise ReportClosed(f"report {report_id} was closed already")
        self.log.record(by, OUTCOMES[outcome], note, report=report_id)
        return self.get(report_id)


def _subject_key(subject: dict[str, Any]) -> str:
    if subject["kind"] == "account":
        return f"account:{subject['account']}"
    return f"message:{subject['game']}:{subject['room']}:{subject['message']}"


def _shown(fields: dict[str, str]) -> dict[str, Any]:
    """A report as moderators see it."""
    return {
        "id": fields["id"],
        "reporter": fields["reporter"],
        "subject": json.loads(fields["subject"]),
        "reason": fields["reason"],
        "text": fields["text"],
        "at": int(fields["at"]),
        "context": json.loads(fields["context"]),
        "status": fields["status"],
        "closed_by": fields.get("closed_by") or None,
        "closed_at": int(fields["closed_at"]) if fields.get("closed_at") else None,
        "note": fields.get("note") or None,
    }
