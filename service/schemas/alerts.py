"""Turn alerts (application/alerts/channel_settings.py, service/routes/alert_routes.py): their settings,
push subscriptions and delivery logs, and a person's vacation, for the API and openapi.yaml."""

from __future__ import annotations

import functools
import re
from typing import Any
from zoneinfo import available_timezones

from marshmallow import Schema, ValidationError, fields, validate

from application.alerts.entries import KINDS
from application.words import LANGUAGES

from .common import Flag, Strict, Whole

CLOCK = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
MAX_DELAY_SECONDS = 24 * 3600


#: Files of a system's zone folder that name no zone of their own: "localtime" is whatever the
#: server's zone is, which a person's quiet hours must not depend on.
NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})


@functools.cache
def _zones() -> frozenset[str]:
    """The IANA zones this machine knows (read from disk: once)."""
    return frozenset(available_timezones()) - NOT_ZONES


def _time_zone(value: str) -> None:
    if value not in _zones():
        raise ValidationError("must be an IANA time zone, such as Europe/Berlin or America/Sao_Paulo")


def _https(description: str) -> fields.String:
    return fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), validate.URL(schemes={"http", "https"}, require_tld=False)],
        metadata={"description": description},
    )


def _language(required: bool) -> fields.String:
    return fields.String(
        required=required,
        allow_none=True,
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language alerts are worded in: one of "
            f"{', '.join(LANGUAGES)}; null until chosen (English). The service's page sets the language "
            "it is read in when it first shows the settings."
        },
    )


class EmailChannel(Strict):
    enabled = Flag(required=True)
    delay_seconds = Whole(
        required=True,
        validate=validate.Range(min=0, max=MAX_DELAY_SECONDS),
        metadata={
            "description": "One mail covers every game where it became your turn within this many seconds "
            "of the first (0 to 86400; 600 unless you choose)."
        },
    )


class PushChannel(Strict):
    enabled = Flag(required=True, metadata={"description": "Push to every subscribed browser of yours."})


class HookChannel(Strict):
    url = _https(
        "The channel's incoming-webhook URL (Discord: https://discord.com/api/webhooks/…, Slack: "
        "https://hooks.slack.com/services/…). https only, port 443; hosts that are or resolve to private, loopback, "
        "link-local or metadata addresses (also inside an IPv6 address) are refused."
    )


class QuietHours(Strict):
    start = fields.String(required=True, validate=validate.Regexp(CLOCK, error="must be HH:MM, 00:00 to 23:59"))
    end = fields.String(
        required=True,
        validate=validate.Regexp(CLOCK, error="must be HH:MM, 00:00 to 23:59"),
        metadata={
            "description": "Alerts due from `start` until `end` wait until `end`; `end` before `start` spans midnight."
        },
    )
    time_zone = fields.String(required=True, validate=_time_zone, metadata={"description": "An IANA time zone."})


class AlertChanges(Strict):
    """Any of the settings; those left out keep their value. ``null`` turns a channel off."""

    email = fields.Nested(EmailChannel)
    push = fields.Nested(PushChannel)
    discord = fields.Nested(HookChannel, allow_none=True)
    slack = fields.Nested(HookChannel, allow_none=True)
    quiet_hours = fields.Nested(QuietHours, allow_none=True)
    deadline_reminders = Flag(
        metadata={"description": "Also tell you once per turn when a turn with a deadline nears its end."}
    )
    language = _language(required=False)


class PushSubscriptionShown(Schema):
    id = fields.String(required=True)
    endpoint = fields.String(required=True)
    created = fields.String(required=True)


class AlertSettingsDoc(Schema):
    email = fields.Nested(EmailChannel, required=True)
    push = fields.Nested(PushChannel, required=True)
    discord = fields.Nested(HookChannel, required=True, allow_none=True)
    slack = fields.Nested(HookChannel, required=True, allow_none=True)
    quiet_hours = fields.Nested(QuietHours, required=True, allow_none=True)
    deadline_reminders = Flag(required=True)
    language = _language(required=True)
    muted = fields.List(fields.String(), required=True, metadata={"description": "Games you muted."})
    push_subscriptions = fields.List(fields.Nested(PushSubscriptionShown), required=True)
    vapid_public_key = fields.String(
        required=True,
        metadata={
            "description": "The service's VAPID key: pass it as `applicationServerKey` to `pushManager.subscribe`."
        },
    )


class PushKeys(Strict):
    p256dh = fields.String(
        required=True,
        validate=validate.Length(min=1, max=200),
        metadata={"description": "The browser's P-256 public key, base64url (65 bytes)."},
    )
    auth = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The authentication secret, base64url (16 bytes)."},
    )


class PushSubscriptionRequest(Strict):
    """``PushSubscription.toJSON()`` as a browser gives it."""

    endpoint = _https("The push service's URL for this browser (https).")
    keys = fields.Nested(PushKeys, required=True)
    expirationTime = fields.Float(allow_none=True, metadata={"description": "Ignored (browsers send null)."})


class AlertDelivery(Schema):
    at = fields.String(required=True)
    alert = fields.String(required=True, metadata={"description": "The alert's id, the same on every try."})
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    game = fields.String(required=True)
    channel = fields.String(required=True, validate=validate.OneOf(["email", "push", "discord", "slack", "all"]))
    attempt = Whole(required=True)
    outcome = fields.String(
        required=True, validate=validate.OneOf(["delivered", "retrying", "failed", "skipped", "deferred"])
    )
    detail = fields.String(required=True, allow_none=True, metadata={"description": "Why it failed or was skipped."})
    ms = fields.Float(required=True, allow_none=True)


class AlertLog(Schema):
    deliveries = fields.List(
        fields.Nested(AlertDelivery), required=True, metadata={"description": "The last 50, newest first."}
    )


def settings_doc(
    settings: dict[str, Any], muted: list[str], subscriptions: list[dict[str, Any]], key: str
) -> dict[str, Any]:
    shown = [{k: s[k] for k in ("id", "endpoint", "created")} for s in subscriptions]
    return {**settings, "muted": muted, "push_subscriptions": shown, "vapid_public_key": key}


class VacationRequest(Strict):
    until = fields.AwareDateTime(
        required=True,
        metadata={"description": "When you are back (ISO 8601 with a zone); each day begun counts as a day away."},
    )


class VacationStatus(Schema):
    away_until = fields.String(required=True, allow_none=True, metadata={"description": "Null when you are not away."})
    days_per_year = Whole(required=True)
    days_left = Whole(required=True, metadata={"description": "Vacation days left this calendar year (UTC)."})
