"""An OAuth app's webhook: one URL per app that receives the person-stream news of every person
who allowed the app (a mobile app cannot hold a stream in the background; its backend wakes the
phone through the platform's push service).

Set by the app's owner, checked as a game webhook's URL is (application/outbound/webhooks.py
``check_url``), its secret shown once. The person-stream job (workers/person_stream_jobs.py)
writes one outbox entry (kind ``app_webhook``) per news item and app; workers/app_webhook_delivery.py
signs and sends it as game webhooks are sent, with the same retries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from application.accounts.scopes import READ
from application.background.work import WORK
from application.outbound.webhooks import UnsafeUrl, check_url, new_secret
from application.refusals import NotFound
from events import keys
from events.outbox import Outbox, now_ms
from events.person_streams import News
from events.redis_store import RedisStore, text

PREFIX = WORK["app_webhook"].prefix  #: ``aw:<game>:<what>:<account>:<client id>:<item>``


class AppWebhooks:
    """Each app's webhook, under ``keys.oauth_app_webhook``."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def _owned(self, owner: str, client_id: str) -> None:
        raw = self.client.get(keys.oauth_app(client_id))
        if raw is None or json.loads(raw)["owner"] != owner:
            raise NotFound(f"you have registered no app {client_id}")  # another's app is not told apart

    def set(self, owner: str, client_id: str, url: str) -> dict[str, Any]:
        """Set (or replace) the app's webhook: a new secret each time, shown this once."""
        self._owned(owner, client_id)
        try:
            check_url(url)
        except UnsafeUrl as refused:
            raise UnsafeUrl(refused.detail, field="url", errors={"url": [refused.detail]}) from None
        hook = {"url": url, "secret": new_secret()}
        key = keys.oauth_app_webhook(client_id)
        self.store.durably(key, lambda c: c.set(key, json.dumps(hook)))
        return hook

    def remove(self, owner: str, client_id: str) -> None:
        """Remove the app's webhook (none set: nothing to do); deliveries already due are dropped."""
        self._owned(owner, client_id)
        key = keys.oauth_app_webhook(client_id)
        self.store.durably(key, lambda c: c.delete(key))


def hook_of(client: Any, client_id: str) -> dict[str, Any] | None:
    raw = client.get(keys.oauth_app_webhook(client_id))
    return None if raw is None else dict(json.loads(raw))


def still_allowed(client: Any, account: str, client_id: str) -> bool:
    """Whether the person still allows the app (a revoked app hears nothing more of them)."""
    return bool(client.hexists(keys.account_oauth_grants(account), client_id))


def hand_on(client: Any, entry: str, account: str, news: list[News]) -> int:
    """One delivery per news item and app the person allowed to read (scope ``read``) that has a webhook, added to the
    outbox under names made from the stream entry's name: a job run twice adds them once, and
    a retried delivery keeps its message id (the receiver's idempotency key)."""
    rest = entry.partition(":")[2]  # <game>:<what>:<account>
    added = 0
    for raw, grant in client.hgetall(keys.account_oauth_grants(account)).items():
        client_id = text(raw)
        if READ not in json.loads(grant)["scopes"] or not client.exists(keys.oauth_app_webhook(client_id)):
            continue  # an app not allowed to read the person's stream is not sent it either
        for number, item in enumerate(news):
            name = f"{PREFIX}{rest}:{client_id}:{number}"
            message = "msg_" + hashlib.sha256(name.encode()).hexdigest()[:32]
            body = {"type": item.type, "account": account, "app": client_id, **asdict(item)}
            payload = {"app": client_id, "account": account, "id": message, "kind": item.type, "body": json.dumps(body)}
            added += Outbox(client).add(name, json.dumps(payload, sort_keys=True), now_ms())
    return added
