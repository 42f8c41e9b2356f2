"""Games never started are removed, keys and all, so that games made and left cost nothing for ever.

A game made by ``POST /games`` is *never started* when, ``UNSTARTED_GAME_SECONDS`` (7 days) after
its creation, it has not ended and either a seat is still open (its invite was never used) or no
seat has played a command of its own (its log holds only the opening, and turns bots or
deadlines played). Games made from an open game or as a rematch are not swept: every seat of
those was taken by a person who asked for it.

Each game made is noted, due at its creation plus ``UNSTARTED_GAME_SECONDS``, in its shard's
sorted set, and in the same round trip up to ``SWEEP_BATCH`` due notes of that shard are looked
at (so the sweeping keeps pace with the making; ``sweep`` looks at every shard), and the games
never started removed: their keys, their seat tokens, their index entries, their outbox entries and the
accounts' links to their seats. A game that started is kept, and its note dropped.
"""

from __future__ import annotations

import json
import time
from typing import Any

from application import settings
from application.chat.messages import ROOMS
from events import keys
from events.projection import entry
from events.redis_store import text

UNSTARTED_GAME_SECONDS = settings.UNSTARTED_GAME_SECONDS.read()
SWEEP_BATCH = 10  #: due games looked at by one sweep
_SCAN_PAGE = 100  #: events read at a time when looking for a seat's own command


class Sweeper:
    def __init__(self, client: Any) -> None:
        self.client = client

    def made(self, game: str) -> list[str]:
        """Note ``game``, just made, to be looked at once it could be overdue, and sweep its
        shard's due games in the same round trip (games are made evenly over the shards, so
        each shard is swept at the pace its games are made). Returns the games removed."""
        at, notes = int(time.time() * 1000), keys.unstarted(keys.shard(game))
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(notes, {game: at + UNSTARTED_GAME_SECONDS * 1000})
            pipe.zrangebyscore(notes, "-inf", at, start=0, num=SWEEP_BATCH)
            _, due = pipe.execute()
        return self._removed([text(found) for found in due])

    def sweep(self, limit: int = SWEEP_BATCH) -> list[str]:
        """Look at up to ``limit`` due games of every shard; remove those never started. Returns them."""
        at = int(time.time() * 1000)
        with self.client.pipeline(transaction=False) as pipe:
            for shard in range(keys.SHARDS):
                pipe.zrangebyscore(keys.unstarted(shard), "-inf", at, start=0, num=limit)
            due = [text(game) for found in pipe.execute() for game in found][:limit]
        return self._removed(due)

    def _removed(self, due: list[str]) -> list[str]:
        removed = []
        for game in due:
            if self.never_started(game):
                self.remove(game)
                removed.append(game)
            self.client.zrem(keys.unstarted(keys.shard(game)), game)
        return removed

    def never_started(self, game: str) -> bool:
        """Not ended, and a seat still open or no seat's own command in the log."""
        summary = self.client.hget(keys.index_summaries(keys.shard(game)), game)
        if summary is not None and json.loads(summary).get("status") == "finished":
            return False
        seats = self.client.hget(keys.meta(game), "seats")
        if seats is None or any(s["kind"] == "open" for s in json.loads(seats)):
            return True
        after = "-"
        while True:
            found = self.client.xrange(keys.stream(game), min=after, count=_SCAN_PAGE)
            if any(text(fields.get(b"actor", fields.get("actor", ""))).isdigit() for _, fields in found):
                return False  # a seat played (bots and deadlines act as bot:..., deadline:...)
            if len(found) < _SCAN_PAGE:
                return True
            after = "(" + text(found[-1][0])

    def remove(self, game: str) -> None:
        """Every key of ``game``, and every key that names it elsewhere."""
        meta, shard = keys.meta(game), keys.shard(game)
        raw = self.client.hgetall(meta)
        seats = json.loads(raw.get(b"seats", raw.get("seats", "[]")))
        created = raw.get(b"created", raw.get("created"))
        holders = self.client.hgetall(keys.seat_accounts(game))
        hooks = self.client.hkeys(keys.webhooks(game))
        payloads, due, tries = keys.outbox(shard)
        work = [text(name) for name, _ in self.client.hscan_iter(payloads, match=f"*{game}*")]
        with self.client.pipeline(transaction=False) as pipe:
            for seat in seats:
                if seat.get("token"):
                    pipe.delete(keys.token(seat["token"]))
            for account in holders.values():
                pipe.hdel(keys.account_seats(text(account)), game)
            if created is not None:
                listed = entry(game, json.loads(created))
                for name in keys.LISTINGS:
                    pipe.zrem(keys.index_listing(shard, name), listed)
            pipe.hdel(keys.index_summaries(shard), game)
            for name in [game, *work]:
                if keys.owner(name) == game:
                    pipe.hdel(payloads, name)
                    pipe.zrem(due, name)
                    pipe.hdel(tries, name)
            for key in [*(keys.webhook_log(game, text(hook)) for hook in hooks), *game_keys(game)]:
                pipe.delete(key)  # one key each: a cluster's pipeline deletes no more at once
            pipe.execute()


def chat_keys(game: str) -> list[str]:
    """A game's chat: its rooms, their removals and their notices (application/chat/)."""
    return [*(keys.chat(game, room) for room in ROOMS), keys.chat_removed(game), keys.chat_notices(game)]


def game_keys(game: str) -> list[str]:
    """Every key of a game (events/keys.py) but its webhooks' logs."""
    parts = (keys.stream, keys.commands, keys.snapshot, keys.meta, keys.webhooks, keys.game_ratings, keys.rematch)
    found = [part(game) for part in (*parts, keys.seat_accounts, keys.clock, keys.watchers)]
    found += chat_keys(game)
    found += [keys.game_deliveries(game), keys.review(game)]
    return found + [keys.finished_document(game, document) for document in ("log", "audit")]
