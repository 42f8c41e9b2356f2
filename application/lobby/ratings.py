"""Ratings of people and bot levels from whole finishing orders (ruling P18).

A rated game (made from an open game, application/lobby/open_games.py) rates every seat from the game's
final order (``domain.standings.places``, ties shared) with openskill's Plackett-Luce model, in
one step for the whole table rather than as one-against-one duels. A seat belongs to its
account even when a bot played its turns at a timeout: the place is the person's. Bot levels
are players ``bot:<level>``, starting from the ratings ``bluemoon-simulate`` measured
(application/lobby/bot_ratings.json). Only games that end by the rules are rated.

Exactly once: the append that ends a rated game writes the outbox entry ``rt:<game>``; its job
computes the ratings once under a lock, records them with the game (``SET NX``), then applies
each player's part in that player's own slot, skipping a game already in its history. A job
retried after a crash applies the recorded result again; nothing is rated twice.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from application.accounts.bot_accounts import is_bot
from application.background.work import WORK
from domain import Game
from domain.standings import places
from events import keys
from events.outbox import now_ms
from events.redis_store import RedisStore, text
from events.serialization import now
from events.store import OutboxWrite

log = logging.getLogger("bluemoon.ratings")
MODEL = PlackettLuce()  #: openskill's defaults: mu 25, sigma 25/3
BOT = "bot:"  #: a bot level's player id is ``bot:<level>``
SEEDS = Path(__file__).with_name("bot_ratings.json")
LOCK_MS = 10_000  #: the rating lock's lease: a crashed job's lock lapses

# KEYS: the player's rating and history. ARGV: game, mu, sigma, the history entry, updated,
# games. Applies the player's part of a game's ratings unless the game is in the history already.
APPLY = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[1], 'mu', ARGV[2], 'sigma', ARGV[3], 'updated', ARGV[5], 'games', ARGV[6])
return 1
"""


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def shown(self) -> float:
        """The rating people see: mu - 3 sigma (openskill's ordinal), a cautious estimate that
        rises as games make the rating surer."""
        return self.mu - 3 * self.sigma

    def document(self) -> dict[str, Any]:
        return {
            "rating": round(self.shown, 2),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
        }


def seeded() -> dict[str, Rating]:
    """Each bot level's starting rating, as ``bluemoon-simulate --ratings`` measured it, with
    the games it rests on."""
    if not SEEDS.exists():
        return {}
    levels = json.loads(SEEDS.read_text())["levels"]
    return {f"{BOT}{level}": Rating(r["mu"], r["sigma"], r.get("games", 0)) for level, r in levels.items()}


def player_of(seat: dict[str, Any]) -> str | None:
    """Who a seat of a rated game rates: its account, or its bot level; None for neither."""
    if seat.get("account"):
        return str(seat["account"])
    if seat["kind"] == "bot":
        return f"{BOT}{seat['level']}"
    return None


def rate(ratings: list[Rating], ranks: list[float]) -> list[Rating]:
    """New ratings for seats finishing in ``ranks`` (1 the best, ties equal), each seat its own team."""
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    rated = MODEL.rate(teams, ranks=ranks)
    return [Rating(team[0].mu, team[0].sigma, r.games + 1) for team, r in zip(rated, ratings)]


def rating_entry(game: str) -> OutboxWrite:
    """The outbox entry that has a finished rated game rated, written by the append that ends it."""
    return OutboxWrite(f"{WORK['rating'].prefix}{game}", json.dumps({"game": game}), now_ms())


