"""Webhooks: a seat asks to be told (its turn began, its deadline is near, the game ended,
every event) by a signed POST to its own server, in the Standard Webhooks form.

Deliveries are outbox entries written by the same append as the events that cause them
(events/store.py ``OutboxWrite``), so none is lost; workers/webhook_delivery.py delivers them with
retries. A webhook belongs to one seat and sees only what that seat may see.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from application.background.work import WORK
from application.games import clocks
from application.games.codec import event_to_json
from application.outbound.addresses import WEB_PORTS, why_not_public, why_not_web_port
from application.refusals import NotFound, ServiceError
from application.settings import WEBHOOK_ALLOW_HOSTS
from domain import Game, redact
from domain.events import GameEnded, TurnStarted
from events import keys
from events.outbox import Outbox, now_ms
from events.redis_store import RedisStore
from events.serialization import StoredEvent, now
from events.store import OutboxWrite

KINDS = ("turn.started", "turn.deadline_near", "game.ended", "event")
CHAT_KIND = "chat.message"  #: a chat message's delivery, to a webhook made with ``chat`` (not one of its kinds)
TEST_KIND = "webhook.test"  #: a test delivery's kind, asked for by the seat (no webhook subscribes to it)
MAX_PER_SEAT = 10
PREFIX = WORK["webhook"].prefix  #: a delivery's outbox entry: ``wh:<game>:<message>``
DEADLINE_WARNING = 0.25  #: "near" is the last quarter of the turn's deadline (at most 5 minutes)
LOG_SIZE = 50  #: delivery attempts kept per webhook


class UnsafeUrl(ServiceError):
    status, code, title = 422, "unsafe_webhook_url", "The webhook URL is not allowed"


class TooManyWebhooks(ServiceError):
    status, code, title = 422, "too_many_webhooks", "The seat has as many webhooks as it may"


class NotRedelivered(ServiceError):
    status, code, title = 409, "not_redelivered", "Chat messages are not delivered again"


class WebhookDisabled(ServiceError):
    status, code, title = 409, "webhook_disabled", "The webhook is disabled"


# KEYS: the game's webhooks. ARGV: webhook id. Enabled again, its counts of failures and timeouts in
# a row back at 0: one atomic step, as the deliveries' own counting is (workers/webhook_delivery.py).
ENABLE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local hook = cjson.decode(raw)
hook['enabled'] = true
hook['failures'] = 0
hook['timeouts'] = 0
hook['disabled_reason'] = cjson.null
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
return 1
"""


def allowed_hosts() -> set[str]:
    """Hosts exempt from the address check (WEBHOOK_ALLOW_HOSTS, comma-separated): for tests
    and for receivers on a private network the operator trusts."""
    return {host.lower() for host in WEBHOOK_ALLOW_HOSTS.read()}


