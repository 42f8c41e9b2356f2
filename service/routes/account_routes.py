"""Accounts: sign in with an email link, the page's session, personal access tokens for
programs, the person's profile, seats and games (application/accounts/account_service.py)."""

from __future__ import annotations

from html import escape

from flask import Blueprint, Response, request

from application.accounts.account_service import DEVICE_CODE_SECONDS, SignInRefused, fresh_token
from application.accounts.scopes import ACCOUNT, PLAY, READ
from application.accounts.sign_in_mail import delivery, send_sign_in_link
from application.people.notes import Notes
from application.refusals import ServiceError, Unauthorized
from application.words import LANGUAGES
from events.projection import entry, page_of

from ..oauth_server import apps
from ..operation import (
    OPTIONAL_PERSON,
    PERSON,
    SESSION_CLEARED,
    SESSION_ONLY,
    SESSION_ONLY_TEXT,
    SESSION_SET,
    Answer,
    Body,
    Operation,
    Paging,
    Reply,
    location,
)
from ..origin import own_origin, session_cookie
from ..ratelimit import client_address
from ..requests import accounts, components, person, service, session_person, signed_in
from ..retried import Made, Plan, once
from ..schemas.accounts import (
    Claimed,
    DeviceCode,
    DeviceCodeUse,
    EmailLinkRequest,
    EmailLinkSent,
    EmailLinkUse,
    NewToken,
    Profile,
    ProfileChange,
    SeatClaim,
    SessionState,
    TokenList,
    TokenRequest,
)
from ..schemas.games import GameList
from ..schemas.retries import RetryKey
from ..server_pages import page_language, server_page, words
from ..sessions import clear_session, set_session, signed_in_as
from .bot_routes import token_scopes
from .game_routes import with_seat
from .meta_routes import HTML, pages

account_api = Blueprint("accounts", __name__)


class NotThisAccount(ServiceError):
    status, code, title = 409, "not_this_account", "Signed in to another account than the one named"


@Operation(
    account_api,
    "post",
    "/auth/email-link",
    id="askEmailLink",
    tag="accounts",
    summary="Send a sign-in link (valid 15 minutes, once) to an email; the answer is the same for any address.",
    body=EmailLinkRequest,
    responses={202: Reply("Sent, or logged when the service has no SMTP server.", EmailLinkSent)},
    problems=(400, 413, 415, 422, 429),
)
def ask_email_link(body: Body) -> Answer:
    token = accounts().ask_link(body["email"], client_address())
    language = body.get("language") or request.accept_languages.best_match(LANGUAGES) or "en"
    send_sign_in_link(body["email"], f"{own_origin()}/signin?token={token}&lang={language}", language)
    how = delivery()
    detail = (
        "if the address can receive mail, a sign-in link is on its way; it works once, within 15 minutes"
        if how == "email"
        else "this service sends no email: the sign-in link was written to its log, where its operator can find it"
    )
    return {"delivery": how, "detail": detail}


@Operation(
    account_api,
    "post",
    "/auth/email-link/use",
    id="useEmailLink",
    tag="accounts",
    summary="Sign in with a link's token: the account is made on first use; sets the page's session cookie.",
    body=EmailLinkUse,
    responses={200: Reply("Signed in; the session is in the Set-Cookie header.", Profile, headers=SESSION_SET)},
    problems=(400, 401, 403, 413, 415, 422, 429),
)
def use_email_link(body: Body) -> Answer:
    account = accounts().use_link(body["token"])
    return signed_in_as(account)


@Operation(
    account_api,
    "post",
    "/me/device-code",
    id="makeDeviceCode",
    tag="accounts",
    summary="A one-time code (10 minutes) to sign in on another device without email or passkey.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={201: Reply("Show it, or its link, on the other device.", DeviceCode)},
    problems=(401, 403, 404),
)
def make_device_code() -> Answer:
    code = accounts().device_code(session_person())
    return {"code": code, "link": f"{own_origin()}/#device-code={code}", "expires_in": DEVICE_CODE_SECONDS}


@Operation(
    account_api,
    "post",
    "/auth/device-code",
    id="useDeviceCode",
    tag="accounts",
    summary="Sign in with a code shown on a signed-in device; sets the session cookie.",
    body=DeviceCodeUse,
    responses={200: Reply("Signed in; the session is in the Set-Cookie header.", Profile, headers=SESSION_SET)},
    problems=(400, 401, 403, 413, 415, 422, 429),
)
def use_device_code(body: Body) -> Answer:
    account = accounts().use_device_code(body["code"], client_address())
    return signed_in_as(account)


