"""Passkeys (WebAuthn) through Duo's ``webauthn`` library: register one or several, sign in with
any, remove one. A ceremony (``begin_*``) hands the browser a single-use challenge, kept five
minutes under its own key; finishing it (``finish_*``) spends the challenge, so a replayed
response is refused, and a sign count that does not grow says the authenticator was cloned, so
that response is refused too. Passkeys are discoverable (resident keys): signing in needs no
email or user name. Every ceremony requires user verification (a PIN, a fingerprint, a face:
the authenticator's UV flag), so a passkey is two factors, not a device left unlocked; an
answer without it is refused. The relying party is the public origin's host (``PUBLIC_URL``),
or the loopback host a local run is reached at (service/origin.py; WebAuthn needs a host name
such as ``localhost``, not an address), never a request's Host header.
"""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from application.accounts.account_service import Accounts
from application.games.game_service import digest
from application.refusals import NotFound, ServiceError
from events import keys
from events.redis_store import text
from events.serialization import now

T = TypeVar("T")
CEREMONY_SECONDS = 300  #: a ceremony's challenge is good for five minutes, once
MAX_PASSKEYS = 20


class PasskeyRefused(ServiceError):
    status, code, title = 401, "passkey_refused", "The passkey response was refused"


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys belong to: the host (``id``) and the origin the browser must report."""

    id: str
    origin: str


class Passkeys:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.client = accounts.client

    def begin_registration(self, party: RelyingParty, account: str | None, display_name: str) -> dict[str, Any]:
        """Options for ``navigator.credentials.create``: a passkey for ``account``, or for a new
        account (signing up with a passkey alone) when None."""
        held = self._passkeys(account) if account else []
        if len(held) >= MAX_PASSKEYS:
            raise ServiceError(f"an account holds at most {MAX_PASSKEYS} passkeys: remove one first")
        for_account = account or uuid.uuid4().hex
        name = self.accounts.display_name(account) if account else display_name
        options = webauthn.generate_registration_options(
            rp_id=party.id,
            rp_name="Blue Moon City",
            user_id=for_account.encode(),
            user_name=name,
            user_display_name=name,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.REQUIRED
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(p["id"])) for p in held],
        )
        state = {"kind": "register", "account": for_account, "new": account is None, "name": name}
        return self._ceremony(options, state)

    def finish_registration(self, party: RelyingParty, ceremony: str, credential: dict[str, Any]) -> tuple[str, dict]:
        """Verify the authenticator's answer and keep the passkey; (account, the passkey's info)."""
        state = self._spend(ceremony, "register")
        verified = _checked(
            "the new passkey",
            lambda: webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(state["challenge"]),
                expected_rp_id=party.id,
                expected_origin=party.origin,
                require_user_verification=True,
            ),
        )
        account = state["account"]
        credential_id = bytes_to_base64url(verified.credential_id)
        owner = keys.credential_owner(digest(credential_id))
        if not self.accounts.store.durably(owner, lambda c: c.set(owner, account, nx=True)):
            raise PasskeyRefused("this passkey is registered already")  # (before a sign-up makes an account)
        if state["new"]:
            self.accounts.create_without_email(account, state["name"])
        passkey = {
            "id": credential_id,
            "name": str(credential.get("authenticatorAttachment") or "passkey"),
            "created": now(),
            "last_used": None,
            "public_key": bytes_to_base64url(verified.credential_public_key),
            "sign_count": verified.sign_count,
        }
        held = keys.account_passkeys(account)
        self.accounts.store.durably(held, lambda c: c.hset(held, credential_id, json.dumps(passkey)))
        return account, _public(passkey)

    def begin_sign_in(self, party: RelyingParty) -> dict[str, Any]:
        """Options for ``navigator.credentials.get``, for any of this service's passkeys."""
        options = webauthn.generate_authentication_options(
            rp_id=party.id, user_verification=UserVerificationRequirement.REQUIRED
        )
        return self._ceremony(options, {"kind": "sign_in"})

    def finish_sign_in(self, party: RelyingParty, ceremony: str, credential: dict[str, Any]) -> str:
        """The account the passkey's answer signs in to."""
        state = self._spend(ceremony, "sign_in")
        credential_id = str(credential.get("id") or credential.get("rawId") or "")
        found = self.client.get(keys.credential_owner(digest(credential_id)))
        raw = self.client.hget(keys.account_passkeys(text(found)), credential_id) if found else None
        if raw is None:
            raise PasskeyRefused("this passkey is not registered here (or was removed)")
        account, passkey = text(found), json.loads(raw)
        verified = _checked(
            "the passkey's answer",
            lambda: webauthn.verify_authentication_response(
                credential=credential,
                expected_challenge=base64url_to_bytes(state["challenge"]),
                expected_rp_id=party.id,
                expected_origin=party.origin,
                credential_public_key=base64url_to_bytes(passkey["public_key"]),
                credential_current_sign_count=passkey["sign_count"],
                require_user_verification=True,
            ),
        )
        passkey.update(sign_count=verified.new_sign_count, last_used=now())
        held = keys.account_passkeys(account)
        self.accounts.store.durably(held, lambda c: c.hset(held, credential_id, json.dumps(passkey)))
        return account

    def of(self, account: str) -> list[dict[str, Any]]:
        return sorted((_public(p) for p in self._passkeys(account)), key=lambda p: p["created"])

    def remove(self, account: str, passkey_id: str) -> None:
        if self.client.hget(keys.account_passkeys(account), passkey_id) is None:
            raise NotFound(f"no passkey {passkey_id} in this account")
        self.client.delete(keys.credential_owner(digest(passkey_id)))
        self.client.hdel(keys.account_passkeys(account), passkey_id)

    def _passkeys(self, account: str) -> list[dict[str, Any]]:
        return [json.loads(raw) for raw in self.client.hvals(keys.account_passkeys(account))]

    def _ceremony(self, options: Any, state: dict[str, Any]) -> dict[str, Any]:
        ceremony = secrets.token_urlsafe(24)
        state["challenge"] = bytes_to_base64url(options.challenge)
        key = keys.ceremony(digest(ceremony))
        self.client.set(key, json.dumps(state), ex=CEREMONY_SECONDS)
        return {"ceremony": ceremony, "options": json.loads(webauthn.options_to_json(options))}

    def _spend(self, ceremony: str, kind: str) -> dict[str, Any]:
        raw = self.client.getdel(keys.ceremony(digest(ceremony)))
        state = json.loads(raw) if raw else None
        if state is None or state["kind"] != kind:
            raise PasskeyRefused("this ceremony is unknown, already finished or older than five minutes: begin again")
        return state


def _checked(what: str, verify: Callable[[], T]) -> T:
    """The library's verdict on an authenticator's answer; any malformed or false answer is a
    refusal (401), never a 500."""
    try:
        return verify()
    except (WebAuthnException, ValueError, KeyError, TypeError, AttributeError) as error:
        raise PasskeyRefused(f"{what} could not be verified: {error}") from error


def _public(passkey: dict[str, Any]) -> dict[str, Any]:
    return {k: passkey[k] for k in ("id", "name", "created", "last_used")}
