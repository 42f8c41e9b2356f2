"""The service's Web Push identity (VAPID, RFC 8292): one P-256 key pair, made by the first
process that needs it and kept in Redis, so every web and worker process signs with the same
key and browsers' subscriptions (made for its public key) keep working across restarts.
``VAPID_PRIVATE_KEY`` (PEM) sets it instead."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02

from application.settings import VAPID_PRIVATE_KEY
from events import keys
from events.redis_store import text


def _pem(key: Vapid02) -> str:
    return key.private_pem().decode()


def vapid_key(client: Any) -> Vapid02:
    """The key pair: from the environment, else from Redis, else made now (the first maker wins)."""
    configured = VAPID_PRIVATE_KEY.read()
    if configured:
        return Vapid02.from_pem(configured.encode())
    found = client.hget(keys.VAPID_KEY, "private")
    if found is None:
        made = Vapid02()
        made.generate_keys()
        client.hsetnx(keys.VAPID_KEY, "private", _pem(made))
        found = client.hget(keys.VAPID_KEY, "private")
    return Vapid02.from_pem(text(found).encode())


def public_key(key: Vapid02) -> str:
    """The public key as a page passes it to ``pushManager.subscribe`` (base64url, uncompressed point)."""
    raw = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
