"""Passkeys: sign up or add one, sign in with any, list and remove them (application/accounts/passkeys.py).
Each ceremony is two calls: the options for the browser's ``navigator.credentials``, then its
answer."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Response

from application.accounts.passkeys import Passkeys, RelyingParty
from application.accounts.scopes import ACCOUNT
from application.games.codec import dumps

from ..operation import SESSION_ONLY, SESSION_ONLY_TEXT, SESSION_SET, Answer, Body, Operation, Reply
from ..origin import own_origin
from ..requests import accounts, person, session_person, signed_in
from ..schemas.accounts import Profile
from ..schemas.passkeys import Ceremony, PasskeyBegin, PasskeyFinish, PasskeyList, PasskeyRegistered
from ..sessions import set_session, signed_in_as

passkey_api = Blueprint("passkeys", __name__)


def _passkeys() -> Passkeys:
    return Passkeys(accounts())


def _party() -> RelyingParty:
    """The public origin's host, or the host a local run is reached at."""
    origin = own_origin()
    return RelyingParty(urlsplit(origin).hostname or "localhost", origin)


def _by_session() -> str | None:
    """The person signed in by the page's session; None when nobody is signed in. A personal
    access token may not add passkeys (403 session_required)."""
    return session_person() if signed_in() else None


@Operation(
    passkey_api,
    "post",
    "/auth/passkeys/registration",
    id="beginPasskeyRegistration",
    tag="accounts",
    summary="Options to make a passkey: for your account when signed in, else for a new account (sign-up).",
    description=SESSION_ONLY_TEXT,
    security=[{}, *SESSION_ONLY],
    scope=ACCOUNT,
    body=PasskeyBegin,
    responses={200: Reply("Pass `options` to navigator.credentials.create.", Ceremony)},
    problems=(400, 401, 403, 413, 415, 422),
)
def begin_registration(body: Body) -> Answer:
    account = _by_session()
    name = body.get("display_name") or "Player"
    return _passkeys().begin_registration(_party(), account, name)


@Operation(
    passkey_api,
    "post",
    "/auth/passkeys",
    id="registerPasskey",
    tag="accounts",
    summary="Keep the new passkey; a sign-up is signed in at once (the session cookie is set).",
    description=SESSION_ONLY_TEXT,
    security=[{}, *SESSION_ONLY],
    scope=ACCOUNT,
    body=PasskeyFinish,
    responses={
        201: Reply(
            "Registered; a sign-up's session is in the Set-Cookie header.",
            PasskeyRegistered,
            headers=SESSION_SET,
        )
    },
    problems=(400, 401, 403, 413, 415, 422),
)
def register(body: Body) -> Answer:
    caller = _by_session()
    account, passkey = _passkeys().finish_registration(_party(), body["ceremony"], body["credential"])
    response = Response(dumps({"account": account, "passkey": passkey}), status=201, mimetype="application/json")
    if caller != account:  # a sign-up: the new account's first session
        set_session(response, accounts().open_session(account))
    return response


@Operation(
    passkey_api,
    "post",
    "/auth/passkeys/assertion",
    id="beginPasskeySignIn",
    tag="accounts",
    summary="Options to sign in with any passkey of this service (no name or email needed).",
    responses={200: Reply("Pass `options` to navigator.credentials.get.", Ceremony)},
    problems=(403,),
)
def begin_sign_in() -> Answer:
    return _passkeys().begin_sign_in(_party())


@Operation(
    passkey_api,
    "post",
    "/auth/passkeys/sign-in",
    id="signInWithPasskey",
    tag="accounts",
    summary="Sign in with the passkey's answer; sets the session cookie. A replayed or cloned answer is refused.",
    body=PasskeyFinish,
    responses={200: Reply("Signed in; the session is in the Set-Cookie header.", Profile, headers=SESSION_SET)},
    problems=(400, 401, 403, 413, 415, 422),
)
def sign_in(body: Body) -> Answer:
    return signed_in_as(_passkeys().finish_sign_in(_party(), body["ceremony"], body["credential"]))


@Operation(
    passkey_api,
    "get",
    "/me/passkeys",
    id="listPasskeys",
    tag="accounts",
    summary="Your passkeys, with their last use.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={200: Reply("Your passkeys.", PasskeyList)},
    problems=(401,),
)
def list_passkeys() -> Answer:
    return {"passkeys": _passkeys().of(person())}


@Operation(
    passkey_api,
    "delete",
    "/me/passkeys/{passkey}",
    id="removePasskey",
    tag="accounts",
    summary="Remove a passkey: it signs in no more.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={204: Reply("Removed.")},
    problems=(401, 403, 404),
)
def remove_passkey(passkey: str) -> Answer:
    _passkeys().remove(person(), passkey)
    return Response(status=204)
