"""OAuth apps: programs other people install, which act for a person who allowed them, with the
scopes the person allowed and nothing else (OAuth 2.1, RFC 9700's advice).

What is kept here, in Redis: the apps developers register (``register``), the authorization
codes (``issue_code``/``spend_code``), the access and refresh tokens (``issue_tokens``,
``rotate``), and which apps each person allowed (``allowed``, ``forget_app``). The protocol itself
(parsing requests, PKCE, client authentication, the error answers) is Authlib's, in
service/oauth_server.py. Every secret is stored only as its SHA-256, as the personal access
tokens are (account_service.py).

Every token issued from one authorization code is one *family*: the code's first exchange and
each refresh after it. A code or a refresh token used a second time means someone else holds a
copy, so the whole family is revoked (RFC 9700 §4.14, §4.2.4 of RFC 6749). No app is ever
granted ``account`` (scopes.py): an app acts in games, never on the person's credentials.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from application.games.game_service import digest
from application.refusals import NotFound, ServiceError
from events import keys
from events.redis_store import RedisStore, text
from events.serialization import now

from .account_service import Grant
from .scopes import READ, SCOPES, TOKEN_SCOPES

ACCESS_SECONDS = 3600  #: an access token lasts an hour; the app refreshes it
REFRESH_SECONDS = 30 * 24 * 3600  #: a refresh token unused for 30 days expires (each refresh makes a new one)
CODE_SECONDS = 60  #: an authorization code must be exchanged within a minute, once
MAX_APPS = 20  #: apps one account may register
MAX_REDIRECTS = 10  #: redirect URIs one app may register
MAX_FAMILIES = 20  #: live token families one person's grant to one app keeps (the oldest is revoked past it)
APP_SCOPES = TOKEN_SCOPES  #: what an app may be allowed: everything but ``account``
DEFAULT_SCOPES = (READ,)  #: what an app asking for no scope gets

CLIENT_PREFIX, SECRET_PREFIX = "app_", "bmcs_"
CODE_PREFIX, ACCESS_PREFIX, REFRESH_PREFIX = "bmc_", "bma_", "bmr_"
LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")  #: RFC 8252 §7.3: any port is accepted on these


class TooManyApps(ServiceError):
    status, code, title = 422, "too_many_apps", "Too many apps"


@dataclass(frozen=True)
class App:
    """A registered app (an OAuth client)."""

    client_id: str
    name: str
    owner: str
    redirect_uris: tuple[str, ...]
    public: bool
    created: str
    secret_digest: str | None = None

    def takes_redirect(self, uri: str) -> bool:
        """Whether ``uri`` is one of the app's redirect URIs: exactly, or for a loopback one on any
        port (a native app listens on whatever port it gets, RFC 8252 §7.3)."""
        return uri in self.redirect_uris or any(_same_but_port(uri, kept) for kept in self.redirect_uris)

    def shown(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "name": self.name,
            "redirect_uris": list(self.redirect_uris),
            "public": self.public,
            "created": self.created,
        }


@dataclass(frozen=True)
class Code:
    """An authorization code as issued: whose, for which app and redirect, with its PKCE challenge."""

    client_id: str
    account: str
    redirect_uri: str
    scopes: tuple[str, ...]
    challenge: str
    method: str
    spent: str | None = None  #: the family its exchange began, once exchanged


@dataclass(frozen=True)
class Token:
    """An access or refresh token as kept."""

    digest: str
    kind: str  #: "access" or "refresh"
    client_id: str
    account: str
    family: str
    scopes: tuple[str, ...]
    expires_at: float
    spent: bool = False  #: a refresh token already exchanged for its successor


def loopback(uri: str) -> bool:
    """An ``http`` redirect to this device (RFC 8252 §7.3)."""
    parts = urlsplit(uri)
    return parts.scheme == "http" and (parts.hostname or "") in ("127.0.0.1", "::1", "localhost")


def _same_but_port(uri: str, kept: str) -> bool:
    if not (loopback(uri) and loopback(kept)):
        return False
    a, b = urlsplit(uri), urlsplit(kept)
    return (a.hostname, a.path, a.query, a.fragment) == (b.hostname, b.path, b.query, b.fragment)


def redirect_problem(uri: str) -> str | None:
    """What is wrong with ``uri`` as an app's redirect URI (None: nothing): https for web apps,
    http only to a loopback address, or a private-use scheme with a dot (``com.example.app:/cb``,
    RFC 8252 §7.1); never a fragment."""
    parts = urlsplit(uri)
    if parts.fragment or "#" in uri:
        return "must have no fragment (RFC 6749 §3.1.2)"
    if parts.scheme == "https":
        return None if parts.hostname else "must name a host"
    if parts.scheme == "http":
        return None if loopback(uri) else "http is only for a loopback address (127.0.0.1, [::1]); use https"
    if "." in parts.scheme and not parts.netloc:
        return None  # a native app's private-use scheme, reverse domain name
    return "must be https, http to a loopback address, or a private-use scheme such as com.example.app:/callback"


def scopes_of(asked: str | None) -> tuple[str, ...]:
    """The scopes a space-separated ``scope`` names, in the vocabulary's order (the default when none)."""
    named = set((asked or "").split()) or set(DEFAULT_SCOPES)
    return tuple(scope for scope in SCOPES if scope in named)


