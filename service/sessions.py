"""The page's session cookie, and the Origin check that keeps other sites from using it.

The cookie is ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (another site's forms and
scripts do not send it) and ``Secure`` when the public origin (``PUBLIC_URL``) is https. SameSite
does not cover a page of the same site on another port or subdomain, so every unsafe request
that the cookie authenticates must come from the service's own origin (its ``Origin``
header, or the ``Referer``'s origin when a browser sends no Origin): anything else is 403,
before the request is read. Requests with an ``Authorization`` header are not authenticated by
the cookie (requests.py ``signed_in``), so programs and other origins using tokens are unaffected.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from flask import Flask, Response, request

from application.accounts import SESSION_SECONDS
from application.codec import dumps

from . import schemas
from .problems import problem
from .requests import SESSION_COOKIE, accounts

SAFE = {"GET", "HEAD", "OPTIONS"}


def public_origin() -> str | None:
    """The origin people reach the service at (``PUBLIC_URL``), when it is configured."""
    url = os.environ.get("PUBLIC_URL")
    return _origin(url) if url else None


def _origin(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else None


def own_origin() -> str:
    """The service's own origin: the public one when configured, else the origin the request
    was addressed to (a local run on localhost). Cookie-authenticated writes must come from it,
    sign-in links point to it, and passkeys belong to its host."""
    return public_origin() or _origin(request.host_url) or request.host_url.rstrip("/")


def set_session(response: Response, token: str) -> Response:
    secure = (public_origin() or "").startswith("https://")
    response.set_cookie(
        SESSION_COOKIE, token, max_age=SESSION_SECONDS, httponly=True, samesite="Lax", secure=secure, path="/"
    )
    return response


def signed_in_as(account: str) -> Response:
    """The answer to a sign-in (by link, code or passkey): the profile, and a new session's cookie."""
    profile = schemas.Profile().dump(accounts().profile(account))
    response = Response(dumps(profile), status=200, mimetype="application/json")
    return set_session(response, accounts().open_session(account))


def clear_session(response: Response) -> Response:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="Lax")
    return response


def install(app: Flask) -> None:
    @app.before_request
    def _same_origin_only() -> Response | None:
        if request.method in SAFE or SESSION_COOKIE not in request.cookies or "Authorization" in request.headers:
            return None
        origin = (request.headers.get("Origin") or "").lower() or _origin(request.headers.get("Referer"))
        if origin == own_origin():
            return None
        return problem(
            403,
            "cross_origin",
            "Refused from another origin",
            f"a request signed in by the session cookie must come from this service's own pages, not from "
            f"{origin or 'a page that sent no Origin'}; programs use 'Authorization: Bearer <personal access token>'",
        )