@dataclass(frozen=True)
class Target:
    """A vetted URL and the address to connect to (the one that was checked)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def check_url(url: str) -> Target:
    """Refuse a URL whose host is, or resolves to, a loopback, private, link-local, multicast,
    reserved or cloud-metadata address (an IPv4 one inside an IPv6 one included), or that names
    a port other than its scheme's (application/outbound/addresses.py), unless the host is in
    WEBHOOK_ALLOW_HOSTS. Called at creation and again before every delivery (a host may be
    re-pointed: DNS rebinding); the sender connects to ``Target.address``, the address checked."""
    try:
        parts = urlsplit(url)
        port = parts.port or WEB_PORTS.get(parts.scheme, 0)
    except ValueError as error:  # a port out of range or not a number, a bracket left open
        raise UnsafeUrl(f"not a URL: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeUrl("a webhook URL is http:// or https:// with a host")
    host = parts.hostname.lower()
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise UnsafeUrl(f"{host} does not resolve: {error}") from None
    addresses = [str(info[4][0]) for info in infos]
    if host not in allowed_hosts():
        for address in addresses:
            refused = why_not_public(address)
            if refused:
                raise UnsafeUrl(f"{host} is or resolves to {refused}")
        refused = why_not_web_port(parts.scheme, port)
        if refused:
            raise UnsafeUrl(refused)
    return Target(parts.scheme, host, port, path, addresses[0])


def new_id() -> str:
    return "wh_" + secrets.token_hex(8)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _public(hook: dict[str, Any]) -> dict[str, Any]:
    """The webhook as its seat sees it: no secret; counters a webhook made before them lacks at 0."""
    return {"timeouts": 0, "deferred": 0, "chat": False, **{k: v for k, v in hook.items() if k != "secret"}}


class Webhooks:
    """The webhooks of games, kept in each game's ``webhooks`` hash (events/keys.py)."""

    def __init__(self, store: RedisStore) -> None:
        self.client = store.client
        self.store = store  #: its writes wait for replicas, as appends do

    def create(
        self,
        game: str,
        seat: int,
        url: str,
        kinds: list[str],
        hook_id: str | None = None,
        secret: str | None = None,
        chat: bool = False,
    ) -> dict[str, Any]:
        """A new webhook of ``seat``, with its secret. ``hook_id`` and ``secret``: chosen beforehand
        (a retried request's, application/retries.py): the webhook is made once, and made again
        answers as it is."""
        if hook_id is not None and (made := self.client.hget(keys.webhooks(game), hook_id)) is not None:
            return dict(json.loads(made))
        try:
            check_url(url)
        except UnsafeUrl as refused:
            raise UnsafeUrl(refused.detail, field="url", errors={"url": [refused.detail]}) from None
        if len(self.of_seat(game, seat)) >= MAX_PER_SEAT:
            raise TooManyWebhooks(f"a seat may have at most {MAX_PER_SEAT} webhooks; delete one first")
        hook = {
            "id": hook_id or new_id(),
            "seat": seat,
            "url": url,
            "events": sorted(set(kinds)),
            "chat": chat,
            "created": now(),
            "enabled": True,
            "failures": 0,
            "timeouts": 0,
            "deferred": 0,
            "disabled_reason": None,
            "secret": secret or new_secret(),
        }
        key = keys.webhooks(game)
        self.store.durably(key, lambda c: c.hsetnx(key, hook["id"], json.dumps(hook)))
        return dict(json.loads(self.client.hget(key, hook["id"])))  # the first's, where two made it at once

    def of_seat(self, game: str, seat: int) -> list[dict[str, Any]]:
        hooks = [json.loads(v) for v in self.client.hvals(keys.webhooks(game))]
        return sorted((_public(h) for h in hooks if h["seat"] == seat), key=lambda h: h["created"])

    def get(self, game: str, seat: int, hook_id: str) -> dict[str, Any]:
        raw = self.client.hget(keys.webhooks(game), hook_id)
        hook = json.loads(raw) if raw else None
        if hook is None or hook["seat"] != seat:
            raise NotFound(f"no webhook {hook_id} for this seat")
        return hook

    def shown(self, game: str, seat: int, hook_id: str) -> dict[str, Any]:
        """One of the seat's webhooks, without its secret."""
        return _public(self.get(game, seat, hook_id))

    def delete(self, game: str, seat: int, hook_id: str) -> None:
        self.get(game, seat, hook_id)
        self.store.durably(keys.webhooks(game), lambda c: c.hdel(keys.webhooks(game), hook_id))
        self.client.delete(keys.webhook_log(game, hook_id))

    def log(self, game: str, seat: int, hook_id: str) -> list[dict[str, Any]]:
        self.get(game, seat, hook_id)
        return [json.loads(v) for v in self.client.lrange(keys.webhook_log(game, hook_id), 0, LOG_SIZE - 1)]

    # -- asked for by the seat: a test, a redelivery, enabling again ----------------------------

    def enable(self, game: str, seat: int, hook_id: str) -> dict[str, Any]:
        """Enable the webhook again (disabled after failures or timeouts), its counts in a row reset."""
        self.get(game, seat, hook_id)
        key = keys.webhooks(game)
        self.store.durably(key, lambda c: c.eval(ENABLE, 1, key, hook_id))
        return self.shown(game, seat, hook_id)

    def test(self, game: str, seat: int, hook_id: str, version: int) -> dict[str, Any]:
        """Send a test message now, as any delivery is sent (the outbox, its worker, signature,
        address checks, timeouts, retries and budgets): its kind TEST_KIND, about ``version``."""
        hook = self._enabled(game, seat, hook_id)
        write = _delivery(game, hook, TEST_KIND, version, {"webhook": hook_id}, now_ms())
        return self._send(write.name, write.payload or "", hook_id)

    def redeliver(self, game: str, seat: int, hook_id: str, delivery: str) -> dict[str, Any]:
        """Send one delivery of the log again now, the same message (its ``webhook-id`` too, so a
        receiver that has it already knows it). One still being retried is sent now, its tries
        starting again: the redelivery is an outbox entry of its own payload (marked by
        ``redelivery``), which the attempt in flight can neither finish nor put off."""
        hook = self._enabled(game, seat, hook_id)
        sent = (json.loads(v) for v in self.client.lrange(keys.webhook_log(game, hook_id), 0, LOG_SIZE - 1))
        found = next((e for e in sent if e["delivery"] == delivery and "body" in e), None)
        if found is None:
            raise NotFound(f"no delivery {delivery} in the log of webhook {hook_id}")
        if found["kind"] == CHAT_KIND:  # its words may have been deleted or hidden since: read the room
            raise NotRedelivered(f"a {CHAT_KIND} delivery is not sent again: read the game's chat room instead")
        message = {"webhook": hook["id"], "game": game, "id": delivery, "kind": found["kind"], "body": found["body"]}
        message["redelivery"] = uuid.uuid4().hex
        return self._send(f"{PREFIX}{game}:{delivery}", json.dumps(message, sort_keys=True), hook_id, replace=True)

    def _enabled(self, game: str, seat: int, hook_id: str) -> dict[str, Any]:
        hook = self.get(game, seat, hook_id)
        if not hook.get("enabled", True):
            raise WebhookDisabled(f"webhook {hook_id} is disabled ({hook.get('disabled_reason')}): enable it first")
        return hook

    def _send(self, name: str, payload: str, hook_id: str, replace: bool = False) -> dict[str, Any]:
        Outbox(self.client).add(name, payload, now_ms(), replace)
        message = json.loads(payload)
        return {"webhook": hook_id, "delivery": message["id"], "kind": message["kind"]}


