"""The game index: a projection of every game's stream into lists for the lobby.

It is written after each append from the new state, and can be rebuilt from the streams at
any time (``rebuild``), so losing or corrupting it loses nothing.
"""

from __future__ import annotations

import json
from typing import Any

from domain import Game

from . import keys
from .store import EventStore


def summary(game: str, state: Game, created: str) -> dict[str, Any]:
    """What the lobby shows of a game: public facts only."""
    turn = state.turn
    return {
        "game": game,
        "created": created,
        "version": state.version,
        "status": "finished" if state.finished else "active",
        "players": state.options.players,
        "edition": state.options.edition.value,
        "scenario": state.scenario,
        "expansion": state.options.expansion,
        "turn": None if state.finished or turn is None else turn.seat,
        "turn_number": None if turn is None else turn.number,
        "winners": None if state.result is None else list(state.result.winners),
    }


# KEYS: summary hash, index zset. ARGV: game, version, JSON, score. Never goes backwards.
RECORD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old and cjson.decode(old).version >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
"""


class GameIndex:
    def __init__(self, client: Any) -> None:
        self.client = client
        self._record = client.register_script(RECORD)

    def record(self, game: str, state: Game, created: str) -> None:
        """Store the summary unless a newer one is already there (two writers may race)."""
        doc = summary(game, state, created)
        self._record(
            keys=[keys.INDEX_SUMMARY, keys.INDEX], args=[game, state.version, json.dumps(doc), _score(created)]
        )

    def get(self, game: str) -> dict[str, Any] | None:
        raw = self.client.hget(keys.INDEX_SUMMARY, game)
        return None if raw is None else json.loads(raw)

    def list(self, status: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """Newest first, optionally only games of one status."""
        ids = [g.decode() if isinstance(g, bytes) else g for g in self.client.zrevrange(keys.INDEX, 0, -1)]
        found = []
        if ids:
            for raw in self.client.hmget(keys.INDEX_SUMMARY, ids):
                if raw is not None:
                    doc = json.loads(raw)
                    if status is None or doc["status"] == status:
                        found.append(doc)
        return found[offset : offset + limit]

    def rebuild(self, store: EventStore) -> tuple[int, dict[str, str]]:
        """Re-project every stream. Returns how many games were indexed, and the streams
        that would not fold (with why): those need a look, not silence."""
        self.client.delete(keys.INDEX, keys.INDEX_SUMMARY)
        count = 0
        broken: dict[str, str] = {}
        for game in store.games():
            try:
                state = store.load(game)
            except (AssertionError, KeyError, ValueError, TypeError, AttributeError) as error:
                broken[game] = repr(error)
                continue
            first = store.read(game, until=1)
            if state is not None and first:
                self.record(game, state, first[0].at)
                count += 1
        return count, broken


def _score(created: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
