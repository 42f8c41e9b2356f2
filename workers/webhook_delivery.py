"""The RQ job that delivers one webhook message, signed as Standard Webhooks says.

At least once, never lost: the delivery is an outbox entry written with the events that
caused it; the dispatcher leases it to this job, which removes it only after a 2xx answer.
A timeout, a refused connection or any other answer is retried with exponential back-off
and the same ``webhook-id``, until the last try marks it failed; a webhook whose deliveries
keep failing is disabled. A worker killed mid-delivery lets the lease run out, and the
delivery is claimed and sent again. Every attempt is logged for the API.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import socket
import ssl
import time
from datetime import UTC, datetime
from typing import Any

from rq import get_current_job
from standardwebhooks.webhooks import Webhook

from application.webhook_subscriptions import LOG_SIZE, Target, UnsafeUrl, check_url
from application.wiring import connect, store_client_for_job, store_url
from events import keys
from events.outbox import Outbox, now_ms

log = logging.getLogger("bluemoon.webhooks")

TIMEOUT = 5.0  #: seconds to connect and to answer; the answer's body is never read
#: seconds before each retry; after the last, the delivery is marked failed
BACKOFF = tuple(float(x) for x in os.environ.get("BLUEMOON_WEBHOOK_BACKOFF", "5,30,120,600,3600").split(","))
DISABLE_AFTER = 5  #: deliveries in a row that failed every try before the webhook is disabled


class _Pinned(http.client.HTTPConnection):
    """Connects to the address that was checked, not to whatever the name resolves to now."""

    def __init__(self, target: Target) -> None:
        super().__init__(target.host, target.port, timeout=TIMEOUT)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    def __init__(self, target: Target) -> None:
        super().__init__(target.host, target.port, timeout=TIMEOUT, context=ssl.create_default_context())
        self._address = target.address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
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


def deliver(name: str, payload: str) -> str:
    """The RQ job: one attempt at delivering the outbox entry ``name``."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    return attempt(client, Outbox(client), name, payload)


def attempt(client: Any, outbox: Outbox, name: str, payload: str) -> str:
    message = json.loads(payload)
    game, hook_id = message["game"], message["webhook"]
    raw = client.hget(keys.webhooks(game), hook_id)
    hook = json.loads(raw) if raw else None
    if hook is None or not hook.get("enabled", True):
        outbox.finish(name, payload)
        return "dropped"
    tries = int(client.hget(keys.outbox_of(name)[2], name) or 1)
    started, at = time.monotonic(), datetime.now(UTC)
    status: int | None = None
    try:
        target = check_url(hook["url"])  # again now: the name may point elsewhere since
        status = post(target, message["body"], signed_headers(hook["secret"], message["id"], message["body"], at))
        error = None if 200 <= status < 300 else f"answered {status}"
    except UnsafeUrl as refused:
        error = f"refused: {refused.detail}"
    except (OSError, http.client.HTTPException) as failed:  # timeouts are OSErrors
        error = f"{type(failed).__name__}: {failed}"
    last = tries > len(BACKOFF)
    outcome = "delivered" if error is None else ("failed" if last else "retrying")
    entry = {
        "at": at.isoformat(timespec="milliseconds"),
        "delivery": message["id"],
        "kind": message["kind"],
        "attempt": tries,
        "status": status,
        "ms": round((time.monotonic() - started) * 1000, 1),
        "outcome": outcome,
        "error": error,
    }
    with client.pipeline(transaction=False) as pipe:
        pipe.lpush(keys.webhook_log(game, hook_id), json.dumps(entry))
        pipe.ltrim(keys.webhook_log(game, hook_id), 0, LOG_SIZE - 1)
        pipe.execute()
    if outcome == "retrying":
        outbox.renew(name, payload, due_ms=now_ms() + int(BACKOFF[tries - 1] * 1000))
        return outcome
    outbox.finish(name, payload)
    _count(client, game, hook_id, failed=outcome == "failed")
    if outcome == "failed":
        log.warning(
            "webhook %s of %s: delivery %s failed after %d tries: %s", hook_id, game, message["id"], tries, error
        )
    return outcome


# KEYS: the game's webhooks. ARGV: webhook id, 1 for a failed delivery or 0 for a delivered one,
# DISABLE_AFTER. One atomic step, so deliveries finishing at once all count.
COUNT = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local hook = cjson.decode(raw)
if ARGV[2] == '1' then hook['failures'] = (hook['failures'] or 0) + 1 else hook['failures'] = 0 end
if hook['failures'] >= tonumber(ARGV[3]) and hook['enabled'] ~= false then
  hook['enabled'] = false
  hook['disabled_reason'] = hook['failures'] .. ' deliveries in a row failed every try'
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
  return 2
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
return 1
"""


def _count(client: Any, game: str, hook_id: str, failed: bool) -> None:
    """Track deliveries that failed in a row; disable the webhook at DISABLE_AFTER."""
    if client.eval(COUNT, 1, keys.webhooks(game), hook_id, int(failed), DISABLE_AFTER) == 2:
        log.warning("webhook %s of %s disabled after %d failed deliveries in a row", hook_id, game, DISABLE_AFTER)