@Operation(
    account_api,
    "get",
    "/auth/session",
    id="getSession",
    tag="accounts",
    summary="Whether the caller is signed in, and as whom: signed out is an answer, not a 401 (a revoked token is).",
    security=OPTIONAL_PERSON,
    scope=READ,
    responses={200: Reply("Signed in or not.", SessionState)},
    problems=(401,),
)
def get_session() -> Answer:
    account = signed_in()
    profile = accounts().profile(account) if account else None
    return {"signed_in": profile is not None, "profile": profile}


@Operation(
    account_api,
    "delete",
    "/auth/session",
    id="signOut",
    tag="accounts",
    summary="Sign out: the session ends on the server and its cookie is cleared.",
    security=[{"session": []}],
    scope=ACCOUNT,
    responses={204: Reply("Signed out.", headers=SESSION_CLEARED)},
    problems=(401, 403),
)
def sign_out() -> Answer:
    cookie = request.cookies.get(session_cookie())
    if not cookie or accounts().session_account(cookie) is None:
        raise Unauthorized("not signed in: no session to end")
    accounts().close_session(cookie)
    return clear_session(Response(status=204))


@Operation(
    account_api,
    "delete",
    "/auth/sessions",
    id="signOutEverywhere",
    tag="accounts",
    summary="Sign out everywhere: every session of your account ends on the server (every browser and device "
    "signed in to it), this one's cookie is cleared. Personal access tokens are revoked apart (DELETE /me/tokens/…).",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={204: Reply("Every session ended.", headers=SESSION_CLEARED)},
    problems=(401, 403),
)
def sign_out_everywhere() -> Answer:
    accounts().close_all_sessions(person())
    return clear_session(Response(status=204))


@Operation(
    account_api,
    "get",
    "/me",
    id="getProfile",
    tag="accounts",
    summary="Your profile: the display name others see, and your email, which only you see.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("Your profile.", Profile)},
    problems=(401, 404),
)
def get_profile() -> Answer:
    return accounts().profile(person())


@Operation(
    account_api,
    "patch",
    "/me",
    id="changeProfile",
    tag="accounts",
    summary="Change your display name (seats you take from now on carry it).",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=ProfileChange,
    responses={200: Reply("Your profile.", Profile)},
    problems=(400, 401, 403, 404, 413, 415, 422),
)
def change_profile(body: Body) -> Answer:
    return accounts().rename(person(), body["display_name"])


@Operation(
    account_api,
    "delete",
    "/me",
    id="deleteAccount",
    tag="accounts",
    summary="Delete your account: its email, sessions, tokens and its link to your seats. Games stay as played.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={204: Reply("Deleted.", headers=SESSION_CLEARED)},
    problems=(401, 403, 404),
)
def delete_account() -> Answer:
    account = session_person()
    accounts().delete(account)
    components().ratings.forget(account)  # off the leaderboard; rated games keep their record
    apps().forget_account(account)  # the apps' tokens for it go now, not when they expire
    components().relations.forget(account)  # whom it followed, muted, blocked; what it allowed
    Notes(components().store).forget(account)  # its private notes
    return clear_session(Response(status=204))


@Operation(
    account_api,
    "get",
    "/me/tokens",
    id="listTokens",
    tag="accounts",
    summary="Your personal access tokens, with their last use (never their secrets).",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={200: Reply("Your tokens.", TokenList)},
    problems=(401,),
)
def list_tokens() -> Answer:
    return {"tokens": accounts().tokens(person())}


@Operation(
    account_api,
    "post",
    "/me/tokens",
    id="createToken",
    tag="accounts",
    summary="Make a personal access token for a program; its secret is shown this once.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    headers=RetryKey,
    body=TokenRequest,
    responses={201: Reply("Made.", NewToken)},
    problems=(400, 401, 403, 413, 415, 422),
)
def create_token(body: Body, headers: Body) -> Answer:
    account = session_person()

    def made(plan: Plan) -> Made:
        scopes = token_scopes(account, body.get("scopes"))  # (with `bot` for a bot account's)
        chosen = (plan["id"], plan["token"])
        token = accounts().create_token(account, body["name"], chosen, scopes, body.get("expires_in_days"))
        return {**token.__dict__, "last_used": None}, {}

    return once("createToken", headers, made, lambda: dict(zip(("id", "token"), fresh_token())))


