"""Accounts (application/accounts/account_service.py, service/routes/account_routes.py): signing in by an email
link or from another device, the profile, personal access tokens, and seats claimed into the account."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from application.accounts.scopes import (
    ACCOUNT,
    BOT,
    DEFAULT_TOKEN_SCOPES,
    MAX_TOKEN_DAYS,
    PLAY,
    READ,
    TOKEN_SCOPES,
    listed,
)
from application.words import LANGUAGES

from .common import NAME_RULE, Flag, Strict, Whole, shown_to_others


class EmailLinkRequest(Strict):
    email = fields.Email(
        required=True,
        validate=validate.Length(max=254),
        metadata={"description": "Where to send the sign-in link. Never shown to anyone else."},
    )
    language = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of the mail and of the page its link opens (else the request's "
            "Accept-Language, else English)."
        },
    )


class EmailLinkSent(Schema):
    delivery = fields.String(
        required=True,
        validate=validate.OneOf(["email", "server log"]),
        metadata={"description": "How links travel on this service: by email, or (without SMTP) in its log."},
    )
    detail = fields.String(required=True)


class EmailLinkUse(Strict):
    token = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The `token` of the link's query (`/signin?token=...`)."},
    )


class Profile(Schema):
    account = fields.String(required=True)
    display_name = fields.String(required=True, metadata={"description": "Shown to others."})
    email = fields.String(
        required=True, allow_none=True, metadata={"description": "Shown to you alone; null for a passkey-only account."}
    )
    created = fields.String(required=True)
    bot = Flag(
        metadata={"description": "A bot account (POST /me/bot): a program plays for it, and others see it labelled."},
    )


class ProfileChange(Strict):
    display_name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=40), shown_to_others],
        metadata={"description": NAME_RULE},
    )


class TokenRequest(Strict):
    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=60),
        metadata={"description": "What the token is for, to tell it apart in the list."},
    )
    scopes = fields.List(
        fields.String(
            validate=validate.OneOf(
                TOKEN_SCOPES,
                error=f"must be one of {', '.join(TOKEN_SCOPES)}: a personal access token never holds "
                f"'{ACCOUNT}', which is the page's session's",
            )
        ),
        validate=validate.Length(min=1, max=len(TOKEN_SCOPES)),
        metadata={
            "description": "What the token may do (each operation names the scope it needs). Left out: "
            f"{', '.join(DEFAULT_TOKEN_SCOPES)}, what every token could do before scopes (a bot account's: "
            f"with `{BOT}` too). Only a bot account's token may hold `{BOT}` (else 422 naming `scopes`).\n\n{listed()}",
            "example": [READ, PLAY],
        },
    )
    expires_in_days = Whole(
        validate=validate.Range(1, MAX_TOKEN_DAYS, error=f"must be a whole number of days from 1 to {MAX_TOKEN_DAYS}"),
        metadata={
            "description": f"The token stops working (401) this many days from now, at most {MAX_TOKEN_DAYS}. "
            "Left out: it works until revoked."
        },
    )


class TokenInfo(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = fields.String(required=True)
    last_used = fields.String(required=True, allow_none=True, metadata={"description": "To the minute."})
    scopes = fields.List(fields.String(), required=True, metadata={"description": "What the token may do."})
    expires = fields.String(
        required=True, allow_none=True, metadata={"description": "When it stops working; null: until revoked."}
    )


class NewToken(TokenInfo):
    token = fields.String(
        required=True,
        metadata={"description": "The secret, shown this once: send it as 'Authorization: Bearer <token>'."},
    )


class TokenList(Schema):
    tokens = fields.List(fields.Nested(TokenInfo), required=True)


class SeatClaim(Strict):
    tokens = fields.List(
        fields.String(validate=validate.Length(min=1, max=200)),
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "Seat tokens held by this browser or program: each proves its seat."},
    )
    account = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "The account the seats go to, as shown to the person who confirmed it (GET /auth/session): "
            "refused (409 not_this_account) unless the caller is signed in to it."
        },
    )


class ClaimedSeat(Schema):
    game = fields.String(required=True)
    seat = Whole(required=True)


class Claimed(Schema):
    claimed = fields.List(fields.Nested(ClaimedSeat), required=True)
    unmatched = Whole(required=True, metadata={"description": "How many tokens named no seat."})
    kept_elsewhere = fields.List(
        fields.Nested(ClaimedSeat),
        required=True,
        metadata={
            "description": "Seats not claimed because your account keeps another seat of the same game "
            "(an account keeps one seat a game; its token still plays it)."
        },
    )


class DeviceCode(Schema):
    code = fields.String(required=True, metadata={"description": "Type it on the other device (ABCD-EFGH)."})
    link = fields.String(required=True, metadata={"description": "Or open this there (a QR code of it, say)."})
    expires_in = Whole(required=True, metadata={"description": "Seconds it stays good (once)."})


class DeviceCodeUse(Strict):
    code = fields.String(required=True, validate=validate.Length(min=8, max=20))


class SessionState(Schema):
    signed_in = Flag(required=True)
    profile = fields.Nested(Profile, required=True, allow_none=True)