class OAuthApps:
    """The apps, their codes and tokens, and each person's grants, in Redis."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    # -- apps ---------------------------------------------------------------------------------

    def register(self, owner: str, name: str, redirect_uris: list[str], public: bool) -> tuple[App, str | None]:
        """A new app of ``owner``'s; with its client secret (shown once) when it is confidential."""
        made = keys.account_oauth_apps(owner)
        if self.client.scard(made) >= MAX_APPS:
            raise TooManyApps(f"an account registers at most {MAX_APPS} apps", limit="MAX_APPS")
        client_id = CLIENT_PREFIX + secrets.token_hex(12)
        secret = None if public else SECRET_PREFIX + secrets.token_urlsafe(32)
        unique = tuple(dict.fromkeys(redirect_uris))
        app = App(client_id, name, owner, unique, public, now(), None if secret is None else digest(secret))
        record = keys.oauth_app(client_id)
        self.store.durably(record, lambda c: c.set(record, json.dumps(app.__dict__)))
        self.client.sadd(made, client_id)
        return app, secret

    def apps_of(self, owner: str) -> list[App]:
        """The apps ``owner`` registered, oldest first."""
        found = [self.app(text(client_id)) for client_id in self.client.smembers(keys.account_oauth_apps(owner))]
        return sorted((app for app in found if app is not None), key=lambda app: (app.created, app.client_id))

    def app(self, client_id: str) -> App | None:
        raw = self.client.get(keys.oauth_app(client_id)) if client_id.startswith(CLIENT_PREFIX) else None
        if raw is None:
            return None
        found = json.loads(raw)
        return App(**{**found, "redirect_uris": tuple(found["redirect_uris"])})

    # -- codes --------------------------------------------------------------------------------

    def issue_code(
        self,
        code: str,
        client_id: str,
        account: str,
        redirect_uri: str,
        scopes: tuple[str, ...],
        challenge: str,
        method: str,
    ) -> None:
        """Keep ``code`` (made by Authlib) for a minute, and note that ``account`` allowed the app."""
        record = Code(client_id, account, redirect_uri, scopes, challenge, method)
        key = keys.oauth_code(digest(code))
        self.store.durably(key, lambda c: c.set(key, json.dumps(record.__dict__), ex=CODE_SECONDS))
        self._note_grant(account, client_id, scopes)

    def code(self, code: str) -> Code | None:
        """The code as issued, for its exchange; a code exchanged before revokes every token its
        first exchange began and is None (RFC 6749 §4.1.2, RFC 9700 §4.2.4)."""
        raw = self.client.get(keys.oauth_code(digest(code)))
        if raw is None:
            return None
        found = json.loads(raw)
        record = Code(**{**found, "scopes": tuple(found["scopes"])})
        if record.spent is not None:
            self.revoke_family(record.spent)
            return None
        return record

    def spend_code(self, code: str, family: str) -> None:
        """Mark the code exchanged (kept until it would have expired, so that a second use is seen)."""
        key = keys.oauth_code(digest(code))
        raw = self.client.get(key)
        if raw is not None:
            self.client.set(key, json.dumps({**json.loads(raw), "spent": family}), keepttl=True)

    # -- tokens -------------------------------------------------------------------------------

    def issue_tokens(
        self, access: str, refresh: str, client_id: str, account: str, scopes: tuple[str, ...], family: str
    ) -> None:
        """Keep a new access token and refresh token of ``family``."""
        members = keys.oauth_family(family)
        stamp = time.time()
        for token, kind, seconds in ((access, "access", ACCESS_SECONDS), (refresh, "refresh", REFRESH_SECONDS)):
            record = Token(digest(token), kind, client_id, account, family, scopes, stamp + seconds)
            self._keep(record, seconds)
            self.client.sadd(members, record.digest)
        self.client.expire(members, REFRESH_SECONDS)
        self._add_family(account, client_id, family)

    def _keep(self, record: Token, seconds: int) -> None:
        key, kept = keys.oauth_token(record.digest), json.dumps(record.__dict__)
        self.store.durably(key, lambda c: c.set(key, kept, ex=seconds))

    def token(self, token: str) -> Token | None:
        """The token as kept (None: unknown, revoked or expired)."""
        raw = self.client.get(keys.oauth_token(digest(token)))
        if raw is None:
            return None
        found = json.loads(raw)
        record = Token(**{**found, "scopes": tuple(found["scopes"])})
        return None if record.expires_at <= time.time() else record

    def refreshable(self, token: str) -> Token | None:
        """The refresh token to exchange; one exchanged before revokes its family and is None."""
        record = self.token(token)
        if record is None or record.kind != "refresh":
            return None
        if record.spent:
            self.revoke_family(record.family)
            return None
        return record

    def spend_refresh(self, record: Token) -> None:
        key = keys.oauth_token(record.digest)
        self.client.set(key, json.dumps({**record.__dict__, "spent": True}), keepttl=True)

    def access_grant(self, token: str) -> Grant | None:
        """Whom an app's access token acts for and with which scopes (None when unknown, revoked
        or expired): what service/requests.py checks exactly as for a personal access token."""
        record = self.token(token)
        if record is None or record.kind != "access" or not self.client.exists(keys.account(record.account)):
            return None  # (a deleted account's apps act for no one)
        return Grant(record.account, frozenset(record.scopes))

    def revoke(self, record: Token) -> None:
        """RFC 7009: revoking a refresh token revokes its family; an access token, itself."""
        if record.kind == "refresh":
            self.revoke_family(record.family)
        else:
            self.client.delete(keys.oauth_token(record.digest))

    def revoke_family(self, family: str) -> None:
        members = keys.oauth_family(family)
        for hashed in self.client.smembers(members):
            self.client.delete(keys.oauth_token(text(hashed)))
        self.client.delete(members)

    # -- a person's grants --------------------------------------------------------------------

    def _grant(self, account: str, client_id: str) -> dict[str, Any] | None:
        raw = self.client.hget(keys.account_oauth_grants(account), client_id)
        return None if raw is None else json.loads(raw)

    def _note_grant(self, account: str, client_id: str, scopes: tuple[str, ...]) -> None:
        held = keys.account_oauth_grants(account)
        grant = self._grant(account, client_id) or {"allowed": now(), "families": []}
        grant["scopes"] = list(scopes)
        self.store.durably(held, lambda c: c.hset(held, client_id, json.dumps(grant)))

    def _add_family(self, account: str, client_id: str, family: str) -> None:
        grant = self._grant(account, client_id)
        if grant is None:  # revoked between the code and its exchange
            self.revoke_family(family)
            return
        families = [f for f in grant["families"] if self.client.exists(keys.oauth_family(f))]
        if family not in families:
            families.append(family)
        for oldest in families[:-MAX_FAMILIES]:
            self.revoke_family(oldest)
        grant["families"] = families[-MAX_FAMILIES:]
        self.client.hset(keys.account_oauth_grants(account), client_id, json.dumps(grant))

    def allowed(self, account: str) -> list[dict[str, Any]]:
        """The apps ``account`` allowed, with the scopes and when, oldest first."""
        shown = []
        for client_id, raw in self.client.hgetall(keys.account_oauth_grants(account)).items():
            app = self.app(text(client_id))
            if app is None:
                continue
            grant = json.loads(raw)
            shown.append(
                {"client_id": app.client_id, "name": app.name, "scopes": grant["scopes"], "allowed": grant["allowed"]}
            )
        return sorted(shown, key=lambda a: a["allowed"])

    def forget_app(self, account: str, client_id: str) -> None:
        """Revoke ``account``'s grant to the app: every token it holds for them dies."""
        grant = self._grant(account, client_id)
        if grant is None:
            raise NotFound(f"you have not allowed an app {client_id}")
        for family in grant["families"]:
            self.revoke_family(family)
        self.client.hdel(keys.account_oauth_grants(account), client_id)

    def forget_account(self, account: str) -> None:
        """A deleted account's grants: every token an app holds for it is deleted now, not left
        to expire. The apps it registered stay (people who allowed them still use them)."""
        for client_id in self.client.hkeys(keys.account_oauth_grants(account)):
            self.forget_app(account, text(client_id))
        self.client.delete(keys.account_oauth_grants(account))

    def still_allowed(self, account: str, client_id: str) -> bool:
        """Whether a refresh may still give tokens: the person has not revoked the app, nor deleted the account."""
        return self._grant(account, client_id) is not None and bool(self.client.exists(keys.account(account)))
