"""A finished game moves from Redis to the archive, exactly once, and loses nothing on the way.

The append that ends a game writes the outbox entry ``ar:<game>``, due ``ARCHIVE_AFTER_SECONDS``
(7 days) later (application/reactions/archive.py); the dispatcher hands it to
``workers.archive_jobs.move``, which calls ``Mover.move``:

1. read everything Redis holds of the game (its events, settings and records, index summary,
   the owners of its seat tokens);
2. put it in the archive, committed (a game already there is not written again);
3. let Redis go, in one script in the game's slot, only if the stream is still as archived:
   the game's keys, its index summary and listing entries;
4. delete its seat tokens' keys (other slots), then the outbox entry.

A process killed anywhere leaves the entry, and the next claim runs the move again: before 2
nothing was written; after 2 the archive has the game once and step 3 runs; after 3 Redis no
longer has the game, and the tokens listed in the archive are deleted. Every read of the game
answers the same throughout: Redis while it has the game, else the archive (events/redis_store.py,
application/games/reads.py, events/projection.py). A game with other work still in the outbox
(a rating, a delivery) waits for it: its move is tried again ``RETRY_SECONDS`` later.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

from application import settings
from application.background.work import WORK
from application.games.sweeps import chat_keys, game_keys
from events import keys
from events.archive import Archive, ArchivedGame
from events.outbox import Outbox, now_ms
from events.projection import completed, entry
from events.redis_store import decode_entry, text
from events.store import OutboxWrite

PREFIX = WORK["archive"].prefix  #: the outbox entries of moves: ``ar:<game>``
REVIEW_PREFIX = WORK["review"].prefix  #: a game's review: its move does not wait for it
RETRY_SECONDS = 3600  #: a game whose other work is still in the outbox is looked at again this much later

# KEYS: the game's keys, its stream first; then its shard's index summaries and listings (all,
# active, finished). ARGV: game, the version archived, its listing entry, how many game keys.
# Deletes nothing (0) unless the stream is still as archived.
LET_GO = """
local n = tonumber(ARGV[4])
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[2]) then return 0 end
for i = 1, n do redis.call('DEL', KEYS[i]) end
redis.call('HDEL', KEYS[n + 1], ARGV[1])
for i = n + 2, n + 4 do redis.call('ZREM', KEYS[i], ARGV[3]) end
return 1
"""


def archive_entry(game: str, ended_ms: int) -> OutboxWrite:
    """The outbox entry that moves ``game``, ended at ``ended_ms``, once ARCHIVE_AFTER_SECONDS have passed."""
    return OutboxWrite(
        PREFIX + game, json.dumps({"game": game}), ended_ms + settings.ARCHIVE_AFTER_SECONDS.read() * 1000
    )


class Mover:
    def __init__(self, client: Any, archive: Archive, outbox: Outbox) -> None:
        self.client = client
        self.archive = archive
        self.outbox = outbox
        self._let_go = client.register_script(LET_GO)

    def move(self, game: str) -> str:
        """Move the finished ``game`` (see the module's steps): ``moved``, ``waiting`` (other
        work of the game is still in the outbox: tried again later), ``not finished`` or
        ``unknown`` (in neither Redis nor the archive)."""
        name = PREFIX + game
        stored = self.client.hget(keys.outbox_of(name)[0], name)  # as written (it may carry a request id)
        payload = text(stored) if stored is not None else json.dumps({"game": game})
        found = self.collected(game)
        if found is None:
            parts = self.archive.parts(game)
            if parts is None:
                return "unknown"
            self._forget_tokens(parts.get("tokens", []))  # a move killed after its let-go
            self.outbox.finish(name, payload)
            return "moved"
        if json.loads(found.summary).get("status") != "finished":
            return "not finished"
        if self._pending(game):
            self.outbox.renew(name, payload, due_ms=now_ms() + RETRY_SECONDS * 1000)
            return "waiting"
        self.archive.put(found, now_ms())  # committed, or raises: then Redis keeps the game
        pause = settings.ARCHIVE_PAUSE_MS.read()
        if pause:
            time.sleep(pause / 1000)
        self._release(found)
        self._forget_tokens(list(found.tokens))
        self.outbox.finish(name, payload)
        return "moved"

    def backfill(self) -> int:
        """Ask for the move of every finished game in Redis that has not asked for it (it ended before
        moves existed), due ARCHIVE_AFTER_SECONDS after its last event; returns how many were asked
        for. An entry already there is left as it is, so running it twice asks for nothing twice."""
        asked = 0
        for shard in range(keys.SHARDS):
            listed = [text(name) for name in self.client.zrange(keys.index_listing(shard, "finished"), 0, -1)]
            games = [name.split(":", 1)[1] for name in listed]
            for game, raw in zip(games, self.client.hmget(keys.index_summaries(shard), games) if games else []):
                if raw is None:
                    continue
                ended = datetime.fromisoformat(json.loads(raw)["updated"].replace("Z", "+00:00"))
                write = archive_entry(game, int(ended.timestamp() * 1000))
                asked += self.outbox.add(write.name, write.payload or "", write.due_ms)
        return asked

    def collected(self, game: str) -> ArchivedGame | None:
        """Everything Redis holds of ``game`` that the archive keeps, or None without the game."""
        shard = keys.shard(game)
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys.meta(game))
            for part in (keys.webhooks, keys.seat_accounts, keys.clock, keys.commands, keys.rematch):
                pipe.hgetall(part(game))
            pipe.get(keys.game_ratings(game))
            pipe.hget(keys.index_summaries(shard), game)
            pipe.xrange(keys.stream(game), "-", "+")
            pipe.get(keys.review(game))
            meta, hooks, accounts, clock, commands, rematch, ratings, summary, entries, review = pipe.execute()
        if not meta or summary is None:  # a game's index summary is written with its every append
            return None
        meta = _texts(meta)
        digests = [seat["token"] for seat in json.loads(meta["seats"]) if seat.get("token")]
        with self.client.pipeline(transaction=False) as pipe:
            for digest in digests:
                pipe.get(keys.token(digest))
            for hook in hooks:
                pipe.lrange(keys.webhook_log(game, text(hook)), 0, -1)
            replies = pipe.execute()
        owners = {d: text(o) for d, o in zip(digests, replies) if o is not None}
        logs = {text(hook): [text(line) for line in lines] for hook, lines in zip(hooks, replies[len(digests) :])}
        parts = {
            "meta": meta,
            "webhooks": _texts(hooks),
            "accounts": _texts(accounts),
            "clock": _texts(clock),
            "commands": _texts(commands),
            "rematch": _texts(rematch),
            "ratings": None if ratings is None else text(ratings),
            "webhook_logs": logs,
            "tokens": sorted(owners),
        }
        if review is not None:  # its review, when done before the move, goes with it (application/review/)
            parts["review"] = text(review)
        events = [_texts(fields) for _, fields in entries]
        listing = entry(game, json.loads(meta["created"]))
        doc = json.loads(summary)  # one written before a field existed is archived complete
        done = completed(doc, [decode_entry(fields) for _, fields in entries]) if doc["status"] == "finished" else doc
        kept = text(summary) if done is doc else json.dumps(done)
        return ArchivedGame(game, listing, len(events), kept, parts, events, owners)

    def _pending(self, game: str) -> bool:
        """Whether work of the game other than its move (and its review, which needs only its
        events and follows it: application/review/reviews.py) is still in its shard's outbox."""
        payloads = keys.outbox(keys.shard(game))[0]
        return any(
            keys.owner(text(name)) == game and not text(name).startswith((PREFIX, REVIEW_PREFIX))
            for name, _ in self.client.hscan_iter(payloads, match=f"*{game}*")
        )

    def _release(self, found: ArchivedGame) -> None:
        """Redis lets the game go: its keys and index entries, in one script in its slot. A
        stream longer than archived (no finished game takes events: a fault) keeps it all."""
        game, shard = found.game, keys.shard(found.game)
        kept = set(chat_keys(game))  # the chat stays with the game, in Redis: the archive does not hold it
        if "review" not in found.parts:  # one written since it was collected stays, and expires
            kept.add(keys.review(game))
        held = [key for key in game_keys(game) if key not in kept]
        held += [keys.webhook_log(game, hook) for hook in found.parts["webhook_logs"]]
        index = [keys.index_summaries(shard), *(keys.index_listing(shard, name) for name in keys.LISTINGS)]
        if not self._let_go(keys=[*held, *index], args=[game, found.version, found.listing, len(held)]):
            raise RuntimeError(f"{game}: its stream changed after its end; Redis keeps it, the archive's copy is stale")
        if "review" not in found.parts:
            self.client.expire(keys.review(game), settings.REVIEW_KEPT_SECONDS.read())

    def _forget_tokens(self, digests: list[str]) -> None:
        """The seat tokens' keys (each in a slot of its own); the archive answers for them now."""
        with self.client.pipeline(transaction=False) as pipe:
            for digest in digests:
                pipe.delete(keys.token(digest))
            pipe.execute()


def _texts(found: Any) -> dict[str, str]:
    """A hash as Redis gave it, as text."""
    return {text(k): text(v) for k, v in (found or {}).items()}
