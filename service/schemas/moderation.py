"""Reports, moderators' actions, suspensions and the moderation log (application/moderation/,
service/routes/moderation_routes.py), for the API and openapi.yaml. Times are epoch
milliseconds, as the chat's and the suspensions' own."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from application.accounts.shown_text import hidden_characters
from application.chat.messages import ROOMS
from application.moderation.log import ACTIONS
from application.moderation.reports import LONGEST_REPORT_TEXT, OUTCOMES, REASONS
from application.people.suspensions import LONGEST_SUSPENSION_S

from ..operation import Parameters
from .common import Strict, Whole, next_page

GAME_ID = r"^[0-9a-f]{32}$"
MESSAGE_ID = r"^[0-9]{1,20}-[0-9]{1,20}$"  #: a chat message's id: its stream entry's
REPORT_ID = r"^r[0-9]{13}[0-9a-f]{8}$"
LONGEST_REASON = 500  #: characters of a moderator's reason or note


def plain(value: str) -> None:
    """Words people write for others: lines, but no control or invisible formatting characters
    (bidi overrides and isolates, C0 and C1 controls but the newline: application/accounts/shown_text.py)."""
    hidden = hidden_characters(value.replace("\n", ""))
    if hidden:
        raise ValidationError(f"must not hold control or invisible formatting characters (found {', '.join(hidden)})")


def words(most: int, required: bool, what: str) -> fields.String:
    return fields.String(
        **({"required": True} if required else {"load_default": ""}),
        validate=[validate.Length(min=1 if required else 0, max=most), plain],
        metadata={"description": f"{what}: at most {most} characters; line breaks, but no control or bidi characters."},
    )


def game_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(GAME_ID, error="must be a game id"), **kwargs)


def room_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(ROOMS), metadata={"description": "The chat room."}, **kwargs)


def message_field(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Regexp(MESSAGE_ID, error="must be a chat message's id, such as 1764158400000-0"),
        metadata={"description": "The message's id."},
        **kwargs,
    )


class ReportRequest(Strict):
    """A report of a person (``account``) or of a chat message (``game``, ``room``, ``message``)."""

    account = fields.String(
        validate=validate.Length(min=1, max=64), metadata={"description": "The person reported (an account id)."}
    )
    game = game_field(metadata={"description": "The game of the message reported."})
    room = room_field()
    message = message_field()
    reason = fields.String(
        required=True,
        validate=validate.OneOf(REASONS),
        metadata={"description": f"Why: one of {', '.join(REASONS)}."},
    )
    text = words(LONGEST_REPORT_TEXT, False, "What happened, in the reporter's words (optional)")

    @validates_schema
    def _one_subject(self, data: dict[str, Any], **kwargs: Any) -> None:
        message = [name for name in ("game", "room", "message") if name in data]
        if "account" in data and message:
            raise ValidationError("report a person (account) or a message (game, room, message), not both", "account")
        if "account" not in data and len(message) < 3:
            missing = [name for name in ("game", "room", "message") if name not in data] if message else ["account"]
            raise ValidationError("name a person (account) or a message (game, room and message)", missing[0])


class ReportSubject(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["account", "message"]))
    account = fields.String(metadata={"description": "With kind account: the person reported."})
    game = fields.String()
    room = fields.String()
    message = fields.String()
    author = fields.String(metadata={"description": "With kind message: who wrote it."})


class ReportedMessage(Schema):
    """A chat message as a report kept it (or as a moderator's hide leaves it)."""

    id = fields.String(required=True)
    game = fields.String(required=True)
    room = fields.String(required=True)
    author = fields.String(required=True)
    seat = Whole(required=True, allow_none=True)
    text = fields.String(required=True, allow_none=True, metadata={"description": "null once removed."})
    at = Whole(required=True, metadata={"description": "Sent, epoch ms."})
    removed = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "null, `deleted` (its author) or `hidden` (a moderator)."},
    )


class FiledReport(Schema):
    """A report as its reporter sees it."""

    id = fields.String(required=True)
    subject = fields.Nested(ReportSubject, required=True)
    reason = fields.String(required=True)
    text = fields.String(required=True)
    at = Whole(required=True, metadata={"description": "Filed, epoch ms."})
    status = fields.String(required=True, validate=validate.OneOf(["open", *OUTCOMES]))


class Report(FiledReport):
    """A report as moderators see it: who filed it, the messages around a reported one as they
    were when it was filed, and how it was closed."""

    reporter = fields.String(required=True)
    context = fields.List(fields.Nested(ReportedMessage), required=True)
    closed_by = fields.String(required=True, allow_none=True)
    closed_at = Whole(required=True, allow_none=True)
    note = fields.String(required=True, allow_none=True)


class ReportPage(Schema):
    reports = fields.List(fields.Nested(Report), required=True)
    next = next_page()


class ReportsQuery(Parameters):
    limit = fields.Integer(
        load_default=20, validate=validate.Range(1, 100, error="must be a whole number from 1 to 100")
    )
    after = fields.String(
        validate=validate.Regexp(REPORT_ID, error="must be a 'next' value from an earlier page"),
        metadata={"description": "The previous page's `next`."},
    )


class CloseReport(Strict):
    outcome = fields.String(
        required=True,
        validate=validate.OneOf(list(OUTCOMES)),
        metadata={"description": "`resolved` (acted on) or `dismissed` (nothing to do)."},
    )
    note = words(LONGEST_REASON, False, "Why, for the log")


class HideRequest(Strict):
    game = game_field(required=True)
    room = room_field(required=True)
    message = message_field(required=True)
    reason = words(LONGEST_REASON, True, "Why, for the log")


class SuspendRequest(Strict):
    seconds = Whole(
        required=True,
        validate=validate.Range(1, LONGEST_SUSPENSION_S, error=f"must be from 1 to {LONGEST_SUSPENSION_S}"),
        metadata={"description": f"For how long: 1 s to {LONGEST_SUSPENSION_S} s (a year)."},
    )
    reason = words(LONGEST_REASON, True, "Why: the suspended person sees it")


class LiftRequest(Strict):
    reason = words(LONGEST_REASON, False, "Why, for the log")


class Suspension(Schema):
    account = fields.String(required=True)
    until = Whole(required=True, metadata={"description": "Epoch ms."})
    reason = fields.String(required=True)
    by = fields.String(required=True, metadata={"description": "The moderator."})


class MySuspension(Schema):
    suspended = fields.Boolean(required=True)
    until = Whole(required=True, allow_none=True, metadata={"description": "Epoch ms; null when not suspended."})
    reason = fields.String(required=True, allow_none=True)


class LogEntry(Schema):
    id = fields.String(required=True)
    at = Whole(required=True, metadata={"description": "Epoch ms."})
    by = fields.String(required=True, metadata={"description": "The moderator's account, or `operator`."})
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    reason = fields.String(required=True)
    account = fields.String()
    game = fields.String()
    room = fields.String()
    message = fields.String()
    report = fields.String()
    until = Whole(metadata={"description": "With suspend: until when, epoch ms."})


class LogPage(Schema):
    entries = fields.List(fields.Nested(LogEntry), required=True)
    next = next_page()


class LogQuery(Parameters):
    limit = fields.Integer(
        load_default=50, validate=validate.Range(1, 100, error="must be a whole number from 1 to 100")
    )
    before = fields.String(
        validate=validate.Regexp(MESSAGE_ID, error="must be a 'next' value from an earlier page"),
        metadata={"description": "The previous page's `next`: older entries."},
    )
