"""The RQ job that delivers one webhook message, signed as Standard Webhooks says.

At least once, never lost: the delivery is an outbox entry written with the events that
caused it; the dispatcher leases it to this job, which removes it only after a 2xx answer.
A timeout, a refused connection or any other answer is retried with exponential back-off
and the same ``webhook-id``, until the last try marks it failed; a webhook whose deliveries
keep failing, or whose receiver keeps timing out, is disabled. A delivery over its game's or
account's budget (application/outbound/limits.py) waits for the next minute. A worker killed
mid-delivery lets the lease run out, and the delivery is claimed and sent again. Every attempt
is logged for the API, once its outcome has been acted on.
"""

from __future__ import annotations

import functools
import http.client
import json
import logging
import socket
import ssl
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rq import get_current_job
from standardwebhooks.webhooks import Webhook

from application.background.work import WORK
from application.outbound.limits import ANSWER_TIMEOUT, CONNECT_TIMEOUT, DeliveryBudget
from application.outbound.webhooks import LOG_SIZE, Target, UnsafeUrl, check_url
from application.settings import BLUEMOON_WEBHOOK_BACKOFF
from application.telemetry.metrics import DELIVERIES
from application.wiring import connect, store_client_for_job, store_url
from events import keys
from events.outbox import SETTLE_TRY, Outbox, now_ms
from events.redis_store import text

log = logging.getLogger("bluemoon.webhooks")

#: seconds before each retry; after the last, the delivery is marked failed
BACKOFF = BLUEMOON_WEBHOOK_BACKOFF.read()
DISABLE_AFTER = 5  #: deliveries in a row that failed every try before the webhook is disabled
TIMEOUTS_BEFORE_DISABLE = 3  #: attempts in a row that timed out before the webhook is disabled


def connect_to(address: str, port: int) -> socket.socket:
    """A connection within CONNECT_TIMEOUT, then ANSWER_TIMEOUT for every read of the answer."""
    sock = socket.create_connection((address, port), CONNECT_TIMEOUT)
    sock.settimeout(ANSWER_TIMEOUT)
    return sock


class _Pinned(http.client.HTTPConnection):
    """Connects to the address that was checked, not to whatever the name resolves to now."""

    def __init__(self, target: Target) -> None:
        super().__init__(target.host, target.port, timeout=ANSWER_TIMEOUT)
        self._address = target.address

    def connect(self) -> None:
        self.sock = connect_to(self._address, self.port)


def system_trust() -> ssl.SSLContext:
    """The default TLS context (the system's authorities and ``SSL_CERT_FILE``'s), made once a
    process for the same SSL_CERT_FILE and SSL_CERT_DIR: loading the authorities costs 20-22 ms
    of CPU, and every https delivery (a webhook, Discord, Slack, Web Push) connects afresh. The
    worker imports this module before it forks its work-horses, which inherit the context; a
    changed CA file is read when the worker starts again."""
    paths = ssl.get_default_verify_paths()  # (OpenSSL reads SSL_CERT_FILE and SSL_CERT_DIR there)
    return _trust(paths.cafile, paths.capath)


@functools.cache
def _trust(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    return ssl.create_default_context()


system_trust()


class _PinnedTLS(http.client.HTTPSConnection):
    def __init__(self, target: Target) -> None:
        super().__init__(target.host, target.port, timeout=ANSWER_TIMEOUT, context=system_trust())
        self._address = target.address

    def connect(self) -> None:
        sock = connect_to(self._address, self.port)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(target: Target, body: str, headers: dict[str, str]) -> int:
    """POST without following redirects; the status only, the body is discarded unread."""
    conn = (_PinnedTLS if target.scheme == "https" else _Pinned)(target)
    try:
        conn.request("POST", target.path, body=body.encode(), headers={**headers, "Host": target.host})
        return conn.getresponse().status
    finally:
        conn.close()


def signed_headers(secret: str, message_id: str, body: str, at: datetime) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": "bluemoon-webhooks",
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, at, body),
    }


def send(url: str, secret: str, message: dict[str, Any], at: datetime) -> tuple[int | None, str | None, bool]:
    """One signed POST of ``message``'s body to ``url``: its status, why it failed (None: a 2xx
    answer) and whether it timed out. The URL is checked again now: its name may point elsewhere since."""
    status: int | None = None
    try:
        target = check_url(url)
        status = post(target, message["body"], signed_headers(secret, message["id"], message["body"], at))
        return status, None if 200 <= status < 300 else f"answered {status}", False
    except UnsafeUrl as refused:
        return status, f"refused: {refused.detail}", False
    except (OSError, http.client.HTTPException) as failed:  # timeouts are OSErrors
        return status, f"{type(failed).__name__}: {failed}", isinstance(failed, TimeoutError)


def tries_of(client: Any, name: str) -> int:
    """Which try of the outbox entry ``name`` this is (its claims so far)."""
    return int(client.hget(keys.outbox_of(name)[2], name) or 1)


def outcome_of(error: str | None, tries: int) -> str:
    """delivered; else retrying, or failed after the last of BACKOFF's tries."""
    return "delivered" if error is None else ("failed" if tries > len(BACKOFF) else "retrying")


def deliver(name: str, payload: str) -> str:
    """The RQ job: one attempt at delivering the outbox entry ``name``."""
    return one_attempt("webhook", attempt, name, payload)


