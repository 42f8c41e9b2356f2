"""A software passkey: what a platform authenticator answers to ``navigator.credentials``, made
in Python (P-256 keys, "none" attestation). It records openapi.yaml's passkey examples from real
answers, and lets the API tests sign in without a browser; the browser tests use Chromium's own
virtual authenticator instead."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

USER_PRESENT, USER_VERIFIED, ATTESTED = 0x01, 0x04, 0x40
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def _new_key() -> ec.EllipticCurvePrivateKey:
    """A P-256 key from os.urandom, so that recording the examples with a fixed seed makes the same one."""
    return ec.derive_private_key(1 + int.from_bytes(os.urandom(32), "big") % (P256_ORDER - 1), ec.SECP256R1())


@dataclass
class SoftPasskey:
    origin: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: _new_key())
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    sign_count: int = 0
    user_handle: str = ""
    rp_id: str = ""
    #: False: an authenticator that checks no PIN or biometric (no UV flag), which the service refuses
    verifies_user: bool = True

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``navigator.credentials.create({publicKey: options})``."""
        self.rp_id, self.user_handle = options["rp"]["id"], options["user"]["id"]
        numbers = self.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + cbor2.dumps(cose)
        data = self._authenticator_data(self._presence() | ATTESTED) + attested
        client_data = self._client_data("webauthn.create", options["challenge"])
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return self._credential(
            {
                "clientDataJSON": bytes_to_base64url(client_data),
                "attestationObject": bytes_to_base64url(attestation),
                "transports": ["internal"],
            }
        )

    def get(self, options: dict[str, Any]) -> dict[str, Any]:
        """The answer to ``navigator.credentials.get({publicKey: options})``; each counts one more use."""
        self.sign_count += 1
        data = self._authenticator_data(self._presence())
        client_data = self._client_data("webauthn.get", options["challenge"])
        signed = data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))  # RFC 6979
        return self._credential(
            {
                "clientDataJSON": bytes_to_base64url(client_data),
                "authenticatorData": bytes_to_base64url(data),
                "signature": bytes_to_base64url(signature),
                "userHandle": self.user_handle,
            }
        )

    def _presence(self) -> int:
        return USER_PRESENT | (USER_VERIFIED if self.verifies_user else 0)

    def _authenticator_data(self, flags: int) -> bytes:
        return hashlib.sha256(self.rp_id.encode()).digest() + bytes([flags]) + self.sign_count.to_bytes(4, "big")

    def _client_data(self, kind: str, challenge: str) -> bytes:
        challenge = bytes_to_base64url(base64url_to_bytes(challenge))
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}).encode()

    def _credential(self, response: dict[str, Any]) -> dict[str, Any]:
        credential_id = bytes_to_base64url(self.credential_id)
        return {
            "id": credential_id,
            "rawId": credential_id,
            "type": "public-key",
            "response": response,
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
