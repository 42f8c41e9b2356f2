"""OAuth 2.1 for apps (application/accounts/oauth.py, service/oauth_server.py): a developer registers an
app; a person allows it on the consent page; the app exchanges the code (with its PKCE verifier) for
tokens, refreshes and revokes them; the person lists the apps they allowed and revokes one.

The token and revocation endpoints answer errors as OAuth clients expect them (RFC 6749 §5.2:
``{"error": ...}``), not as problem documents: every OAuth library reads that shape. Everything else
(registering apps, the person's list, an authorization request whose app or redirect cannot be
trusted) answers problems, as the rest of the API does."""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import urlsplit

from authlib.oauth2 import OAuth2Error
from flask import Blueprint, Response, request

from application.accounts import oauth
from application.accounts.oauth import APP_SCOPES, loopback, scopes_of
from application.accounts.scopes import ACCOUNT
from application.outbound.app_webhooks import AppWebhooks
from application.refusals import ServiceError

from ..browser_policy import CONTENT_SECURITY_POLICY
from ..oauth_server import apps, server
from ..operation import SESSION_ONLY, SESSION_ONLY_TEXT, Answer, Body, Operation, Reply, location
from ..origin import own_origin, session_cookie
from ..requests import accounts, components, session_person
from ..schemas.oauth import (
    AllowedApps,
    AppRequest,
    AppWebhook,
    AppWebhookRequest,
    NewApp,
    OAuthMetadata,
    OAuthTokens,
    RegisteredApps,
    Revoked,
)
from ..server_pages import page_language, server_page, words
from .meta_routes import HTML, pages

oauth_api = Blueprint("oauth", __name__)

FORM = "The parameters are form fields (`application/x-www-form-urlencoded`), as RFC 6749 prescribes."
OAUTH_ERRORS = {"application/json": {"schema": {"$ref": "#/components/schemas/OAuthError"}}}
NO_STORE = {"Cache-Control": {"description": "`no-store`: tokens are never cached.", "schema": {"type": "string"}}}
APP_REDIRECT = location("The app's redirect URI, with the answer in its query.")
CHALLENGE = {
    "WWW-Authenticate": {
        "description": "`Basic error=...`, when the app sent its secret in an Authorization header.",
        "schema": {"type": "string"},
    }
}
AUTHORIZE_QUERY = (
    "Query: `response_type=code`, `client_id`, `redirect_uri` (one the app registered; optional when it "
    "registered one), `scope` (space-separated among "
    f"{', '.join(f'`{s}`' for s in APP_SCOPES)}; `read` when left out; never `{ACCOUNT}`), `state`, "
    "`code_challenge` (base64url SHA-256 of the verifier) and `code_challenge_method=S256` (PKCE is required; "
    "`plain` is refused)."
)


RETURN_COOKIE = "bm_oauth_return"  #: the consent page a person not yet signed in comes back to
RETURN_SECONDS = 15 * 60  #: as long as the sign-in link they ask for lasts
RETURNS_TO = "/oauth/authorize?"  #: the only place the cookie may send anyone back to


@pages.after_app_request
def _back_to_the_consent_page(response: Response) -> Response:
    """After a sign-in by the emailed link (the /signin form's 303 to the lobby), go back to the
    consent page that asked for it instead, and forget it. Only a path of the consent page is
    followed, so a cookie planted by anyone else sends no one elsewhere (and consent is still asked)."""
    back = request.cookies.get(RETURN_COOKIE, "")
    signed_in_by_link = request.method == "POST" and request.path == "/signin" and response.status_code == 303
    if signed_in_by_link and back.startswith(RETURNS_TO) and "\\" not in back:
        response.headers["Location"] = back
        response.delete_cookie(RETURN_COOKIE, path="/", httponly=True, samesite="Lax")
    return response


class AuthorizationRefused(ServiceError):
    """An authorization request whose app or redirect cannot be trusted: no answer may go to its redirect."""

    status, code, title = 400, "authorization_refused", "This authorization request cannot be answered"


