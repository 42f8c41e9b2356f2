"""A finished game's review, computed once by a job on its own queue and kept with the game.

The append that ends a game writes the outbox entry ``rv:<game>`` (application/reactions/reviews.py);
``POST /games/{game}/review`` writes the same entry for a game that ended without one (before
reviews existed, or moved to the archive since), and asks for nothing when the game has a
review or one is under way: one review per game, however often it is asked for. The job
(``workers.review_jobs.review``, on the ``reviews`` queue, which only reviews workers take)
computes it from the revealed log (``domain.review``), renewing the entry's lease meanwhile,
and records it with the game in one script, which writes the review unless one is there and
removes the entry: a retried or duplicated job records nothing twice. A job that dies stops
renewing, and the entry is claimed again after its lease;
after ``REVIEW_ATTEMPTS`` claims the review is recorded as failed, so that a game whose
review cannot be computed costs a bounded amount of CPU.

Nothing of it exists before the end: the entry is written only for a finished game, and the
job refuses a game that is not (its seed is revealed only then).

Where it is kept: under the game's key ``review`` in its slot. The archive's move takes it with
the game (``parts["review"]``, application/archive/moves.py); a review recorded after the move
stays in Redis for ``REVIEW_KEPT_SECONDS``, and is asked for again after that.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from application import settings
from application.background.work import WORK
from domain.review.review import EARLIEST_METHOD
from events import keys
from events.outbox import Outbox, now_ms
from events.redis_store import RedisStore, text
from events.store import OutboxWrite

PREFIX = WORK["review"].prefix  #: a game's review's outbox entry: ``rv:<game>``
DONE, FAILED, PENDING, NONE = "done", "failed", "pending", "none"

# KEYS: the review, the game's meta, the shard's outbox (payloads, due, tries). ARGV: the record,
# the entry, its payload, seconds a review of a game no longer in Redis (moved) is kept.
# Writes the record unless a review is there (1, else 0), and removes the entry if it still
# holds the payload: once, whoever runs it and however often.
RECORD = """
local written = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('SET', KEYS[1], ARGV[1])
  else
    redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[4]))
  end
  written = 1
end
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[3] then
  redis.call('HDEL', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[2])
  redis.call('HDEL', KEYS[5], ARGV[2])
end
return written
"""


def review_entry(game: str) -> OutboxWrite:
    """The outbox entry that has ``game``'s review computed, due now."""
    return OutboxWrite(PREFIX + game, json.dumps({"game": game}), now_ms())


class Reviews:
    """Finished games' reviews: asked for, recorded once, read back (see the module doc)."""

    def __init__(self, store: RedisStore, outbox: Outbox) -> None:
        self.store = store
        self.client = store.client
        self.outbox = outbox
        self._record = self.client.register_script(RECORD)

    def kept(self, game: str) -> dict[str, Any] | None:
        """The game's review record (``status``: done or failed), from Redis, else the archive."""
        found = self.client.get(keys.review(game))
        if found is None:
            archive = self.store.moved(game)
            parts = archive.parts(game) if archive is not None else None
            found = parts.get("review") if parts else None
        if found is None:
            return None
        record = dict(json.loads(text(found)))
        if record.get("review"):  # one kept before reviews named their method
            record["review"] = {"method": EARLIEST_METHOD, **record["review"]}
        return record

    def pending(self, game: str) -> bool:
        """Whether the game's review is asked for and not yet recorded."""
        name = PREFIX + game
        return bool(self.client.hexists(keys.outbox_of(name)[0], name))

    def status(self, game: str) -> tuple[str, dict[str, Any] | None]:
        """``(done, record)``, ``(failed, record)``, ``(pending, None)`` or ``(none, None)``."""
        record = self.kept(game)
        if record is not None:
            return record["status"], record
        return (PENDING if self.pending(game) else NONE), None

    def ask(self, game: str) -> str:
        """Ask for the finished ``game``'s review unless it has one or one is under way: its
        status afterwards (``pending`` when asked for now)."""
        status, _ = self.status(game)
        if status == NONE:
            write = review_entry(game)
            self.outbox.add(write.name, write.payload or "", write.due_ms)
            return PENDING
        return status

    def review(self, name: str, payload: str, tries: int, compute: Callable[[str], dict[str, Any]]) -> str:
        """The job's work on the entry ``name``: ``compute`` the game's review and record it,
        or record it failed after REVIEW_ATTEMPTS claims. Returns what happened."""
        game = json.loads(payload)["game"]
        if self.kept(game) is not None:
            self.outbox.finish(name, payload)  # recorded by an earlier run: only the entry goes
            return "already reviewed"
        if tries > settings.REVIEW_ATTEMPTS.read():
            self.record(name, payload, {"status": FAILED, "attempts": tries - 1})
            return "failed"
        with self._held(name, payload):
            review = compute(game)
            pause = settings.REVIEW_PAUSE_MS.read()
            if pause:
                time.sleep(pause / 1000)
        return "reviewed" if self.record(name, payload, {"status": DONE, "review": review}) else "already reviewed"

    @contextmanager
    def _held(self, name: str, payload: str) -> Iterator[None]:
        """The entry renewed every third of its lease while the review is computed: a job that
        dies stops renewing, and the entry is claimed again a lease later."""
        stop = threading.Event()

        def renew() -> None:
            while not stop.wait(self.outbox.lease_of(name) / 3000):
                self.outbox.renew(name, payload)

        holder = threading.Thread(target=renew, name="review-lease", daemon=True)
        holder.start()
        try:
            yield
        finally:
            stop.set()
            holder.join()

    def record(self, name: str, payload: str, record: dict[str, Any]) -> bool:
        """Record the game's review (unless one is there) and remove its entry, at once."""
        game = json.loads(payload)["game"]
        names = [keys.review(game), keys.meta(game), *keys.outbox_of(name)]
        kept = settings.REVIEW_KEPT_SECONDS.read()
        return bool(self._record(keys=names, args=[json.dumps(record), name, payload, kept]))
