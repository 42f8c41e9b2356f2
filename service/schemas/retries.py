"""The schemas of retries: the one Idempotency-Key header that commands and creates share, and what
a webhook's test delivery or redelivery answers."""

from __future__ import annotations

from marshmallow import Schema, fields
from marshmallow.validate import Length, OneOf

from application.outbound.webhooks import TEST_KIND
from application.retries import ANONYMOUS_KEY_LENGTH, RECORD_SECONDS

from ..operation import IDEMPOTENCY_KEY, Parameters
from .webhooks import WEBHOOK_KINDS

KEY_TEXT = (
    "Makes the request safe to retry: sent again with the same key it changes nothing more and answers as the "
    "first did (a command: its original outcome, for the game's life; a create: the first answer, status and "
    f"body, for {RECORD_SECONDS // 3600} hours). The same key with another body is refused (422 "
    "`idempotency_key_reused`). A key is its sender's. A command's is the sending seat's: another seat's same key "
    "names its own command, never yours, and a bot's and a deadline's moves use keys of their own, which no seat "
    "can take. A create's is the credential's: your account (session or personal access token alike), else the "
    "seat token sent, else (a seat joined by invite) the invite; another credential's same key is its own and "
    "learns nothing of yours. Without any credential (a game created anonymously) the key itself is the proof: "
    f"send at least {ANONYMOUS_KEY_LENGTH} random characters (a UUID)."
)


def idempotency_key() -> fields.String:
    """The Idempotency-Key header, as every operation that takes one declares it (one component)."""
    return fields.String(
        data_key=IDEMPOTENCY_KEY,
        validate=Length(min=1, max=200, error="must be 1-200 characters"),
        metadata={"description": KEY_TEXT},
    )


class RetryKey(Parameters):
    idempotency_key = idempotency_key()


class DeliverySent(Schema):
    webhook = fields.String(required=True)
    delivery = fields.String(
        required=True,
        metadata={"description": "The message's `webhook-id`: find its attempts in the delivery log under it."},
    )
    kind = fields.String(required=True, validate=OneOf([*WEBHOOK_KINDS, TEST_KIND]))
