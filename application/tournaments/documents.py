"""A tournament's one document and the script that changes it.

The document (``keys.tournament``, field ``doc``) holds everything: the format and the games'
options, the entrants (each withdrawn or not, their no-shows), the rounds (their tables, byes,
each table's game and, once it ended, its places). Every change is a compare-and-set of the
whole document (``SWAP``), and the same script writes the tournament's step in the outbox
(``tn:<id>``, in the same slot: events/keys.py): when the next thing is due (its start, a round's
games to make, a round's deadline, the next round; nothing while a round's games are played out
after its deadline: each one's end advances it) and a payload naming the document's version.
So a change and the work it makes due are written together or not at all, and a worker that
dies between two changes leaves the step due: the next claim carries on from the document.
"""

from __future__ import annotations

import json
from typing import Any

from application.background.work import WORK
from events import keys
from events.outbox import now_ms
from events.redis_store import RedisStore, text
from events.store import OutboxWrite

PREFIX = WORK["tournament"].prefix
OPEN, RUNNING, FINISHED, CANCELLED = "open", "running", "finished", "cancelled"

# KEYS: the tournament, its shard's outbox (payloads, due, tries). ARGV: the document read ('' for
# none: a creation), the one to write, its step's entry name, payload ('' to remove it), due (ms).
# Writes only if the document is still the one read (1), else nothing (0).
SWAP = """
local found = redis.call('HGET', KEYS[1], 'doc')
if ARGV[1] == '' then
  if found then return 0 end
elseif found ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'doc', ARGV[2])
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('ZREM', KEYS[3], ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
elseif redis.call('HGET', KEYS[2], ARGV[3]) ~= ARGV[4] then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
end
return 1
"""


def result_entry(game: str, origin: dict[str, Any] | None) -> OutboxWrite | None:
    """The entry that records a tournament's game's end in its round (none for another game)."""
    if not origin or "tournament" not in origin:
        return None
    return OutboxWrite(f"{PREFIX}{game}", json.dumps({"tournament": origin["tournament"], "game": game}), now_ms())


def step_name(tournament_id: str) -> str:
    """The outbox entry of the tournament's next step."""
    return f"{PREFIX}{tournament_id}"


def current_round(doc: dict[str, Any]) -> dict[str, Any] | None:
    return doc["rounds"][-1] if doc["rounds"] else None


def round_over(round_: dict[str, Any]) -> bool:
    """Every game of the round has its places."""
    return round_["made"] and all(table.get("places") is not None for table in round_["tables"])


def next_due(doc: dict[str, Any]) -> int | None:
    """When the tournament's next step is due (epoch ms), None when nothing more ever is: its
    start; then, in each round, its games to make (now), its deadline, and once every game has
    ended, the next round (now); once it ended, its people's news (now) until told."""
    if doc["status"] == OPEN:
        return int(doc["starts"])
    if doc["status"] != RUNNING:
        return 0 if doc.get("told") is False else None  # its people's news, due once it ended
    round_ = current_round(doc)
    if round_ is None or not round_["made"] or round_over(round_):
        return 0
    if round_["overdue"]:
        return None  # its games are being played out: each one's end advances it (rounds.py)
    return int(round_["deadline"])


class Documents:
    """Reads and swaps tournament documents (see module doc)."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self.client = store.client
        self._swap = self.client.register_script(SWAP)

    def read(self, tournament_id: str) -> tuple[str, dict[str, Any]] | None:
        raw = self.client.hget(keys.tournament(tournament_id), "doc")
        return None if raw is None else (text(raw), json.loads(raw))

    def read_many(self, ids: list[str]) -> list[dict[str, Any]]:
        if not ids:
            return []
        with self.client.pipeline(transaction=False) as pipe:
            for tournament_id in ids:
                pipe.hget(keys.tournament(tournament_id), "doc")
            return [json.loads(raw) for raw in pipe.execute() if raw is not None]

    def swap(self, before: str, after: dict[str, Any]) -> bool:
        """Write ``after`` if the document is still ``before`` ('' : not made yet), and its step."""
        after = {**after, "version": after.get("version", 0) + 1}
        name = step_name(after["id"])
        due = next_due(after)
        payload = "" if due is None else json.dumps({"tournament": after["id"], "version": after["version"]})
        key = keys.tournament(after["id"])
        args = [before, json.dumps(after), name, payload, max(due or 0, 0) or now_ms()]
        found = self.store.durably(key, lambda c: self._swap(keys=[key, *keys.outbox_of(name)], args=args, client=c))
        return bool(found)
