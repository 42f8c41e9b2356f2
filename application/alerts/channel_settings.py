"""A person's alert settings: which channels tell them it is their turn, and when not to.

Kept in the account's slot (events/keys.py): the channels (email with its gathering delay, Web
Push, a Discord or Slack channel's incoming webhook), quiet hours in the person's time zone, the
games they muted, their push subscriptions and the log of what was sent. Channel addresses pass
the same SSRF check as webhooks (application/outbound/webhooks.py), and must be https.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import secrets
import uuid
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from cryptography.hazmat.primitives.asymmetric import ec

from application.games.game_service import digest
from application.outbound.webhooks import Target, UnsafeUrl, allowed_hosts, check_url
from application.refusals import NotFound, ServiceError
from events import keys
from events.redis_store import RedisStore, text
from events.serialization import now

DEFAULTS: dict[str, Any] = {
    "email": {"enabled": True, "delay_seconds": 600},
    "push": {"enabled": True},
    "discord": None,
    "slack": None,
    "quiet_hours": None,
    "deadline_reminders": True,
    "language": None,  #: the alerts' language (words.LANGUAGES); None: not chosen, English
}
LOG_SIZE = 50  #: deliveries kept per account
MAX_SUBSCRIPTIONS = 10  #: push subscriptions per account (a person's browsers and phones)
CHANNELS = ("email", "push", "discord", "slack")


class BadPushKeys(ServiceError):
    status, code, title = 422, "bad_push_keys", "The push subscription's keys are not a browser's"


class TooManySubscriptions(ServiceError):
    status, code, title = 422, "too_many_subscriptions", "Too many push subscriptions"


def _unsafe(field: str, detail: str) -> UnsafeUrl:
    return UnsafeUrl(detail, field=field, errors={field: [detail]})


def _bad_key(field: str, detail: str) -> BadPushKeys:
    return BadPushKeys(detail, field=field, errors={field: [detail]})


def check_channel_url(field: str, url: str) -> Target:
    """An address alerts are posted to: https, and public (or a host the operator allows).
    Returns where it resolved, so that the sender connects to the address checked."""
    try:
        target = check_url(url)
    except UnsafeUrl as refused:
        raise _unsafe(field, refused.detail) from None
    if target.scheme != "https" and target.host not in allowed_hosts():
        raise _unsafe(field, "must be an https:// address")
    return target


def _key_bytes(field: str, value: str, size: int) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise _bad_key(field, f"must be {size} bytes in base64url")
    return raw


def check_push_keys(p256dh: str, auth: str) -> None:
    """A subscription's keys as a browser makes them (RFC 8291): a P-256 point, 16 auth bytes."""
    raw = _key_bytes("keys.p256dh", p256dh, 65)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        raise _bad_key("keys.p256dh", "is not a point on the P-256 curve") from None
    _key_bytes("keys.auth", auth, 16)


def quiet_until(settings: dict[str, Any], at: datetime) -> datetime | None:
    """When the quiet hours that hold ``at`` (an aware time) end, or None outside them."""
    quiet = settings.get("quiet_hours")
    if not quiet:
        return None
    zone = ZoneInfo(quiet["time_zone"])
    local = at.astimezone(zone)
    start, end = time.fromisoformat(quiet["start"]), time.fromisoformat(quiet["end"])
    clock = local.time().replace(tzinfo=None)
    inside = start <= clock < end if start < end else (clock >= start or clock < end)
    if not inside or start == end:
        return None
    ends = datetime.combine(local.date(), end, tzinfo=zone)
    if ends <= local:
        ends = datetime.combine(local.date() + timedelta(days=1), end, tzinfo=zone)
    return ends


