"""Quotas: how many games a client address and an account may create an hour, and how many event
streams an address and a seat token may hold open at once. Each is a setting (application/settings.py,
docs/settings.md), from the app's config or the environment, counted in Redis so that every web process shares it,
and off with the rate limits (``RATE_LIMIT=0``: benchmarks, tests).

Games: ``POST /games`` and ``POST /open-games`` count, once their request is valid, for the
address (counted as every per-address limit counts it: service/ratelimit.py) and for the
signed-in account, in one round trip. A rematch does not count: it needs every seat of a
finished game to accept, so it is bounded by the games played. Past a quota the answer is 429
``too_many_games`` with ``Retry-After``, and nothing is made.

Exports: ``GET /players/{player}/games/export`` counts for the address once its request is
valid; past the quota the answer is 429 ``too_many_exports`` with ``Retry-After``.

Streams: a stream takes a slot for its address and one for its token (a game's) or its account
(a person's, ``GET /me/stream``) when it opens (429 ``too_many_streams`` past either) and gives both back when its response is closed, also when
the client goes away. A slot is a member of a sorted set scored with when it lapses; the
stream's watching marks' renewer (service/live.py) renews it, so the slot of a process that
died lapses by itself within ``live.WATCHING_MS``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from flask import Flask, current_app

from application import counters
from application.refusals import ServiceError
from application.settings import DECLARED

from . import live
from .ratelimit import Limit, client_address

#: Games created an hour (``N per hour``, or any window Limit.parse reads), and streams open at once:
#: the defaults of their settings (application/settings.py), as the API document states them.
DEFAULTS = {
    name: str(DECLARED[name].default)
    for name in (
        "QUOTA_GAMES_PER_ADDRESS",
        "QUOTA_GAMES_PER_ACCOUNT",
        "QUOTA_EXPORTS_PER_ADDRESS",
        "QUOTA_STREAMS_PER_ADDRESS",
        "QUOTA_STREAMS_PER_TOKEN",
        "QUOTA_STREAMS_PER_ACCOUNT",
    )
}
PREFIX = "quota"  #: no hash tag: the counters spread over every slot of a cluster


class TooManyGames(ServiceError):
    status, code, title = 429, "too_many_games", "Too many games created lately"


class TooManyExports(ServiceError):
    status, code, title = 429, "too_many_exports", "Too many exports lately"


class TooManyStreams(ServiceError):
    status, code, title = 429, "too_many_streams", "Too many event streams open"


class Quotas:
    def __init__(self, client: Any, config: dict[str, Any]) -> None:
        self.client = client

        def setting(name: str) -> str:
            return str(config.get(name) or DECLARED[name].read())

        self.games = {
            "address": Limit.parse("QUOTA_GAMES_PER_ADDRESS", setting("QUOTA_GAMES_PER_ADDRESS")),
            "account": Limit.parse("QUOTA_GAMES_PER_ACCOUNT", setting("QUOTA_GAMES_PER_ACCOUNT")),
        }
        self.exports = Limit.parse("QUOTA_EXPORTS_PER_ADDRESS", setting("QUOTA_EXPORTS_PER_ADDRESS"))
        self.streams = {
            "address": ("QUOTA_STREAMS_PER_ADDRESS", int(setting("QUOTA_STREAMS_PER_ADDRESS"))),
            "token": ("QUOTA_STREAMS_PER_TOKEN", int(setting("QUOTA_STREAMS_PER_TOKEN"))),
            "account": ("QUOTA_STREAMS_PER_ACCOUNT", int(setting("QUOTA_STREAMS_PER_ACCOUNT"))),
        }

    def count_game(self, account: str | None) -> None:
        """One more game made by this request's address (and ``account``); 429 past a quota."""
        who = [("address", client_address())] + ([("account", account)] if account else [])
        limits = [(self.games[kind], f"{PREFIX}:games:{kind}:{self.games[kind].seconds}:{name}") for kind, name in who]
        try:
            found = counters.count(self.client, [(key, limit.seconds) for limit, key in limits])
        except redis.RedisError as error:  # the quotas guard the service; they must not stop it
            current_app.logger.warning("game quotas not counted: %s", error)
            return
        for (kind, _), (limit, _), counted in zip(who, limits, found):
            if counted.total > limit.amount:
                raise TooManyGames(
                    f"at most {limit.amount} games in {limit.seconds} s per {kind} ({limit.scope}); "
                    "wait Retry-After seconds",
                    retry_after=max(1, -(-counted.left_ms // 1000)),
                    limit=limit.scope,
                )

    def count_export(self) -> None:
        """One more export by this request's address; 429 past its quota (an export reads up to
        1,000 logs: the read rate limit alone would let one address read a million an hour)."""
        limit = self.exports
        key = f"{PREFIX}:exports:{limit.seconds}:{client_address()}"
        try:
            (counted,) = counters.count(self.client, [(key, limit.seconds)])
        except redis.RedisError as error:  # the quotas guard the service; they must not stop it
            current_app.logger.warning("export quota not counted: %s", error)
            return
        if counted.total > limit.amount:
            raise TooManyExports(
                f"at most {limit.amount} exports in {limit.seconds} s per address ({limit.scope}); "
                "wait Retry-After seconds",
                retry_after=max(1, -(-counted.left_ms // 1000)),
                limit=limit.scope,
            )

    def open_stream(self, token_digest: str | None, account: str | None = None) -> Callable[[], None]:
        """Take a stream slot for this request's address (and its valid seat token, or the
        ``account`` whose own stream it is); returns what gives them back. 429 past either
        quota, and then nothing is held."""
        slots = [("address", client_address())] + ([("token", token_digest)] if token_digest else [])
        slots += [("account", account)] if account else []
        member, at = uuid.uuid4().hex, int(time.time() * 1000)
        names = [f"{PREFIX}:streams:{kind}:{who}" for kind, who in slots]
        try:
            with self.client.pipeline(transaction=False) as pipe:
                for key in names:
                    pipe.zremrangebyscore(key, "-inf", at)
                    pipe.zadd(key, {member: at + live.WATCHING_MS})
                    pipe.zcard(key)
                    pipe.pexpire(key, live.WATCHING_MS)
                held = pipe.execute()[2::4]
        except redis.RedisError as error:
            current_app.logger.warning("stream quotas not counted: %s", error)
            return lambda: None
        marks = live.marks(self.client)
        for key in names:
            marks.add(key, member, write=False)  # renewed with the watching marks, until released

        def release() -> None:
            for key in names:
                marks.remove(key, member)

        over = [(kind, count) for (kind, _), count in zip(slots, held) if count > self.streams[kind][1]]
        if over:
            release()
            setting, amount = self.streams[over[0][0]]
            raise TooManyStreams(
                f"at most {amount} event streams open at once per {over[0][0]} ({setting}); "
                "close one, or follow with the long poll ("
                + ("GET /me/events?wait=)" if account else "GET /games/{game}/events?wait=)"),
                retry_after=max(1, int(current_app.config["SSE_SECONDS"])),  # the longest a stream holds its slot
                limit=setting,
            )
        return release


def install(app: Flask, client: Any) -> None:
    """The app's quotas, or none with the rate limits off (``RATE_LIMIT=0``)."""
    app.extensions["quotas"] = Quotas(client, app.config) if app.config.get("RATE_LIMIT", 1) else None


def quotas() -> Quotas | None:
    found: Quotas | None = current_app.extensions.get("quotas")
    return found
