"""The OAuth 2.1 authorization server, through Authlib: its grants (the authorization code with
PKCE, S256 only; refresh tokens that rotate), its client authentication and its revocation
endpoint, over the apps, codes and tokens that application/accounts/oauth.py keeps.

Authlib parses the requests and answers the errors as RFC 6749 §5.2 says (``{"error": ...}``,
which every OAuth client library reads); what is ours is where things are kept and the rules
RFC 9700 adds: a code or refresh token used twice revokes every token of its family."""

from __future__ import annotations

import secrets
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc6749.errors import InvalidRequestError
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from flask import Flask, current_app

from application.accounts import oauth
from application.accounts.oauth import App, OAuthApps, scopes_of
from application.games.game_service import digest

from .requests import components

AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]  #: public apps: none; confidential: their secret


def apps() -> OAuthApps:
    return OAuthApps(components().accounts.store)


def server() -> AuthorizationServer:
    return current_app.extensions["oauth"]


class Client(ClientMixin):
    """An app as Authlib asks about it."""

    def __init__(self, app: App) -> None:
        self.app = app

    def get_client_id(self) -> str:
        return self.app.client_id

    def get_default_redirect_uri(self) -> str | None:
        return self.app.redirect_uris[0] if len(self.app.redirect_uris) == 1 else None

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(scopes_of(scope))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return self.app.takes_redirect(redirect_uri)

    def check_client_secret(self, client_secret: str) -> bool:
        kept = self.app.secret_digest
        return kept is not None and secrets.compare_digest(kept, digest(client_secret))

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none" if self.app.public else method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


class IssuedCode:
    """An authorization code as Authlib asks about it."""

    def __init__(self, code: str, kept: oauth.Code) -> None:
        self.code, self.kept = code, kept
        self.code_challenge, self.code_challenge_method = kept.challenge, kept.method

    def get_redirect_uri(self) -> str:
        return self.kept.redirect_uri

    def get_scope(self) -> str:
        return " ".join(self.kept.scopes)


class IssuedToken:
    """A refresh token as Authlib asks about it."""

    def __init__(self, kept: oauth.Token) -> None:
        self.kept = kept

    def check_client(self, client: Client) -> bool:
        return self.kept.client_id == client.app.client_id

    def get_scope(self) -> str:
        return " ".join(self.kept.scopes)


class Issued:
    """Who the tokens being issued act for, and the family they join (a code's first exchange
    begins one; a refresh continues its token's)."""

    def __init__(self, account: str, family: str) -> None:
        self.account, self.family = account, family


class AuthorizationCode(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

    def save_authorization_code(self, code: str, request: Any) -> None:
        payload = request.payload.data
        apps().issue_code(
            code,
            request.client.get_client_id(),
            request.user,
            request.payload.redirect_uri,
            scopes_of(payload.get("scope")),
            payload.get("code_challenge"),
            payload.get("code_challenge_method") or "plain",
        )

    def query_authorization_code(self, code: str, client: Client) -> IssuedCode | None:
        kept = apps().code(code)
        if kept is None or kept.client_id != client.app.client_id:
            return None
        return IssuedCode(code, kept)

    def delete_authorization_code(self, authorization_code: IssuedCode) -> None:
        pass  # spent in authenticate_user, before the tokens are saved: the family must be known then

    def authenticate_user(self, authorization_code: IssuedCode) -> Issued:
        family = "fam_" + secrets.token_hex(12)
        apps().spend_code(authorization_code.code, family)
        return Issued(authorization_code.kept.account, family)


class RefreshToken(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True  #: rotation: every refresh gives a new refresh token

    def authenticate_refresh_token(self, refresh_token: str) -> IssuedToken | None:
        kept = apps().refreshable(refresh_token)
        if kept is None or not apps().still_allowed(kept.account, kept.client_id):
            return None  # invalid_grant
        return IssuedToken(kept)

    def authenticate_user(self, refresh_token: IssuedToken) -> Issued:
        kept = refresh_token.kept
        return Issued(kept.account, kept.family)

    def revoke_old_credential(self, refresh_token: IssuedToken) -> None:
        apps().spend_refresh(refresh_token.kept)


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = AUTH_METHODS

    def query_token(self, token_string: str, token_type_hint: str | None) -> IssuedToken | None:
        kept = apps().token(token_string)
        return None if kept is None else IssuedToken(kept)

    def revoke_token(self, token: IssuedToken, request: Any) -> None:
        apps().revoke(token.kept)


class S256Only(CodeChallenge):
    """PKCE, required of every app, with S256 only: ``plain`` shows the verifier to whoever sees
    the authorization request (OAuth 2.1 §4.1.1)."""

    DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]  # noqa: RUF012 (Authlib's attribute, a list)

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        if not grant.request.payload.data.get("code_challenge"):
            raise InvalidRequestError("'code_challenge' is required, with 'code_challenge_method=S256' (PKCE)")
        super().validate_code_challenge(grant, redirect_uri)


def _query_client(client_id: str) -> Client | None:
    app = apps().app(client_id or "")
    return None if app is None else Client(app)


def _save_token(token: dict[str, Any], request: Any) -> None:
    issued: Issued = request.user
    apps().issue_tokens(
        token["access_token"],
        token["refresh_token"],
        request.client.get_client_id(),
        issued.account,
        tuple(token.get("scope", "").split()),
        issued.family,
    )


def _made(prefix: str) -> Any:
    return lambda *args, **kwargs: prefix + secrets.token_urlsafe(32)


def install(app: Flask) -> None:
    """The authorization server, kept in ``app.extensions["oauth"]``."""
    made = AuthorizationServer(query_client=_query_client, save_token=_save_token)
    made.init_app(app)
    made.register_token_generator(
        "default",
        BearerTokenGenerator(
            _made(oauth.ACCESS_PREFIX), _made(oauth.REFRESH_PREFIX), lambda client, grant_type: oauth.ACCESS_SECONDS
        ),
    )
    made.scopes_supported = list(oauth.APP_SCOPES)
    made.register_grant(AuthorizationCode, [S256Only(required=True)])
    made.register_grant(RefreshToken)
    made.register_endpoint(Revocation)
    app.extensions["oauth"] = made
