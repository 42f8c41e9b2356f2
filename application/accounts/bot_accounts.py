"""Bot accounts: an account a program plays for, which people see labelled as a bot.

A person turns their account into a bot account once, for good (``convert``), and only while it
has no rated game as a person: a rating earned by a person is not a bot's, and a bot's rating
stays apart from people's (the leaderboard lists bot accounts apart: ``keys.BOT_LEADERBOARD``).
It is refused, too, while the account sits in a rated game not yet ended or at an open game
waiting for players: those would end, or start, with a person's seat now a bot's.

The mark is the field ``bot`` of the account's record (the time it was set), read where a name
is shown (``bots_among``). A bot account's token needs the ``bot`` scope beside ``play`` to play
(service/requests.py), and open games may keep bot accounts out (application/lobby/open_games.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import redis

from application.refusals import ServiceError
from events import keys
from events.redis_store import RedisStore
from events.serialization import now


class AlreadyBot(ServiceError):
    status, code, title = 409, "already_bot_account", "The account is a bot account already"


class PlayedAsPerson(ServiceError):
    status, code, title = 409, "played_as_person", "The account has played rated games as a person"


def is_bot(client: redis.Redis, account: str) -> bool:
    """Whether ``account`` is a bot account."""
    return bool(client.hexists(keys.account(account), "bot"))


def bots_among(client: redis.Redis, accounts: Iterable[str]) -> set[str]:
    """Those of ``accounts`` that are bot accounts, in one round trip (each account its own slot)."""
    named = list(dict.fromkeys(accounts))
    if not named:
        return set()
    with client.pipeline(transaction=False) as pipe:
        for account in named:
            pipe.hexists(keys.account(account), "bot")
        found = pipe.execute()
    return {account for account, bot in zip(named, found) if bot}


def rated_among(client: redis.Redis, games: Iterable[str]) -> list[str]:
    """Those of ``games`` that are rated, in one round trip (a game no longer kept is none)."""
    named = list(games)
    with client.pipeline(transaction=False) as pipe:
        for game in named:
            pipe.hget(keys.meta(game), "rated")
        found = pipe.execute() if named else []
    return [game for game, rated in zip(named, found) if rated is not None and json.loads(rated)]


class BotAccounts:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client

    def convert(self, account: str, rated_games: int, rated_seats: list[str], open_games: list[str]) -> None:
        """Make ``account`` a bot account, for good. Refused for a bot account already, and for
        one with ``rated_games`` played, seats in the rated games ``rated_seats`` (played or being
        played) or seats at the open games ``open_games``."""
        if is_bot(self.client, account):
            raise AlreadyBot("this account is a bot account already: it became one once, for good")
        if rated_games or rated_seats:
            raise PlayedAsPerson(
                "only an account that has played no rated game may become a bot account (a person's rating is "
                f"not a bot's): make a new account for the bot (rated games: {', '.join(sorted(rated_seats)[:5]) or 'rated'})"
            )
        if open_games:
            raise PlayedAsPerson(
                f"this account sits at the open game {sorted(open_games)[0]}, waiting for players: cancel it, or wait "
                "until it starts and ends"
            )
        record = keys.account(account)
        self.store.durably(record, lambda c: c.hsetnx(record, "bot", now()))

    def open_games_of(self, account: str) -> list[str]:
        """The open games still waiting for players at which ``account`` sits."""
        found = self.client.hvals(keys.LOBBY_SUMMARIES)
        return [doc["id"] for doc in map(json.loads, found) if any(s.get("account") == account for s in doc["seats"])]
