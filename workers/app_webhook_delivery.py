"""The RQ job that delivers one person-stream news item to an OAuth app's webhook
(application/outbound/app_webhooks.py), signed, checked, timed and retried as a game webhook's
delivery is (workers/webhook_delivery.py's ``send``, ``BACKOFF``): removed only after a 2xx
answer or the last try. An app whose webhook is gone, or that the person no longer allows,
is told nothing.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from application.outbound.app_webhooks import hook_of, still_allowed
from events.outbox import Outbox, now_ms

from .webhook_delivery import BACKOFF, one_attempt, outcome_of, send, tries_of

log = logging.getLogger("bluemoon.webhooks")


def deliver(name: str, payload: str) -> str:
    """The RQ job: one attempt at delivering the outbox entry ``name``."""
    return one_attempt("app_webhook", attempt, name, payload)


def attempt(client: Any, outbox: Outbox, name: str, payload: str) -> str:
    message = json.loads(payload)
    hook = hook_of(client, message["app"])
    if hook is None or not still_allowed(client, message["account"], message["app"]):
        outbox.finish(name, payload)
        return "dropped"
    tries = tries_of(client, name)
    _, error, _ = send(hook["url"], hook["secret"], message, datetime.now(UTC))
    outcome = outcome_of(error, tries)
    if outcome == "retrying":
        outbox.renew(name, payload, due_ms=now_ms() + int(BACKOFF[tries - 1] * 1000))
        return outcome
    outbox.finish(name, payload)
    if outcome == "failed":
        log.warning(
            "app %s's webhook: delivery %s failed after %d tries: %s", message["app"], message["id"], tries, error
        )
    return outcome
