"""Passkeys (application/accounts/passkeys.py, service/routes/passkey_routes.py): the WebAuthn ceremonies
and the passkeys an account keeps."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .common import NAME_RULE, Strict, shown_to_others


class PasskeyBegin(Strict):
    display_name = fields.String(
        load_default=None,
        validate=[validate.Length(min=1, max=40), shown_to_others],
        metadata={"description": f"Signing up with a passkey alone: the new account's display name, {NAME_RULE}"},
    )


class Ceremony(Schema):
    ceremony = fields.String(required=True, metadata={"description": "Send it back with the authenticator's answer."})
    options = fields.Dict(
        required=True,
        metadata={
            "description": "WebAuthn options (JSON, binary fields in base64url) for navigator.credentials.create or .get."
        },
    )


class PasskeyFinish(Strict):
    ceremony = fields.String(required=True, validate=validate.Length(min=1, max=100))
    credential = fields.Dict(
        required=True,
        metadata={
            "description": "The authenticator's answer as JSON (PublicKeyCredential.toJSON()), base64url fields."
        },
    )


class PasskeyInfo(Schema):
    id = fields.String(required=True, metadata={"description": "The credential id (base64url)."})
    name = fields.String(required=True)
    created = fields.String(required=True)
    last_used = fields.String(required=True, allow_none=True)


class PasskeyList(Schema):
    passkeys = fields.List(fields.Nested(PasskeyInfo), required=True)


class PasskeyRegistered(Schema):
    account = fields.String(required=True)
    passkey = fields.Nested(PasskeyInfo, required=True)
