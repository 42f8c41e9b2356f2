"""Accounts: a person keeps their games on every device, without a password.

A person signs in with a single-use link sent to their email (``ask_link``, ``use_link``); the
page then holds a server-side session (``open_session``) and programs act for the person with
personal access tokens (``create_token``). Every secret is stored only as its SHA-256, under a
lookup key of its own (events/keys.py), and every account's data under its own hash tag, so on
a Redis Cluster each account is one slot and no lookup shares a hot key. An account owns seats
(``add_seat``); seat tokens keep working beside it. The email is never shown to anyone else:
others see the display name only.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from application import counters
from application.games.clocks import Clocks, current_away
from application.games.game_service import digest
from application.refusals import NotFound, ServiceError
from application.settings import SIGN_IN_CODES_PER_ADDRESS, SIGN_IN_LINKS_PER_ADDRESS, SIGN_IN_LINKS_PER_EMAIL
from events import keys
from events.person_streams import PersonStreams
from events.redis_store import RedisStore, text
from events.serialization import now

from .scopes import DEFAULT_TOKEN_SCOPES, EARLIER_TOKENS, SCOPES

LINK_SECONDS = 15 * 60  #: a sign-in link is good for 15 minutes, once
SESSION_SECONDS = 30 * 24 * 3600  #: a page's session lasts 30 days
#: Sign-in links asked for in an hour before 429: for one email from one client address, and
#: from one address whatever the emails. An email is counted per address, never alone, so that
#: one address's requests cannot lock the email out for the others.
LINKS_PER_EMAIL = SIGN_IN_LINKS_PER_EMAIL.read()
LINKS_PER_ADDRESS = SIGN_IN_LINKS_PER_ADDRESS.read()
ASKED_WINDOW = 3600
LAST_USE_EVERY = 60.0  #: a token's last use is written at most once a minute
MAX_TOKENS = 50  #: personal access tokens an account may hold

LINK_PREFIX, SESSION_PREFIX, TOKEN_PREFIX = "bml_", "bms_", "bmp_"
DEVICE_CODE_SECONDS = 10 * 60  #: a code for another device is good for 10 minutes, once
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  #: no 0/O or 1/I to misread: 8 of them are 40 bits
#: Wrong codes tried in an hour from one address, before 429 (a code that signs in is not counted).
CODES_PER_ADDRESS = SIGN_IN_CODES_PER_ADDRESS.read()


class SignInRefused(ServiceError):
    """A sign-in link or a code for another device that is unknown, spent or too old."""

    status, code, title = 401, "sign_in_refused", "The sign-in link or code cannot be used"


class TooManyAttempts(ServiceError):
    status, code, title = 429, "rate_limited", "Too many sign-in attempts"


class TooManyTokens(ServiceError):
    status, code, title = 422, "too_many_tokens", "Too many personal access tokens"


_LIMITS = {  #: what each counted kind of sign-in attempt is, and the setting of its limit
    "email": ("sign-in links an hour for one email from one address", "SIGN_IN_LINKS_PER_EMAIL"),
    "address": ("sign-in links an hour from one address", "SIGN_IN_LINKS_PER_ADDRESS"),
    "device": ("wrong device codes an hour from one address", "SIGN_IN_CODES_PER_ADDRESS"),
}


def _too_many(kind: str, limit: int, left_ms: int) -> TooManyAttempts:
    what, setting = _LIMITS[kind]
    return TooManyAttempts(
        f"at most {limit} {what} ({setting}); use one already sent or try later",
        retry_after=-(-left_ms // 1000),
        limit=setting,
    )


def normalise(email: str) -> str:
    """The address as it is looked up: trimmed and lower-cased (the domain is case-blind, and
    people type the rest in either case too)."""
    return email.strip().lower()


@dataclass(frozen=True)
class NewToken:
    """A personal access token as created: the secret is shown this once."""

    id: str
    name: str
    created: str
    token: str
    scopes: list[str]
    expires: str | None


@dataclass(frozen=True)
class Grant:
    """Whom a personal access token acts for, and what it may do (application/accounts/scopes.py)."""

    account: str
    scopes: frozenset[str]


class Accounts:
    def __init__(self, store: RedisStore) -> None:
        self.store = store  #: its writes wait for replicas, as appends do
        self.client = store.client

    # -- sign-in links ----------------------------------------------------------------------

    def ask_link(self, email: str, address: str) -> str:
        """A new single-use sign-in link token for ``email``, whether or not it has an account
        yet (the first use creates it). Refused past the hourly limits per email and per
        client address."""
        email = normalise(email)
        self._count(("email", f"{address} {email}", LINKS_PER_EMAIL), ("address", address, LINKS_PER_ADDRESS))
        token = LINK_PREFIX + secrets.token_urlsafe(32)
        link = keys.sign_in_link(digest(token))
        self.store.durably(link, lambda c: c.set(link, email, ex=LINK_SECONDS))
        return token

    def _count(self, *attempts: tuple[str, str, int]) -> None:
        """One more sign-in attempt of each ``(kind, subject, limit)`` this hour, in one round
        trip; 429 past any ``limit``."""
        found = counters.count(
            self.client, [(keys.sign_in_requests(kind, digest(subject)), ASKED_WINDOW) for kind, subject, _ in attempts]
        )
        for (kind, _, limit), asked in zip(attempts, found):
            if asked.total > limit:
                raise _too_many(kind, limit, asked.left_ms)

    def _refuse_past(self, kind: str, subject: str, limit: int) -> None:
        """429 if ``subject`` already made ``limit`` counted attempts this hour (counting none)."""
        key = keys.sign_in_requests(kind, digest(subject))
        with self.client.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.pttl(key)
            counted, left_ms = pipe.execute()
        if counted is not None and int(counted) >= limit:
            raise _too_many(kind, limit, max(left_ms, 1000))

    def use_link(self, token: str) -> str:
        """The account the link signs in to (made on first use); the link is spent."""
        email = self.client.getdel(keys.sign_in_link(digest(token)))
        if email is None:
            raise SignInRefused(
                "this sign-in link is unknown, already used or older than 15 minutes: ask for a new one"
            )
        return self._account_for(text(email))

    def _account_for(self, email: str) -> str:
        owner = keys.email_owner(digest(email))
        fresh = uuid.uuid4().hex
        made = self.store.durably(owner, lambda c: c.set(owner, fresh, nx=True))
        account = fresh if made else text(self.client.get(owner))
        record = keys.account(account)
        if made or not self.client.exists(record):  # (a first use cut short is completed by the next)
            fields = {"email": email, "name": f"Player {account[:4]}", "created": now()}
            self.store.durably(record, lambda c: c.hset(record, mapping=fields))
        return account

    def create_without_email(self, account: str, name: str) -> None:
        """An account made by signing up with a passkey alone (application/accounts/passkeys.py)."""
        record = keys.account(account)
        fields = {"email": "", "name": name, "created": now()}
        self.store.durably(record, lambda c: c.hset(record, mapping=fields))

    # -- another device ---------------------------------------------------------------------

    def device_code(self, account: str) -> str:
        """A one-time code (``ABCD-EFGH``) that signs another device in to ``account``."""
        self.profile(account)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        key = keys.device_code(digest(code))
        self.store.durably(key, lambda c: c.set(key, account, ex=DEVICE_CODE_SECONDS))
        return f"{code[:4]}-{code[4:]}"

    def use_device_code(self, code: str, address: str) -> str:
        """The account the code signs in to; the code is spent. Wrong codes are limited per
        address; a code that signs in is not counted."""
        self._refuse_past("device", address, CODES_PER_ADDRESS)
        plain = code.upper().replace("-", "").replace(" ", "")
        account = self.client.getdel(keys.device_code(digest(plain)))
        if account is None:
            self._count(("device", address, CODES_PER_ADDRESS))
            raise SignInRefused("this code is unknown, already used or older than 10 minutes: show a new one")
        if not self.exists(text(account)):  # deleted since it showed the code
            raise SignInRefused("the account that showed this code has been deleted")
        return text(account)

    # -- sessions (the page) ----------------------------------------------------------------

    def open_session(self, account: str) -> str:
        token = SESSION_PREFIX + secrets.token_urlsafe(32)
        hashed = digest(token)
        self.store.durably(keys.session(hashed), lambda c: c.set(keys.session(hashed), account, ex=SESSION_SECONDS))
        self.client.sadd(keys.account_sessions(account), hashed)
        return token

    def session_account(self, token: str) -> str | None:
        found = self.client.get(keys.session(digest(token)))
        return None if found is None else text(found)

    def close_session(self, token: str) -> None:
        hashed = digest(token)
        account = self.client.getdel(keys.session(hashed))
        if account is not None:
            self.client.srem(keys.account_sessions(text(account)), hashed)

    def close_all_sessions(self, account: str) -> int:
        """End every session of ``account`` (signing out everywhere); how many were open."""
        held = keys.account_sessions(account)
        hashed = [text(h) for h in self.client.smembers(held)]
        ended = sum(int(self.client.delete(keys.session(h))) for h in hashed)  # (each its own slot)
        if hashed:
            self.client.srem(held, *hashed)
        return ended

    # -- personal access tokens (programs) --------------------------------------------------

    def create_token(
        self,
        account: str,
        name: str,
        chosen: tuple[str, str] | None = None,
        scopes: tuple[str, ...] = DEFAULT_TOKEN_SCOPES,
        days: int | None = None,
    ) -> NewToken:
        """A new personal access token holding ``scopes``, good for ``days`` (None: until revoked).
        ``chosen``: its id and secret chosen beforehand (a retried request's, application/retries.py):
        the token is made once, and made again answers as it is."""
        held = keys.account_tokens(account)
        token_id, token = chosen or fresh_token()
        earlier = self.client.hget(held, token_id) if chosen else None
        if earlier is None:
            self._forget_expired(account)
            if self.client.hlen(held) >= MAX_TOKENS:
                raise TooManyTokens(f"an account holds at most {MAX_TOKENS} tokens: revoke one first")
        hashed = digest(token)
        made = now()
        expires = None if days is None else _later(made, days * 86400)
        record: dict[str, Any] = {
            "id": token_id,
            "name": name,
            "created": made,
            "last_used": None,
            "digest": hashed,
            "scopes": [scope for scope in SCOPES if scope in scopes],  # in the vocabulary's order, each once
            "expires": expires,
        }
        self.store.durably(held, lambda c: c.hsetnx(held, token_id, json.dumps(record)))
        record = _with_scopes(json.loads(self.client.hget(held, token_id)))  # the first's, where two made it at once
        owner = keys.personal_token(hashed)
        ends = None if record["expires"] is None else int(datetime.fromisoformat(record["expires"]).timestamp() * 1000)
        self.store.durably(owner, lambda c: c.set(owner, f"{account}:{token_id}", pxat=ends))  # gone when expired
        return NewToken(token_id, record["name"], record["created"], token, record["scopes"], record["expires"])

    def _forget_expired(self, account: str) -> None:
        """Remove the account's expired tokens (they no longer count against MAX_TOKENS)."""
        stamp = now()
        for record in self._tokens(account):
            if _expired(record, stamp):
                self.client.delete(keys.personal_token(record["digest"]))
                self.client.hdel(keys.account_tokens(account), record["id"])

    def tokens(self, account: str) -> list[dict[str, Any]]:
        """The account's tokens with their last use, oldest first; never the secrets."""
        shown = ({k: v for k, v in t.items() if k != "digest"} for t in self._tokens(account))
        return sorted(shown, key=lambda t: t["created"])

    def _tokens(self, account: str) -> list[dict[str, Any]]:
        """The tokens as kept, with their digests."""
        return [_with_scopes(json.loads(raw)) for raw in self.client.hvals(keys.account_tokens(account))]

    def revoke_token(self, account: str, token_id: str) -> None:
        raw = self.client.hget(keys.account_tokens(account), token_id)
        if raw is None:
            raise NotFound(f"no token {token_id} in this account")
        self.client.delete(keys.personal_token(json.loads(raw)["digest"]))
        self.client.hdel(keys.account_tokens(account), token_id)

    def token_account(self, token: str) -> Grant | None:
        """The account a personal access token acts for and its scopes (None when unknown, revoked
        or expired); notes its last use."""
        found = self.client.get(keys.personal_token(digest(token)))
        if found is None:
            return None
        account, _, token_id = text(found).rpartition(":")
        held = keys.account_tokens(account)
        raw = self.client.hget(held, token_id)
        if raw is None:  # revoked meanwhile
            return None
        record = json.loads(raw)
        stamp = now()
        if _expired(record, stamp):
            return None
        if record["last_used"] is None or _seconds_between(record["last_used"], stamp) >= LAST_USE_EVERY:
            record["last_used"] = stamp
            self.client.hset(held, token_id, json.dumps(record))
        return Grant(account, frozenset(_with_scopes(record)["scopes"]))

    # -- the person -------------------------------------------------------------------------

    def profile(self, account: str) -> dict[str, Any]:
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.account(account)).items()}
        if not found:
            raise NotFound("this account was deleted")
        email = found["email"] or None  # a passkey-only account has none
        shown = {"account": account, "display_name": found["name"], "email": email, "created": found["created"]}
        return {**shown, "bot": "bot" in found}  # a bot account (application/accounts/bot_accounts.py)

    def exists(self, account: str) -> bool:
        return bool(self.client.exists(keys.account(account)))

    def display_name(self, account: str) -> str:
        return self.profile(account)["display_name"]

    def rename(self, account: str, name: str) -> dict[str, Any]:
        self.profile(account)
        record = keys.account(account)
        self.store.durably(record, lambda c: c.hset(record, "name", name))
        return self.profile(account)

    def delete(self, account: str) -> None:
        """Remove the account: its email, passkeys, sessions, tokens, the link to its seats and its stream.
        The games themselves are untouched (their seat tokens, events and audit stay as they were)."""
        profile = self.profile(account)
        if profile["email"]:
            self.client.delete(keys.email_owner(digest(profile["email"])))
        for credential in self.client.hkeys(keys.account_passkeys(account)):
            self.client.delete(keys.credential_owner(digest(text(credential))))
        for hashed in self.client.smembers(keys.account_sessions(account)):
            self.client.delete(keys.session(text(hashed)))
        for token in self._tokens(account):
            self.client.delete(keys.personal_token(token["digest"]))
        for game, seat in self.seats(account).items():  # no more alerts for its seats
            self.client.hdel(keys.seat_accounts(game), str(seat))
        unsubscribe = self.client.hget(keys.alert_settings(account), "unsubscribe")
        if unsubscribe:
            self.client.delete(keys.unsubscribe(digest(text(unsubscribe))))
        self.client.delete(
            keys.alert_settings(account),
            keys.push_subscriptions(account),
            keys.muted_games(account),
            keys.alert_log(account),
            keys.mail_batch(account),
        )
        self.client.delete(
            keys.account(account),
            keys.account_seats(account),
            keys.account_tokens(account),
            keys.account_sessions(account),
            keys.account_passkeys(account),
        )
        PersonStreams(self.store).forget(account)  # after the account: a late write finds it gone

    # -- seats ------------------------------------------------------------------------------

    def add_seat(self, account: str, game: str, seat: int) -> None:
        """Keep the seat in the account, and tell the game whose seat it is (for its alerts)."""
        held, holders = keys.account_seats(account), keys.seat_accounts(game)
        self.store.durably(held, lambda c: c.hset(held, game, seat))
        self.store.durably(holders, lambda c: c.hset(holders, str(seat), account))
        span = current_away(self.client, account, int(time.time() * 1000))
        if span is not None:  # a person on vacation: their clock in this game waits too
            Clocks(self.store).set_away(game, seat, span)

    def seat_all(self, game: str, holders: dict[int, str]) -> None:
        """Keep each seat of a game just made in its account (``holders``: seat to account), the
        seats not kept yet only. Every maker of a game under a chosen id calls it after the game,
        made now or found made: a maker killed between the game and its seats leaves them to the
        next one (a retried start, the next worker). A game no longer in Redis (moved to the
        archive, swept) and a deleted account are left alone."""
        if not holders:
            return
        with self.client.pipeline(transaction=False) as pipe:  # one round trip: makers call it on every read
            pipe.exists(keys.stream(game))
            for seat, account in holders.items():
                pipe.hget(keys.seat_accounts(game), str(seat))
                pipe.exists(keys.account(account))
            live, *found = pipe.execute()
        if not live:
            return
        for (seat, account), kept, exists in zip(holders.items(), found[::2], found[1::2]):
            if exists and kept is None:
                self.add_seat(account, game, seat)

    def seat_in(self, account: str, game: str) -> int | None:
        found = self.client.hget(keys.account_seats(account), game)
        return None if found is None else int(found)

    def seats(self, account: str) -> dict[str, int]:
        return {text(g): int(s) for g, s in self.client.hgetall(keys.account_seats(account)).items()}


def fresh_token() -> tuple[str, str]:
    """A new personal access token's id and secret."""
    return "tok_" + secrets.token_hex(8), TOKEN_PREFIX + secrets.token_urlsafe(32)


def _with_scopes(record: dict[str, Any]) -> dict[str, Any]:
    """A kept token record with its scopes and expiry: one made before scopes existed keeps what
    every token could do then, until revoked."""
    return {"scopes": list(EARLIER_TOKENS), "expires": None, **record}


def _expired(record: dict[str, Any], stamp: str) -> bool:
    return record.get("expires") is not None and _seconds_between(record["expires"], stamp) >= 0


def _later(stamp: str, seconds: int) -> str:
    return (datetime.fromisoformat(stamp) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def _seconds_between(earlier: str, later: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