class AlertSettings:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def get(self, account: str) -> dict[str, Any]:
        raw = self.client.hget(keys.alert_settings(account), "settings")
        return {**copy.deepcopy(DEFAULTS), **(json.loads(raw) if raw else {})}

    def put(self, account: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Change the settings named in ``changes`` (validated by the API's schema); the
        channels' addresses are checked here."""
        for channel in ("discord", "slack"):
            if changes.get(channel):
                check_channel_url(f"{channel}.url", changes[channel]["url"])
        settings = {**self.get(account), **changes}
        record = keys.alert_settings(account)
        self.store.durably(record, lambda c: c.hset(record, "settings", json.dumps(settings)))
        return settings

    # -- one-click unsubscribe (RFC 8058) ---------------------------------------------------

    def unsubscribe_token(self, account: str) -> str:
        """The token an email's unsubscribe link carries (made once, kept)."""
        record = keys.alert_settings(account)
        found = self.client.hget(record, "unsubscribe")
        if found:
            return text(found)
        token = secrets.token_urlsafe(24)
        self.store.durably(keys.unsubscribe(digest(token)), lambda c: c.set(keys.unsubscribe(digest(token)), account))
        if self.client.hsetnx(record, "unsubscribe", token):
            return token
        return text(self.client.hget(record, "unsubscribe"))  # another process made one first

    def unsubscribe(self, token: str) -> str:
        """Turn "your turn" mail off for the token's account, signed in or not."""
        found = self.client.get(keys.unsubscribe(digest(token)))
        if not found:
            raise NotFound("this unsubscribe link is unknown (the account may have been deleted)")
        account = text(found)
        settings = self.get(account)
        self.put(account, {"email": {**settings["email"], "enabled": False}})
        return account

    # -- muted games ------------------------------------------------------------------------

    def mute(self, account: str, game: str, muted: bool) -> None:
        key = keys.muted_games(account)
        self.store.durably(key, lambda c: c.sadd(key, game) if muted else c.srem(key, game))

    def muted(self, account: str) -> list[str]:
        return sorted(text(g) for g in self.client.smembers(keys.muted_games(account)))

    def is_muted(self, account: str, game: str) -> bool:
        return bool(self.client.sismember(keys.muted_games(account), game))

    # -- push subscriptions -----------------------------------------------------------------

    def subscribe(self, account: str, endpoint: str, p256dh: str, auth: str) -> dict[str, Any]:
        """Keep a browser's push subscription (the same endpoint again replaces its keys)."""
        check_channel_url("endpoint", endpoint)
        check_push_keys(p256dh, auth)
        key = keys.push_subscriptions(account)
        subscriptions = self.subscriptions(account)
        same = next((s for s in subscriptions if s["endpoint"] == endpoint), None)
        if same is None and len(subscriptions) >= MAX_SUBSCRIPTIONS:
            detail = f"an account keeps at most {MAX_SUBSCRIPTIONS} push subscriptions: drop one first"
            raise TooManySubscriptions(detail, field="endpoint", errors={"endpoint": [detail]})
        doc = {
            "id": same["id"] if same else uuid.uuid4().hex,
            "endpoint": endpoint,
            "keys": {"p256dh": p256dh, "auth": auth},
            "created": now(),
        }
        self.store.durably(key, lambda c: c.hset(key, doc["id"], json.dumps(doc)))
        return doc

    def subscriptions(self, account: str) -> list[dict[str, Any]]:
        found = [json.loads(v) for v in self.client.hvals(keys.push_subscriptions(account))]
        return sorted(found, key=lambda s: s["created"])

    def unsubscribe_push(self, account: str, subscription: str) -> bool:
        """Drop a subscription (the person's choice, or its push service said it is gone)."""
        return bool(self.client.hdel(keys.push_subscriptions(account), subscription))

    # -- what was sent ----------------------------------------------------------------------

    def record(self, account: str, entry: dict[str, Any]) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.lpush(keys.alert_log(account), json.dumps(entry))
            pipe.ltrim(keys.alert_log(account), 0, LOG_SIZE - 1)
            pipe.execute()

    def log(self, account: str) -> list[dict[str, Any]]:
        return [json.loads(v) for v in self.client.lrange(keys.alert_log(account), 0, LOG_SIZE - 1)]
