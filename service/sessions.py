"""The page's session cookie, and the Origin checks that keep other sites from using it or
from planting one.

The cookie is ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (another site's forms and
scripts do not send it), and on https (``PUBLIC_URL``) ``Secure`` and named
``__Host-bm_session`` (Path=/, no Domain: a sibling subdomain cannot set or shadow it). SameSite
does not cover a page of the same site on another port or subdomain, so every unsafe request
that the cookie authenticates must come from the service's own origin (service/origin.py: its
``Origin`` header, or the ``Referer``'s origin when a browser sends no Origin): anything else is
403, before the request is read. Requests with an ``Authorization`` header are not
authenticated by the cookie (requests.py ``signed_in``), so programs and other origins using
tokens are unaffected.

A request that starts a session (``SIGNS_IN``) is checked whatever cookies it carries: another
site's form must not sign the visitor in to the attacker's account (login CSRF), whose page
would then collect the visitor's seats. A browser always says where such a request comes from:
its ``Origin`` (else its ``Referer``'s) must be the service's own, and a request with neither
must not say ``Sec-Fetch-Site`` other than ``same-origin``; a request with none of the three is a
program's, which no other site can make a browser send. Signing in ends the session the
request came with (session fixation): the new one has a new id.
"""

from __future__ import annotations

from flask import Flask, Response, request

from application.accounts.account_service import SESSION_SECONDS
from application.games.codec import dumps

from .origin import origin_of, own_origin, secure, session_cookie
from .problems import problem
from .requests import accounts
from .schemas.accounts import Profile

SAFE = {"GET", "HEAD", "OPTIONS"}
#: The requests that start a session (method, route): each must come from the service's own pages.
SIGNS_IN = {
    ("POST", "/signin"),
    ("POST", "/auth/email-link/use"),
    ("POST", "/auth/device-code"),
    ("POST", "/auth/passkeys/sign-in"),
    ("POST", "/auth/passkeys"),  # a sign-up's first session
}

#: Requests the cookie never authenticates, whatever they carry: an app's calls to the OAuth token
#: and revocation endpoints (service/routes/oauth_routes.py), which authenticate the app itself.
NOT_BY_COOKIE = {("POST", "/oauth/token"), ("POST", "/oauth/revoke")}


class CrossOrigin(Exception):
    """A request that must come from the service's own pages came from ``origin`` (None: unsaid)."""

    def __init__(self, origin: str | None) -> None:
        super().__init__(origin)
        self.origin = origin


def _sender() -> str | None:
    """The origin the request says it came from: ``Origin``, else the ``Referer``'s."""
    return (request.headers.get("Origin") or "").lower() or origin_of(request.headers.get("Referer"))


def _refused(origin: str | None, what: str) -> Response:
    return problem(
        403,
        "cross_origin",
        "Refused from another origin",
        f"{what} must come from this service's own pages ({own_origin()}), not from "
        f"{origin or 'a page that sent no Origin'}; programs use 'Authorization: Bearer <personal access token>'",
    )


def check_signing_in() -> None:
    """Raise CrossOrigin unless a request that starts a session comes from the service's own
    pages, or from a program (no Origin, Sec-Fetch-Site or Referer at all)."""
    headers = request.headers
    if "Origin" in headers or "Referer" in headers:
        if _sender() != own_origin():
            raise CrossOrigin(_sender())
    elif headers.get("Sec-Fetch-Site", "same-origin") != "same-origin":
        raise CrossOrigin(None)


def set_session(response: Response, token: str) -> Response:
    """Give ``response`` the new session ``token``'s cookie, ending the session the request came
    with (a planted or an older session id never becomes the signed-in one). Checks again that
    the request comes from the service's own pages (every sign-in passes here)."""
    check_signing_in()
    old = request.cookies.get(session_cookie())
    if old:
        accounts().close_session(old)
    response.set_cookie(
        session_cookie(), token, max_age=SESSION_SECONDS, httponly=True, samesite="Lax", secure=secure(), path="/"
    )
    return response


def signed_in_as(account: str) -> Response:
    """The answer to a sign-in (by link, code or passkey): the profile, and a new session's cookie."""
    profile = Profile().dump(accounts().profile(account))
    response = Response(dumps(profile), status=200, mimetype="application/json")
    return set_session(response, accounts().open_session(account))


def clear_session(response: Response) -> Response:
    response.delete_cookie(session_cookie(), path="/", httponly=True, samesite="Lax", secure=secure())
    return response


def install(app: Flask) -> None:
    @app.errorhandler(CrossOrigin)
    def _cross_origin(error: CrossOrigin) -> Response:
        return _refused(error.origin, "signing in")

    @app.before_request
    def _same_origin_only() -> Response | None:
        # a WebSocket opens with a GET but then carries commands (the play socket): a socket the
        # cookie signs in must come from this service's pages too (cross-site WebSocket hijacking)
        if request.method in SAFE and request.headers.get("Upgrade", "").lower() != "websocket":
            return None
        rule = request.url_rule.rule if request.url_rule else None
        if (request.method, rule) in SIGNS_IN:
            check_signing_in()  # whatever cookies it carries
        if session_cookie() not in request.cookies or "Authorization" in request.headers:
            return None
        if (request.method, rule) in NOT_BY_COOKIE:
            return None
        origin = _sender()
        if origin == own_origin():
            return None
        return _refused(origin, "a request signed in by the session cookie")