def _consent_request(account: str | None) -> Any:
    """Authlib's grant for this authorization request; an error it may send to the app's redirect
    is that redirect (a Response); one it may not (an unknown app, a redirect the app did not
    register) is a problem."""
    try:
        return server().get_consent_grant(end_user=account)
    except OAuth2Error as error:
        if getattr(error, "redirect_uri", None):
            return server().handle_error_response(None, error)
        raise AuthorizationRefused(
            f"{(error.description or error.error).rstrip('.')}: nothing is sent to the redirect; check client_id and "
            "redirect_uri against the app's registration (a redirect is matched exactly, a loopback one on any port)"
        ) from None


def _signed_in_here() -> str | None:
    """The person signed in by the page's session (the consent page is the person's, never a token's)."""
    cookie = request.cookies.get(session_cookie())
    return accounts().session_account(cookie) if cookie else None


def _sign_in_first(language: str) -> str:
    return f'<p>{words(language, "oauth.signInFirst")}</p><p><a href="/">{words(language, "oauth.signIn")}</a></p>'


def _where(redirect_uri: str) -> str:
    """Where an answer goes, as the person reads it, and as the consent page's form-action allows it."""
    parts = urlsplit(redirect_uri)
    if loopback(redirect_uri):
        return f"{parts.scheme}://{parts.hostname if ':' not in (parts.hostname or '') else f'[{parts.hostname}]'}:*"
    if parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


@Operation(
    pages,
    "get",
    "/oauth/authorize",
    id="oauthAuthorizePage",
    tag="oauth",
    summary="The consent page (RFC 6749 §4.1.1): the app's name and the scopes it asks for, in your language; "
    "Allow or Deny.",
    description=f"{AUTHORIZE_QUERY} Not signed in: the page asks you to sign in first. An app or redirect that "
    "cannot be trusted: a problem (nothing is sent to the redirect); another bad request: back to the app's "
    "redirect with `error` (RFC 6749 §4.1.2.1).",
    responses={
        200: Reply(
            "HTML: the consent page, or the request to sign in first.",
            HTML,
            headers={
                "Set-Cookie": {
                    "description": f"Not signed in: `{RETURN_COOKIE}` (HttpOnly, SameSite=Lax, {RETURN_SECONDS // 60} "
                    "minutes), so that signing in by the emailed link comes back to this page.",
                    "schema": {"type": "string"},
                }
            },
        ),
        302: Reply("To the app's redirect with `error` and `state`.", headers=APP_REDIRECT),
    },
    problems=(400,),
)
def authorize_page() -> Answer:
    account = _signed_in_here()
    grant = _consent_request(account)
    if isinstance(grant, Response):
        return grant
    language = page_language()
    if account is None:
        page = server_page(language, "oauth.title", _sign_in_first(language))
        here = f"/oauth/authorize?{request.query_string.decode()}"
        page.set_cookie(RETURN_COOKIE, here, max_age=RETURN_SECONDS, httponly=True, samesite="Lax", path="/")
        return page
    app = grant.client.app
    redirect_uri = grant.request.payload.redirect_uri or app.redirect_uris[0]
    asked = "".join(
        f"<li>{words(language, f'oauth.scope.{scope}')}</li>" for scope in scopes_of(grant.request.payload.scope)
    )
    action = escape(f"/oauth/authorize?{request.query_string.decode()}", quote=True)
    body = (
        f"<p>{words(language, 'oauth.asks', app=app.name)}</p><ul>{asked}</ul>"
        f"<p>{words(language, 'oauth.never')}</p><p>{words(language, 'oauth.returns', place=_where(redirect_uri))}</p>"
        f'<form method="post" action="{action}">'
        f'<button type="submit" name="decision" value="allow">{words(language, "oauth.allow")}</button> '
        f'<button type="submit" name="decision" value="deny">{words(language, "oauth.deny")}</button></form>'
    )
    page = server_page(language, "oauth.title", body)
    # The form's answer redirects to the app: CSP's form-action must allow that redirect too.
    page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'", f"form-action 'self' {_where(redirect_uri)}"
    )
    return page