def deliveries(
    game: str, hooks: list[dict[str, Any]], stored: list[StoredEvent], state: Game, settings: dict[str, Any]
) -> list[OutboxWrite]:
    """The outbox entries these events cause: one delivery per enabled webhook and matching
    kind, its body redacted for the webhook's seat; and each deadline warning set or cleared."""
    writes: list[OutboxWrite] = []
    started_seq, turn_started = next(((s.seq, s.event) for s in stored if isinstance(s.event, TurnStarted)), (0, None))
    ended = next((s for s in stored if isinstance(s.event, GameEnded)), None)
    at = now_ms()
    for hook in hooks:
        if not hook.get("enabled", True):
            continue
        seat, kinds = hook["seat"], set(hook["events"])
        if "event" in kinds:
            writes += [
                _delivery(game, hook, "event", s.seq, event_to_json(s, redact(s.event, seat)), at) for s in stored
            ]
        if turn_started is not None and turn_started.seat == seat and "turn.started" in kinds:
            writes.append(
                _delivery(
                    game,
                    hook,
                    "turn.started",
                    started_seq,
                    {
                        "turn": turn_started.number,
                        "seat": seat,
                        "deadline_seconds": _seconds_to_deadline(settings, seat, at),
                    },
                    at,
                )
            )
        if ended is not None and "game.ended" in kinds:
            writes.append(_delivery(game, hook, "game.ended", ended.seq, event_to_json(ended, ended.event), at))
        if (turn_started is not None or ended is not None) and "turn.deadline_near" in kinds:
            name = f"{PREFIX}{game}:{hook['id']}:deadline"  # one per webhook: the next turn replaces or clears it
            deadline = _seconds_to_deadline(settings, seat, at)
            if turn_started is not None and turn_started.seat == seat and not state.finished and deadline:
                warning = min(300.0, deadline * DEADLINE_WARNING)
                writes.append(
                    _delivery(
                        game,
                        hook,
                        "turn.deadline_near",
                        started_seq,
                        {"turn": turn_started.number, "seat": seat, "seconds_left": warning},
                        at + int((deadline - warning) * 1000),
                        name,
                    )
                )
            else:
                writes.append(OutboxWrite(name, None))
    return writes


def chat_deliveries(game: str, hooks: list[dict[str, Any]], message: dict[str, Any], version: int) -> list[OutboxWrite]:
    """A CHAT_KIND delivery for each enabled webhook made with ``chat`` (a webhook is a
    seat's, and seats read both rooms); the caller leaves out those whose person does not want
    the author's words. Chat is not an event: ``version`` is the game's when it was posted."""
    at = now_ms()
    return [
        _delivery(game, hook, CHAT_KIND, version, message, at, message_id=_chat_delivery_id(game, hook, message))
        for hook in hooks
        if hook.get("enabled", True) and hook.get("chat")
    ]


def _chat_delivery_id(game: str, hook: dict[str, Any], message: dict[str, Any]) -> str:
    """The same for one chat message and webhook however often the post is retried (its
    Idempotency-Key answers the message made first): the outbox holds it once, and a receiver
    that has it already knows it by its ``webhook-id``."""
    return "msg_" + hashlib.sha256(f"{game}:{hook['id']}:{message['id']}".encode()).hexdigest()[:32]


def _seconds_to_deadline(settings: dict[str, Any], seat: int, at: int) -> int | None:
    """Seconds the seat has for a turn starting now: the fixed deadline, or what its bank holds."""
    due = clocks.deadline_ms(settings, seat, at)
    return None if due is None else (due - at) // 1000


def _delivery(
    game: str,
    hook: dict[str, Any],
    kind: str,
    version: int,
    data: dict[str, Any],
    due: int,
    name: str | None = None,
    message_id: str | None = None,
) -> OutboxWrite:
    """One message: its id stays the same on every retry (the receiver's idempotency key)."""
    message = message_id or f"msg_{uuid.uuid4().hex}"
    body = {"type": kind, "game": game, "version": version, "seat": hook["seat"], "data": data}
    payload = {"webhook": hook["id"], "game": game, "id": message, "kind": kind, "body": json.dumps(body)}
    return OutboxWrite(name or f"{PREFIX}{game}:{message}", json.dumps(payload, sort_keys=True), due)