class Ratings:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client
        self._apply = self.client.register_script(APPLY)
        self._seeds = seeded()

    def current(self, player: str) -> Rating:
        found = {text(k): text(v) for k, v in self.client.hgetall(keys.rating(player)).items()}
        if not found:
            return self._seeds.get(player, Rating(MODEL.mu, MODEL.sigma))
        return Rating(float(found["mu"]), float(found["sigma"]), int(found.get("games", 0)))

    def history(self, player: str) -> list[dict[str, Any]]:
        """The player's rated games, newest first."""
        entries = [
            {"game": text(g), **json.loads(v)} for g, v in self.client.hgetall(keys.rating_history(player)).items()
        ]
        return sorted(entries, key=lambda e: e["at"], reverse=True)

    def leaderboard(self, limit: int, offset: int = 0, board: str = keys.LEADERBOARD) -> list[tuple[str, float]]:
        """The best of ``board``: people (``keys.LEADERBOARD``) or bot accounts (``keys.BOT_LEADERBOARD``)."""
        found = self.client.zrevrange(board, offset, offset + limit - 1, withscores=True)
        return [(text(account), float(score)) for account, score in found]

    def result(self, game: str) -> dict[str, Any] | None:
        found = self.client.get(keys.game_ratings(game))
        if found is None and self.store.archive is not None and (parts := self.store.archive.parts(game)) is not None:
            found = parts.get("ratings")  # a game moved to the archive
        return None if found is None else json.loads(found)

    def rate_game(self, game: str, state: Game, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Rate the finished game once (see module doc); returns its recorded ratings, or None
        when the game is not rateable (unfinished, or a seat that is no one's)."""
        if not state.finished:
            return None
        recorded = self.result(game)
        if recorded is None:
            recorded = self._compute(game, state, seats)
        elif any(self._apply_one(game, seat) for seat in recorded["seats"]):
            log.warning("game %s: a job that died mid-way had rated it; its ratings are now all applied", game)
        return recorded

    def _compute(self, game: str, state: Game, seats: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Under the lock, so that two games ending at once never rate from the same rating:
        the ratings now, the game's new ones recorded, then applied."""
        players = [player_of(s) for s in seats]
        if any(p is None for p in players):
            log.warning("game %s is rated but a seat is no one's: not rated", game)
            return None
        token = f"{game}:{time.time()}"
        while not self.client.set(keys.RATING_LOCK, token, nx=True, px=LOCK_MS):
            time.sleep(0.01)
        try:
            if self.result(game) is None:
                self._record(game, state, players)
            recorded = self.result(game)
            for seat in recorded["seats"]:  # type: ignore[index]
                self._apply_one(game, seat)
            return recorded
        finally:
            if self.client.get(keys.RATING_LOCK) in (token, token.encode()):
                self.client.delete(keys.RATING_LOCK)

    def _record(self, game: str, state: Game, players: list[str | None]) -> None:
        ranks: list[float] = list(places(state))
        named = [p for p in players if p is not None]
        before = [self.current(p) for p in named]
        after = _one_rating_per_player(named, rate(before, ranks))
        recorded = {
            "places": ranks,
            "at": now(),
            "seats": [
                {"seat": i, "player": p, "place": rank, "before": b.document(), "after": a.document()}
                for i, (p, rank, b, a) in enumerate(zip(named, ranks, before, after))
            ],
        }
        key = keys.game_ratings(game)
        self.store.durably(key, lambda c: c.set(key, json.dumps(recorded), nx=True))

    def _apply_one(self, game: str, seat: dict[str, Any]) -> bool:
        """The player's part of the game's ratings, unless applied already; True when applied now.
        A person who deleted their account is not rated again: the game's record keeps their
        numbers, and nothing brings back a rating or a place on the leaderboard."""
        player, after = seat["player"], seat["after"]
        if not player.startswith(BOT) and not self.client.exists(keys.account(player)):
            return False
        entry = json.dumps(
            {"place": seat["place"], "seat": seat["seat"], "before": seat["before"], "after": after, "at": now()}
        )
        rating, history = keys.rating(player), keys.rating_history(player)
        applied = self.store.durably(
            rating,
            lambda c: self._apply(
                keys=[rating, history], args=[game, after["mu"], after["sigma"], entry, now(), after["games"]], client=c
            ),
        )
        if not player.startswith(BOT):  # a bot account is listed apart from people
            board = keys.BOT_LEADERBOARD if is_bot(self.client, player) else keys.LEADERBOARD
            self.client.zadd(board, {player: after["rating"]})
        return bool(applied)

    def forget(self, player: str) -> None:
        """A deleted account leaves the leaderboard; its games keep their recorded ratings."""
        self.client.zrem(keys.LEADERBOARD, player)
        self.client.zrem(keys.BOT_LEADERBOARD, player)
        self.client.delete(keys.rating(player), keys.rating_history(player))


def _one_rating_per_player(players: list[str], after: list[Rating]) -> list[Rating]:
    """A player in several seats (a bot level twice at one table) ends with one rating: the
    mean of its seats' new ones, which every one of its seats records."""
    merged: dict[str, list[Rating]] = {}
    for p, r in zip(players, after):
        merged.setdefault(p, []).append(r)
    mean = {
        p: Rating(sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs), rs[0].games)
        for p, rs in merged.items()
    }
    return [mean[p] for p in players]