@Operation(
    pages,
    "post",
    "/oauth/authorize",
    id="oauthAuthorize",
    tag="oauth",
    summary="The consent page's form: `decision=allow` sends the app a code, `deny` sends `access_denied`.",
    description=f"Same query as the page. Only the signed-in session, from this service's own pages (its Origin "
    f"is checked, and the cookie is SameSite): another site cannot allow an app for you. The code lasts "
    f"{oauth.CODE_SECONDS} seconds and is exchanged once.",
    responses={
        302: Reply("To the app's redirect with `code` and `state`, or `error`.", headers=APP_REDIRECT),
        401: Reply("HTML: not signed in (any more); sign in and open the app's link again.", HTML),
    },
    problems=(400,),
    rate_limited=False,
)
def authorize() -> Answer:
    account = _signed_in_here()
    if account is None:  # (the session ended meanwhile): a page, since a browser's form posted this
        return server_page(page_language(), "oauth.title", _sign_in_first(page_language()), status=401)
    grant = _consent_request(account)
    if isinstance(grant, Response):
        return grant
    allowed = request.form.get("decision") == "allow"
    return server().create_authorization_response(grant=grant, grant_user=account if allowed else None)


@Operation(
    oauth_api,
    "post",
    "/oauth/token",
    id="oauthToken",
    tag="oauth",
    summary="Exchange a code (with its PKCE verifier) or a refresh token for an access token and a new refresh "
    "token (RFC 6749 §4.1.3, §6).",
    description=f"{FORM} `grant_type=authorization_code` with `code`, `redirect_uri` (as sent to authorize), "
    "`code_verifier` and `client_id`; or `grant_type=refresh_token` with `refresh_token` and `client_id`. A "
    "confidential app authenticates with its secret (HTTP Basic, or `client_secret`). The access token "
    f"lasts {oauth.ACCESS_SECONDS} seconds; the refresh token is exchanged once ({oauth.REFRESH_SECONDS // 86400} "
    "days unused and it expires): a code or refresh token used a second time revokes every token issued from "
    'that code (RFC 9700). Errors are OAuth\'s JSON (`{"error": ...}`, RFC 6749 §5.2), not problems.',
    responses={
        200: Reply("The tokens.", OAuthTokens, headers=NO_STORE),
        400: Reply(
            "`invalid_request`, `invalid_grant` (a code or refresh token unknown, spent, expired or another app's; a "
            "wrong verifier or redirect), `unsupported_grant_type`, `invalid_client` (an unknown `client_id`), ...",
            OAUTH_ERRORS,
            NO_STORE,
        ),
        401: Reply("`invalid_client`: a missing or wrong secret.", OAUTH_ERRORS, {**NO_STORE, **CHALLENGE}),
    },
    problems=(),
)
def token() -> Answer:
    return server().create_token_response()


@Operation(
    oauth_api,
    "post",
    "/oauth/revoke",
    id="oauthRevoke",
    tag="oauth",
    summary="Revoke an access or refresh token (RFC 7009); a refresh token takes every token of its family along.",
    description=f"{FORM} `token`, optional `token_type_hint`, and the app's `client_id` (or its secret). An "
    "unknown token is answered 200 too, as RFC 7009 says.",
    responses={
        200: Reply("Revoked (or it was unknown).", Revoked, headers=NO_STORE),
        400: Reply(
            "`invalid_request`, `unsupported_token_type`, `invalid_client` (an unknown `client_id`).",
            OAUTH_ERRORS,
            NO_STORE,
        ),
        401: Reply("`invalid_client`.", OAUTH_ERRORS, {**NO_STORE, **CHALLENGE}),
    },
    problems=(),
)
def revoke() -> Answer:
    return server().create_endpoint_response("revocation")


