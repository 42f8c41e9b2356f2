"""A create sent with an Idempotency-Key: made once, and answered the same on every retry.

The first request of a key writes its record's *plan* (every random choice the create makes: the
new resource's id, its secrets) if no plan is there yet, in one step on one key, so that requests
racing with the same key all get the same plan. Each then makes the resource from the plan with a
create-if-absent of its own (the resource's id is the plan's), so a second copy, or a retry after a
crash between the create and its answer, makes nothing twice; the first answer is then kept beside
the plan and given again. A key is its credential's (``scope``): another person's same key names
another record. The record keeps the plan and the answer encrypted (AES-GCM) under a key derived
from the Idempotency-Key, which the service does not keep: the seat tokens an answer holds are no
more readable in Redis than their digests. Records expire ``RECORD_SECONDS`` after the first request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from application import settings
from events.redis_store import RedisStore, text
from events.store import IdempotencyConflict

#: How long a create's record (its plan and first answer) is kept: a retry within it gets the first
#: answer, one after it makes a new resource.
RECORD_SECONDS = settings.IDEMPOTENCY_RECORD_SECONDS.read()
ANONYMOUS = "anonymous"  #: the scope of a create sent without a credential: the key is its only secret
ANONYMOUS_KEY_LENGTH = 32  #: without a credential, a key must be at least this long (a UUID is 36)

# KEYS: the record. ARGV: the request's digest, the plan, the record's lifetime (ms). Writes the plan
# unless one is there; returns the request digest and the plan that are there now.
PLAN = """
local found = redis.call('HMGET', KEYS[1], 'request', 'plan')
if found[1] then return found end
redis.call('HSET', KEYS[1], 'request', ARGV[1], 'plan', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {ARGV[1], ARGV[2]}
"""

# KEYS: the record. ARGV: the request's digest, the plan, the answer, the lifetime (ms). Keeps the
# first answer (a record gone meanwhile is written again whole); returns the answer kept.
ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'request', ARGV[1], 'plan', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
redis.call('HSETNX', KEYS[1], 'answer', ARGV[3])
return redis.call('HGET', KEYS[1], 'answer')
"""


@dataclass(frozen=True)
class Retry:
    """One Idempotency-Key of one credential for one operation on one path."""

    operation: str
    path: str
    scope: str  #: the credential: ``account:<id>``, ``seat-token:<digest>``, ``invite:<digest>`` or ANONYMOUS
    key: str
    request: str  #: a digest of the request's body: the same key with another body is refused

    @staticmethod
    def of(operation: str, path: str, scope: str, key: str, body: Any) -> Retry:
        sent = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
        return Retry(operation, path, scope, key, sent)

    def _digest(self, purpose: str) -> bytes:
        named = json.dumps([purpose, self.operation, self.path, self.scope, self.key], separators=(",", ":"))
        return hashlib.sha256(named.encode()).digest()

    @property
    def record(self) -> str:
        """The record's Redis key: a digest, so the key itself is kept nowhere (a key of its own slot)."""
        return "retry:" + self._digest("record").hex()

    @property
    def mark(self) -> str:
        """A name of this request that a resource may keep, to know its own maker again (a join's seat)."""
        return self._digest("mark").hex()[:32]

    def seal(self, value: Any) -> str:
        nonce = os.urandom(12)
        sealed = AESGCM(self._digest("secret")).encrypt(nonce, json.dumps(value).encode(), None)
        return base64.b64encode(nonce + sealed).decode()

    def open(self, sealed: str) -> Any:
        raw = base64.b64decode(sealed)
        return json.loads(AESGCM(self._digest("secret")).decrypt(raw[:12], raw[12:], None))


class Retries:
    """The records of creates sent with an Idempotency-Key (see the module's doc)."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client
        self._plan = self.client.register_script(PLAN)
        self._answer = self.client.register_script(ANSWER)

    def answered(self, retry: Retry) -> Any | None:
        """The first answer to ``retry``'s key, if there is one; refuses another request under it."""
        request, answer = self.client.hmget(retry.record, "request", "answer")
        if request is not None:
            self._same(retry, text(request))
        return None if answer is None else retry.open(text(answer))

    def plan(self, retry: Retry, fresh: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The plan of ``retry``'s key: the one there, else ``fresh()`` written now."""
        proposed = retry.seal(fresh())
        key, lifetime = retry.record, RECORD_SECONDS * 1000
        request, plan = self.store.durably(
            key, lambda c: self._plan(keys=[key], args=[retry.request, proposed, lifetime], client=c)
        )
        self._same(retry, text(request))
        return retry.open(text(plan))

    def answer(self, retry: Retry, plan: dict[str, Any], answer: Any) -> Any:
        """Keep ``answer`` unless an answer is kept already; returns the one kept (the first)."""
        key, lifetime = retry.record, RECORD_SECONDS * 1000
        args = [retry.request, retry.seal(plan), retry.seal(answer), lifetime]
        kept = self.store.durably(key, lambda c: self._answer(keys=[key], args=args, client=c))
        return retry.open(text(kept))

    @staticmethod
    def _same(retry: Retry, request: str) -> None:
        if request != retry.request:
            raise IdempotencyConflict(
                f"Idempotency-Key {retry.key} was used for a different request to {retry.path}: send a new key "
                "for a new request"
            )
