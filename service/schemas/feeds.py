"""Following a game (service/routes/feed_routes.py): its events, each with what caused it, a page at a time."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .chat import ChatNoticeDoc
from .common import LEVELS, Whole


class EventMeta(Schema):
    """The command that caused the event and how it was chosen: every event a command caused
    has `command`, `seat` and `version` (the game's creation has none of these); a bot's or
    a deadline's moves add the level, budget, generator seed and an HMAC of the bot's view keyed
    with the game's seed (checkable once the seed is revealed at the end), so anyone can re-run
    the choice. More fields may come: ignore those you do not know."""

    command = fields.Dict(
        metadata={"description": "The command as it was decided: its `type` and fields, as a `Command` has them."}
    )
    seat = Whole(metadata={"description": "The seat the command was played for."})
    version = Whole(
        metadata={"description": "The game's version the command was decided against: its first event is the next."}
    )
    key_digest = fields.String(
        validate=validate.Regexp("^[0-9a-f]{16}$"),
        metadata={
            "description": "The first 16 hex digits of the SHA-256 of the Idempotency-Key (UTF-8) the command "
            "was sent with; absent without one. The sender recognises its own command by it (with `seat` and "
            "`version`), say after an answer that never came; the key itself is never shown."
        },
    )
    reason = fields.String(
        validate=validate.OneOf(["bot", "deadline"]),
        metadata={"description": "Who chose the command: a bot seat's bot, or a bot playing for a seat out of time."},
    )
    by = fields.String(
        validate=validate.OneOf(["admin"]),
        metadata={"description": "`admin`: played by an operator's end of the game (`bluemoon-admin games end`)."},
    )
    level = fields.String(
        validate=validate.OneOf(["pass", *LEVELS]),
        metadata={"description": "The bot level that chose it; `pass` where an overdue turn was just ended."},
    )
    budget = fields.Float(metadata={"description": "The bot's thinking budget, in seconds."})
    seed = fields.String(metadata={"description": "The bot's generator seed for this decision."})
    view = fields.String(
        metadata={"description": "HMAC-SHA-256 of the bot's view of the game, keyed with the game's seed (hex)."}
    )


class Event(Schema):
    seq = Whole(required=True, metadata={"description": "Sequence number: the game's version after this event."})
    type = fields.String(required=True)
    schema = Whole(required=True)
    at = fields.String(required=True)
    actor = fields.String(required=True)
    meta = fields.Nested(EventMeta, required=True)
    data = fields.Dict(
        required=True,
        metadata={"description": "The event's fields, redacted for you (hidden values are null). See docs/rules.md."},
    )


class EventPage(Schema):
    game = fields.String(required=True)
    version = Whole(required=True, metadata={"description": "The game's version now."})
    events = fields.List(fields.Nested(Event), required=True)
    next = Whole(
        required=True,
        metadata={"description": "Pass as `after` for the next page: the last event's version (`after` when none)."},
    )
    next_after = Whole(
        required=True,
        metadata={
            "description": "The same as `next`, by its older name, kept for clients that read it.",
            "deprecated": True,
        },
    )
    chat = fields.List(
        fields.Nested(ChatNoticeDoc),
        metadata={"description": "Asked for by `chat_after`: the chat's notices after it that you may have."},
    )
    chat_next = Whole(metadata={"description": "Asked for by `chat_after`: pass it as `chat_after` next time."})