@Operation(
    oauth_api,
    "get",
    "/.well-known/oauth-authorization-server",
    id="oauthMetadata",
    tag="oauth",
    summary="The authorization server's metadata (RFC 8414): its endpoints and what it supports.",
    responses={200: Reply("The metadata.", OAuthMetadata)},
    problems=(),
)
def metadata() -> Answer:
    origin = own_origin()
    return {
        "issuer": origin,
        "authorization_endpoint": f"{origin}/oauth/authorize",
        "token_endpoint": f"{origin}/oauth/token",
        "revocation_endpoint": f"{origin}/oauth/revoke",
        "registration_endpoint": f"{origin}/oauth/apps",
        "service_documentation": f"{origin}/docs",
        "scopes_supported": list(APP_SCOPES),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
    }


@Operation(
    oauth_api,
    "post",
    "/oauth/apps",
    id="registerApp",
    tag="oauth",
    summary="Register an app that people may allow to act for them; a confidential app's secret is shown once.",
    description=f"{SESSION_ONLY_TEXT} An account registers at most {oauth.MAX_APPS} apps, each with at most "
    f"{oauth.MAX_REDIRECTS} redirect URIs. This is a signed-in session's operation, not RFC 7591's open "
    "registration: every app has an accountable owner.",
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=AppRequest,
    responses={201: Reply("Registered.", NewApp)},
    problems=(400, 401, 413, 415, 422),
)
def register_app(body: Body) -> Answer:
    app, secret = apps().register(session_person(), body["name"], body["redirect_uris"], body["public"])
    return {**app.shown(), **({"client_secret": secret} if secret else {})}


@Operation(
    oauth_api,
    "get",
    "/oauth/apps",
    id="listRegisteredApps",
    tag="oauth",
    summary="The apps you registered, oldest first (their secrets are never shown again).",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={200: Reply("Your registered apps.", RegisteredApps)},
    problems=(401,),
)
def registered_apps() -> Answer:
    return {"apps": [app.shown() for app in apps().apps_of(session_person())]}


@Operation(
    oauth_api,
    "get",
    "/me/apps",
    id="listAllowedApps",
    tag="oauth",
    summary="The apps you allowed to act for you, with the scopes you allowed.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={200: Reply("Your apps.", AllowedApps)},
    problems=(401,),
)
def allowed_apps() -> Answer:
    return {"apps": apps().allowed(session_person())}


@Operation(
    oauth_api,
    "delete",
    "/me/apps/{app}",
    id="revokeApp",
    tag="oauth",
    summary="Revoke an app you allowed: every token it holds for you stops working at once.",
    description=SESSION_ONLY_TEXT,
    security=SESSION_ONLY,
    scope=ACCOUNT,
    responses={204: Reply("Revoked.")},
    problems=(401, 404),
)
def revoke_app(app: str) -> Answer:
    apps().forget_app(session_person(), app)
    return Response(status=204)


@Operation(
    oauth_api,
    "put",
    "/oauth/apps/{app}/webhook",
    id="setAppWebhook",
    tag="oauth",
    summary="Set, replace (a new secret, shown once) or remove (`url` null) your app's webhook for its people's news.",
    description=f"{SESSION_ONLY_TEXT} Its owner's only. Every item of the stream (`GET /me/stream`) of each person "
    "who allowed the app `read` is POSTed there with the person's `account`, signed and retried as game webhooks are.",
    security=SESSION_ONLY,
    scope=ACCOUNT,
    body=AppWebhookRequest,
    responses={200: Reply("Set.", AppWebhook), 204: Reply("Removed.")},
    problems=(400, 401, 404, 413, 415, 422),
)
def set_app_webhook(body: Body, app: str) -> Answer:
    hooks = AppWebhooks(components().accounts.store)
    if body["url"] is None:
        hooks.remove(session_person(), app)
        return Response(status=204)
    return hooks.set(session_person(), app, body["url"])