@Operation(
    account_api,
    "delete",
    "/me/tokens/{token}",
    id="revokeToken",
    tag="accounts",
    summary="Revoke a personal access token: it stops working at once.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={204: Reply("Revoked.")},
    problems=(401, 403, 404),
)
def revoke_token(token: str) -> Answer:
    accounts().revoke_token(person(), token)
    return Response(status=204)


@Operation(
    account_api,
    "post",
    "/me/seats",
    id="claimSeats",
    tag="accounts",
    summary="Keep seats in the account named (yours, shown to you and confirmed): each seat token sent proves its "
    "seat (the tokens keep working).",
    security=PERSON,
    scope=PLAY,
    body=SeatClaim,
    responses={200: Reply("The seats now in your account.", Claimed)},
    problems=(400, 401, 403, 409, 413, 415, 422),
)
def claim_seats(body: Body) -> Answer:
    """An account keeps one seat a game: a seat of a game whose other seat it keeps already, or
    the second seat of a game among the tokens, is answered as kept elsewhere, not claimed. The
    body names the account the person saw and confirmed: seats never go to another one (a
    session swapped under the page, by another site's sign-in form, say)."""
    account = person()
    if body["account"] != account:
        raise NotThisAccount(
            f"the seats were to go to account {body['account']}, but this request is signed in to another: "
            "show the person the account they are signed in to and ask again"
        )
    tokens = list(dict.fromkeys(body["tokens"]))
    found = service().seats_of(tokens)
    claimed: dict[str, int] = {}
    elsewhere = []
    for game, seat in found:
        kept = claimed.get(game, accounts().seat_in(account, game))
        if kept is not None and kept != seat:
            elsewhere.append({"game": game, "seat": seat})
            continue
        accounts().add_seat(account, game, seat)
        claimed[game] = seat
    return {
        "claimed": [{"game": game, "seat": seat} for game, seat in claimed.items()],
        "unmatched": len(tokens) - len(found),
        "kept_elsewhere": elsewhere,
    }


@Operation(
    account_api,
    "get",
    "/me/games",
    id="myGames",
    tag="accounts",
    summary="Your games on every device: those where it is your turn first, then by last move, newest first.",
    security=PERSON,
    scope=READ,
    query=Paging,
    responses={200: Reply("Your games.", GameList)},
    problems=(401, 422),
)
def my_games(query: Body) -> Answer:
    seats = accounts().seats(person())
    listed = {}
    for game, summary in service().index.summaries(seats).items():
        with_seat(summary, seats[game])  # my turn first, then by last move:
        listed[f"{int(summary['my_turn'])}:{entry(game, summary['updated'])}"] = summary
    page = page_of(listed, query["limit"], query.get("after"))
    return {"games": page.games, "next": page.next}


@Operation(
    pages,
    "get",
    "/signin",
    id="signInPage",
    tag="service",
    summary="The page an emailed sign-in link opens: one button signs in (a link checker's visit spends nothing).",
    responses={200: Reply("HTML", HTML)},
)
def sign_in_page() -> Answer:
    token = escape(request.args.get("token", ""), quote=True)
    language = page_language()
    form = (
        f'<form method="post" action="/signin?lang={language}"><input type="hidden" name="token" value="{token}">'
        f"<p>{words(language, 'signin.once')}</p>"
        f'<button type="submit">{words(language, "signin.button")}</button></form>'
    )
    return server_page(language, "signin.title", form)


@Operation(
    pages,
    "post",
    "/signin",
    id="signInForm",
    tag="accounts",
    summary="The sign-in page's form: spends the link, sets the session cookie and goes to the lobby.",
    responses={
        303: Reply("Signed in: to the lobby.", headers={**location("The lobby (`/`)."), **SESSION_SET}),
        401: Reply("The link cannot be used.", HTML),
    },
    problems=(),
    rate_limited=False,
)
def sign_in_form() -> Answer:
    try:
        account = accounts().use_link(request.form.get("token", ""))
    except SignInRefused:
        language = page_language()
        body = f'<p>{words(language, "signin.refused")}</p><p><a href="/">{words(language, "signin.back")}</a></p>'
        return server_page(language, "signin.title", body, status=401)
    response = Response(status=303, headers={"Location": "/"})
    return set_session(response, accounts().open_session(account))
