"""Game chat (service/routes/chat_routes.py): a message as sent and as read, a room's page, and
a notice of the live feeds (application/chat/)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from application.accounts.shown_text import hidden_characters
from application.chat.messages import LONGEST_MESSAGE, ROOMS

from .common import Flag, Strict, Whole

MESSAGE_ID = r"^0-[0-9]{1,15}$"  #: a message's id, ``0-<n>``: its number among the game's chat notices


def plain_text(value: str) -> None:
    """Words and spaces, newlines allowed: no controls, no characters that reorder or hide text."""
    if not value.strip():
        raise ValidationError("write something: blank text is refused")
    hidden = hidden_characters(value.replace("\n", ""))
    if hidden:
        raise ValidationError(
            f"must not hold control or invisible formatting characters (found {', '.join(hidden[:5])})"
        )


class ChatRequest(Strict):
    text = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=LONGEST_MESSAGE), plain_text],
        metadata={
            "description": f"1-{LONGEST_MESSAGE} characters of plain text (never markup), newlines allowed; "
            "control characters and invisible formatting (bidi overrides and isolates U+202A-202E and "
            "U+2066-2069, zero-width spaces, ...) are refused."
        },
    )


class ChatMessage(Schema):
    id = fields.String(required=True, metadata={"description": "The message's id (`0-<n>`), also a page's cursor."})
    room = fields.String(required=True, validate=validate.OneOf(ROOMS))
    author = fields.String(
        required=True, metadata={"description": "The author's account id, or `seat:<n>` for a seat held by no account."}
    )
    seat = Whole(required=True, allow_none=True, metadata={"description": "The author's seat; null for a spectator."})
    name = fields.String(
        required=True, metadata={"description": "The seat's name when it was written, or the spectator's."}
    )
    text = fields.String(
        required=True, allow_none=True, metadata={"description": "The words, as plain text; null once removed."}
    )
    at = Whole(required=True, metadata={"description": "When it was written, in ms since the Unix epoch."})
    removed = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["deleted", "hidden"]),
        metadata={"description": "`deleted` by its author, `hidden` by a moderator, else null."},
    )


class ChatPage(Schema):
    room = fields.String(required=True, validate=validate.OneOf(ROOMS))
    messages = fields.List(
        fields.Nested(ChatMessage),
        required=True,
        metadata={"description": "Oldest first; without the words of anyone you mute or block."},
    )
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `after` for the messages after this page (null: the room is empty)."},
    )
    more = Flag(required=True, metadata={"description": "Whether the page was full: more may follow at once."})


class ChatNoticeDoc(Schema):
    """What a game's stream sends as `event: chat` and its long poll lists under `chat`."""

    seq = Whole(required=True, metadata={"description": "The notice's number: pass it as `chat_after`."})
    type = fields.String(
        required=True,
        validate=validate.OneOf(["chat", "chat.removed"]),
        metadata={"description": "`chat`: a message posted; `chat.removed`: one deleted or hidden (no words)."},
    )
    message = fields.Dict(
        required=True,
        metadata={"description": "`chat`: the ChatMessage; `chat.removed`: its `id`, `room` and `removed`."},
    )


def notice_document(notice: Any) -> dict[str, Any]:
    """A notice (application/chat/notices.py) as the stream and the long poll send it."""
    kind = "chat" if notice.kind == "message" else "chat.removed"
    return {"seq": notice.seq, "type": kind, "message": notice.message}