def one_attempt(channel: str, attempt: Callable[[Any, Outbox, str, str], str], name: str, payload: str) -> str:
    """A delivery job's one ``attempt`` at the outbox entry ``name``, on the job's own Redis,
    counted in the deliveries metric under ``channel``: what every webhook job does around its send."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    outcome = attempt(client, Outbox(client, leases=WORK.leases()), name, payload)
    DELIVERIES.labels(channel, outcome).inc()
    return outcome


def attempt(client: Any, outbox: Outbox, name: str, payload: str) -> str:
    message = json.loads(payload)
    game, hook_id = message["game"], message["webhook"]
    with client.pipeline(transaction=False) as pipe:  # one round trip (one slot: the game's)
        pipe.hget(keys.outbox_of(name)[0], name)
        pipe.hget(keys.webhooks(game), hook_id)
        held, raw = pipe.execute()
    if held is None or text(held) != payload:
        return "superseded"  # a redelivery replaced it, or it is over: a job of an older claim sends nothing
    hook = json.loads(raw) if raw else None
    if hook is None or not hook.get("enabled", True):
        outbox.finish(name, payload)
        return "dropped"
    account = client.hget(keys.seat_accounts(game), hook["seat"])
    if DeliveryBudget(client).defer(outbox, name, payload, game, None if account is None else text(account)):
        client.eval(DEFERRED, 1, keys.webhooks(game), hook_id)
        return "deferred"
    tries = tries_of(client, name)
    started, at = time.monotonic(), datetime.now(UTC)
    status, error, timed_out = send(hook["url"], hook["secret"], message, at)
    outcome = outcome_of(error, tries)
    entry = {
        "at": at.isoformat(timespec="milliseconds"),
        "delivery": message["id"],
        "kind": message["kind"],
        "attempt": tries,
        "status": status,
        "ms": round((time.monotonic() - started) * 1000, 1),
        "outcome": outcome,
        "error": error,
        "body": message["body"],  # kept for a redelivery (application/outbound/webhooks.py); never listed
    }
    due = now_ms() + int(BACKOFF[tries - 1] * 1000) if outcome == "retrying" else None
    reason = settle(client, name, payload, due, game, hook_id, entry, timed_out)
    if reason:
        log.warning("webhook %s of %s disabled: %s in a row", hook_id, game, reason)
    if outcome == "failed":
        log.warning(
            "webhook %s of %s: delivery %s failed after %d tries: %s", hook_id, game, message["id"], tries, error
        )
    return outcome


def settle(
    client: Any,
    name: str,
    payload: str,
    due: int | None,
    game: str,
    hook_id: str,
    entry: dict[str, Any],
    timed_out: bool,
) -> str:
    """End the attempt in one atomic step (the outbox entry, the webhook's game and its log share
    a slot): the entry waits until ``due`` for its next try, or (None) leaves the outbox; the
    webhook counts the attempt, disabled at DISABLE_AFTER failed deliveries or
    TIMEOUTS_BEFORE_DISABLE timeouts in a row; the log shows it. A seat never reads a state in
    between: "failed" in the log means the entry is gone, so a redelivery asked for on reading
    it is new work that this attempt's end cannot remove. Returns why the webhook was disabled
    now, else ''."""
    args = [name, payload, "" if due is None else due, hook_id, entry["outcome"], int(timed_out)]
    args += [DISABLE_AFTER, TIMEOUTS_BEFORE_DISABLE, json.dumps(entry), LOG_SIZE]
    watched = [*keys.outbox_of(name), keys.webhooks(game), keys.webhook_log(game, hook_id)]
    return text(client.register_script(SETTLE)(keys=watched, args=args))  # by its SHA: a call per attempt


# KEYS: the outbox's payloads, due and tries; the game's webhooks; the webhook's log. ARGV: the
# entry's name, the payload this attempt worked for, when its next try is due (ms; '' when it is
# over) (events/outbox.py's SETTLE_TRY), webhook id, the outcome (delivered, retrying or failed),
# 1 if it timed out, DISABLE_AFTER, TIMEOUTS_BEFORE_DISABLE, the log entry (JSON), LOG_SIZE.
# Returns why it disabled the webhook now, else ''. A webhook deleted meanwhile gets no log.
SETTLE = (
    SETTLE_TRY
    + """
local raw = redis.call('HGET', KEYS[4], ARGV[4])
if not raw then return '' end
redis.call('LPUSH', KEYS[5], ARGV[9])
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[10]) - 1)
local hook = cjson.decode(raw)
if ARGV[5] == 'failed' then hook['failures'] = (hook['failures'] or 0) + 1 end
if ARGV[5] == 'delivered' then hook['failures'] = 0 end
if ARGV[6] == '1' then hook['timeouts'] = (hook['timeouts'] or 0) + 1 else hook['timeouts'] = 0 end
local reason = ''
if hook['timeouts'] >= tonumber(ARGV[8]) then reason = 'timeouts'
elseif (hook['failures'] or 0) >= tonumber(ARGV[7]) then reason = 'failures' end
if reason ~= '' and hook['enabled'] ~= false then
  hook['enabled'] = false
  hook['disabled_reason'] = reason
else
  reason = ''
end
redis.call('HSET', KEYS[4], ARGV[4], cjson.encode(hook))
return reason
"""
)

# KEYS: the game's webhooks. ARGV: webhook id. Counts a delivery deferred for being over budget.
DEFERRED = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local hook = cjson.decode(raw)
hook['deferred'] = (hook['deferred'] or 0) + 1
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
return 1
"""
