"""OAuth apps (application/accounts/oauth.py, service/routes/oauth_routes.py): registering an app, the
token endpoint's answers (RFC 6749 §5.1, §5.2), the server's metadata (RFC 8414) and the apps a person allowed."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from application.accounts.oauth import APP_SCOPES, MAX_REDIRECTS, redirect_problem

from .common import Strict, shown_to_others


def _redirect(uri: str) -> None:
    problem = redirect_problem(uri)
    if problem is not None:
        raise ValidationError(problem)


class AppRequest(Strict):
    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=60), shown_to_others],
        metadata={"description": "The app's name, shown to people on the consent page and in their list of apps."},
    )
    redirect_uris = fields.List(
        fields.String(validate=[validate.Length(min=1, max=500), _redirect]),
        required=True,
        validate=validate.Length(min=1, max=MAX_REDIRECTS),
        metadata={
            "description": "Where the authorization answer may go, matched exactly: `https://...` for a web app; "
            "`http://127.0.0.1/...` or `http://[::1]/...` for a native app listening on the loopback address (any "
            "port is then accepted, RFC 8252 §7.3); or a private-use scheme, `com.example.app:/callback` "
            f"(RFC 8252 §7.1). At most {MAX_REDIRECTS}."
        },
    )
    public = fields.Boolean(
        load_default=True,
        metadata={
            "description": "true (the default): a native or browser app, which keeps no secret and proves "
            "itself with PKCE alone; false: a web app with a server, given a `client_secret` once."
        },
    )


class App(Schema):
    client_id = fields.String(required=True)
    name = fields.String(required=True)
    redirect_uris = fields.List(fields.String(), required=True)
    public = fields.Boolean(required=True)
    created = fields.String(required=True)


class NewApp(App):
    client_secret = fields.String(
        metadata={"description": "A confidential app's secret, shown this once (none for a public app)."}
    )


class RegisteredApps(Schema):
    apps = fields.List(fields.Nested(App), required=True)


class OAuthTokens(Schema):
    """RFC 6749 §5.1."""

    access_token = fields.String(required=True, metadata={"description": "`bma_...`: send it as a bearer token."})
    token_type = fields.String(required=True, metadata={"description": "`Bearer`."})
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds the access token lasts (3600)."})
    refresh_token = fields.String(
        required=True,
        metadata={"description": "`bmr_...`: exchange it once for new tokens; a second use revokes them all."},
    )
    scope = fields.String(required=True, metadata={"description": "The scopes granted, space-separated."})


class OAuthError(Schema):
    """RFC 6749 §5.2: what OAuth clients read from the token and revocation endpoints (not a problem document)."""

    error = fields.String(
        required=True,
        metadata={
            "description": "`invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, "
            "`unsupported_grant_type`, `invalid_scope` or `unsupported_token_type`."
        },
    )
    error_description = fields.String(metadata={"description": "What is wrong, in English."})


class Revoked(Schema):
    """RFC 7009 §2.2: an empty object, whether or not the token was known."""


class OAuthMetadata(Schema):
    """RFC 8414."""

    issuer = fields.String(required=True)
    authorization_endpoint = fields.String(required=True)
    token_endpoint = fields.String(required=True)
    revocation_endpoint = fields.String(required=True)
    registration_endpoint = fields.String(required=True)
    service_documentation = fields.String(required=True)
    scopes_supported = fields.List(fields.String(), required=True, metadata={"example": list(APP_SCOPES)})
    response_types_supported = fields.List(fields.String(), required=True)
    response_modes_supported = fields.List(fields.String(), required=True)
    grant_types_supported = fields.List(fields.String(), required=True)
    code_challenge_methods_supported = fields.List(fields.String(), required=True)
    token_endpoint_auth_methods_supported = fields.List(fields.String(), required=True)
    revocation_endpoint_auth_methods_supported = fields.List(fields.String(), required=True)


class AllowedApp(Schema):
    client_id = fields.String(required=True)
    name = fields.String(required=True)
    scopes = fields.List(fields.String(), required=True)
    allowed = fields.String(required=True, metadata={"description": "When you first allowed it."})


class AllowedApps(Schema):
    apps = fields.List(fields.Nested(AllowedApp), required=True)


class AppWebhookRequest(Strict):
    url = fields.String(
        required=True,
        allow_none=True,
        validate=[validate.Length(max=2000), validate.URL(schemes={"http", "https"}, require_tld=False)],
    )


class AppWebhook(Schema):
    url = fields.String(required=True)
    secret = fields.String(required=True)
