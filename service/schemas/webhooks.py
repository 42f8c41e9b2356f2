"""Webhooks (service/routes/webhook_routes.py): a seat's subscriptions, their delivery log, and
the message a receiver gets."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from application.outbound.webhooks import CHAT_KIND

from .common import Flag, Strict, Whole

WEBHOOK_KINDS = ["turn.started", "turn.deadline_near", "game.ended", "event"]


class WebhookRequest(Strict):
    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), validate.URL(schemes={"http", "https"}, require_tld=False)],
        metadata={
            "description": "Where to POST. Hosts that are or resolve to loopback, private, link-local, "
            "multicast or metadata addresses (also inside an IPv6 address) are refused, and so is any port "
            "but 443 (https) or 80 (http); redirects are not followed."
        },
    )
    events = fields.List(
        fields.String(validate=validate.OneOf(WEBHOOK_KINDS)),
        required=True,
        validate=validate.Length(min=1, max=len(WEBHOOK_KINDS)),
        metadata={
            "description": "Kinds: `turn.started` (your turn began), `turn.deadline_near` (the last "
            "quarter of your turn's deadline, at most 5 minutes), `game.ended`, `event` "
            "(every event, redacted for your seat); chat messages: `chat`."
        },
    )
    chat = Flag(
        load_default=False,
        metadata={
            "description": f"`true`: also each chat message in either room of the game (`{CHAT_KIND}`), unless your "
            "seat's account mutes or blocks its author."
        },
    )


class Webhook(Schema):
    id = fields.String(required=True)
    seat = Whole(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(validate=validate.OneOf(WEBHOOK_KINDS)), required=True)
    chat = Flag(metadata={"description": f"Whether chat messages are delivered too (`{CHAT_KIND}`)."})
    created = fields.String(required=True)
    enabled = Flag(required=True, metadata={"description": "False once deliveries kept failing or timing out."})
    failures = Whole(required=True, metadata={"description": "Deliveries in a row that failed every try."})
    timeouts = Whole(
        required=True,
        metadata={"description": "Attempts in a row whose receiver did not connect or answer in time."},
    )
    deferred = Whole(
        required=True,
        metadata={
            "description": "Deliveries put off to the next minute because the game or the seat's account had "
            "used its delivery budget (120 and 300 a minute by default), in total."
        },
    )
    disabled_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Why it is disabled: `timeouts` (3 attempts in a row timed out: 2 s to connect, "
            "5 s to answer, by default), `failures` (5 deliveries in a row failed every try); null while enabled."
        },
    )


class WebhookCreated(Webhook):
    secret = fields.String(
        required=True,
        metadata={
            "description": "The signing secret (`whsec_…`), shown only now: "
            "verify each delivery with a Standard Webhooks library."
        },
    )


class WebhookList(Schema):
    webhooks = fields.List(fields.Nested(Webhook), required=True)


class DeliveryAttempt(Schema):
    at = fields.String(required=True)
    delivery = fields.String(
        required=True, metadata={"description": "The message's `webhook-id`, the same on every try."}
    )
    kind = fields.String(required=True)
    attempt = Whole(required=True)
    status = Whole(
        required=True, allow_none=True, metadata={"description": "The receiver's HTTP status, if it answered."}
    )
    ms = fields.Float(required=True, metadata={"description": "How long the attempt took."})
    outcome = fields.String(required=True, validate=validate.OneOf(["delivered", "retrying", "failed"]))
    error = fields.String(required=True, allow_none=True)


class DeliveryLog(Schema):
    deliveries = fields.List(
        fields.Nested(DeliveryAttempt), required=True, metadata={"description": "The last 50 attempts, newest first."}
    )


class WebhookMessage(Schema):
    type = fields.String(required=True, validate=validate.OneOf([*WEBHOOK_KINDS, CHAT_KIND, "webhook.test"]))
    game = fields.String(required=True)
    version = Whole(required=True, metadata={"description": "The game's version the message is about."})
    seat = Whole(required=True, metadata={"description": "The webhook's seat; `data` is redacted for it."})
    data = fields.Dict(
        required=True,
        metadata={
            "description": "`event`: the Event, redacted for the seat; `turn.started`: "
            "turn, seat, deadline_seconds; `turn.deadline_near`: turn, seat, "
            "seconds_left; `game.ended`: the GameEnded event; `chat.message`: the ChatMessage; "
            "`webhook.test` (a test you asked for): webhook."
        },
    )
