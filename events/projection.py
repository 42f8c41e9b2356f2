"""The game index: a projection of every game's stream into lists for the lobby.

Each append writes the game's summary from the new state with its events (``GameIndex.write``,
in the append's own script: the summaries share the game's slot), and the index can be rebuilt
from the streams at any time (``rebuild``), so losing or corrupting it loses nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from domain import Game, fold

from . import keys
from .archive import Archive
from .endings import end_fields
from .redis_store import RECORD_SUMMARY, text
from .serialization import StoredEvent
from .store import EventStore, IndexWrite


def seat_names(seats: list[dict[str, Any]]) -> list[str]:
    """What the lobby calls each seat: its player's name, else what sits there."""
    return [s.get("name") or (f"{s.get('level')} bot" if s["kind"] == "bot" else f"{s['kind']} seat") for s in seats]


def summary(
    game: str,
    state: Game,
    created: str,
    updated: str | None = None,
    names: list[str] | None = None,
    meta: str | None = None,
) -> dict[str, Any]:
    """What the lobby shows of a game: public facts only. ``updated``: when its last events
    were appended (the creation, when not given); ``names``: each seat's, to name the game by;
    ``meta``: the record of the command whose events made ``state`` (how a game ended)."""
    turn = state.turn
    return {
        "game": game,
        "created": created,
        "updated": updated or created,
        "version": state.version,
        "status": "finished" if state.finished else "active",
        "players": state.options.players,
        "edition": state.options.edition.value,
        "scenario": state.scenario,
        "expansion": state.options.expansion,
        "turn": None if state.finished or turn is None else turn.seat,
        "turn_number": None if turn is None else turn.number,
        "winners": None if state.result is None else list(state.result.winners),
        "names": names or [],
        **end_fields(state, meta),
    }


# KEYS: the shard's summaries, then its listings (all, active, finished). ARGV: game, version,
# JSON summary, listing entry, status. Never goes backwards; a finished game leaves "active".
RECORD = (
    RECORD_SUMMARY
    + """
return record_summary(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5])
"""
)

# KEYS: the shard's summaries. ARGV: game, version, JSON summary. Replaces the summary of that
# very version (the seats' names changed: a join), never a newer one.
RENAME = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old or cjson.decode(old).version ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

#: A listing entry, as ``Page.next`` gives it: ``<ms>:<game>``, or ``<0|1>:<ms>:<game>`` in a
#: person's list (my turn first).
CURSOR = re.compile(r"^(?:[01]:)?[0-9]{13}:[A-Za-z0-9_-]{1,64}$")


class Page(NamedTuple):
    games: list[dict[str, Any]]
    next: str | None  #: the cursor for the next (older) page, None on the last one


def page_of(named: dict[str, dict[str, Any]], limit: int, after: str | None) -> Page:
    """A page of summaries held in memory (a person's few games), by their names newest first,
    paged the way the index pages every game."""
    names = sorted((name for name in named if after is None or name < after), reverse=True)
    return Page([named[name] for name in names[:limit]], names[limit - 1] if len(names) > limit else None)


class GameIndex:
    """Sharded like the games: each shard keeps the summaries and listings of its own games,
    and a page merges the newest entries of every shard, reading only the summaries it shows."""

    def __init__(self, client: Any, archive: Archive | None = None) -> None:
        self.client = client
        self.archive = archive  #: finished games moved out of Redis, with their summaries and listing entries
        self._record = client.register_script(RECORD)
        self._rename = client.register_script(RENAME)

    def record(
        self,
        game: str,
        state: Game,
        created: str,
        updated: str | None = None,
        names: list[str] | None = None,
        meta: str | None = None,
    ) -> None:
        """Store the summary unless a newer one is already there (two writers may race)."""
        self.record_summary(summary(game, state, created, updated, names, meta))

    @staticmethod
    def write(
        game: str,
        state: Game,
        created: str,
        updated: str | None = None,
        names: list[str] | None = None,
        meta: str | None = None,
    ) -> IndexWrite:
        """``record``'s summary as an append writes it with its events (EventStore.append)."""
        doc = summary(game, state, created, updated, names, meta)
        return IndexWrite(json.dumps(doc), entry(game, created), doc["status"])

    def record_summary(self, doc: dict[str, Any]) -> bool:
        """Store a summary (``record``'s, or one moved from an older index) unless a newer one
        is there; True when it was stored."""
        game, shard = doc["game"], keys.shard(doc["game"])
        return bool(
            self._record(
                keys=[keys.index_summaries(shard), *(keys.index_listing(shard, name) for name in keys.LISTINGS)],
                args=[game, doc["version"], json.dumps(doc), entry(game, doc["created"]), doc["status"]],
            )
        )

    def rename(self, game: str, names: list[str]) -> bool:
        """The seats' names changed (someone joined) while the game did not: its summary says so."""
        found = self.get(game)
        if found is None:
            return False
        doc = {**found, "names": names}
        return bool(
            self._rename(keys=[keys.index_summaries(keys.shard(game))], args=[game, doc["version"], json.dumps(doc)])
        )

    def get(self, game: str) -> dict[str, Any] | None:
        return self.summaries([game]).get(game)

    def summaries(self, games: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The summaries of ``games`` that are indexed: one HMGET per shard that holds any, in
        one pipeline (a person's hundred games cost one round trip, not a hundred)."""
        by_shard: dict[int, list[str]] = {}
        for game in games:
            by_shard.setdefault(keys.shard(game), []).append(game)
        pipe = self.client.pipeline(transaction=False)
        for shard, held in by_shard.items():
            pipe.hmget(keys.index_summaries(shard), held)
        found = {}
        for held, raws in zip(by_shard.values(), pipe.execute()):
            found.update({g: _loaded(raw) for g, raw in zip(held, raws) if raw is not None})
        missing = [game for games in by_shard.values() for game in games if game not in found]
        if missing and self.archive is not None:
            found.update({g: _loaded(raw) for g, raw in self.archive.summaries(missing).items()})
        return found

    def page(self, status: str | None = None, limit: int = 100, after: str | None = None) -> Page:
        """The ``limit`` newest games older than the cursor ``after``, optionally of one status.

        Each shard gives at most ``limit`` entries of its listing (a lexicographic range: no
        summary read); the newest ``limit`` of them all are the page, and only their summaries
        are read, one HMGET per shard that holds any."""
        listing = status or "all"
        newest = "(" + after if after else "+"
        pipe = self.client.pipeline(transaction=False)
        for shard in range(keys.SHARDS):
            pipe.zrevrangebylex(keys.index_listing(shard, listing), newest, "-", start=0, num=limit + 1)
        entries = sorted((text(e) for found in pipe.execute() for e in found), reverse=True)
        if self.archive is not None and listing in ("all", "finished"):  # archived games are finished ones
            entries = sorted({*entries, *self.archive.listing(after, limit + 1)}, reverse=True)
        shown = entries[:limit]
        docs = self.summaries(game_of(e) for e in shown)
        return Page(
            [docs[game_of(e)] for e in shown if game_of(e) in docs], shown[-1] if len(entries) > limit else None
        )

    def rebuild(self, store: EventStore) -> tuple[int, dict[str, str]]:
        """Re-project every stream. Returns how many games were indexed, and the streams
        that would not fold (with why): those need a look, not silence."""
        for shard in range(keys.SHARDS):
            self.client.delete(keys.index_summaries(shard))
            for name in keys.LISTINGS:
                self.client.delete(keys.index_listing(shard, name))
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
                last = store.read(game, after=state.version - 1)
                seats, made = self.client.hmget(keys.meta(game), ["seats", "created"])
                names = seat_names(json.loads(seats)) if seats else None
                # the creation time the service indexed (and names the listings' entries by), else the first event's
                created = json.loads(made) if made else first[0].at
                self.record(game, state, created, last[-1].at if last else None, names, last[-1].meta if last else None)
                count += 1
        return count, broken

    def complete_archived(self, store: EventStore, page: int = 200) -> int:
        """Complete the archive's summaries written before a field existed, from each game's
        archived events (``completed``); returns how many were rewritten."""
        if self.archive is None:
            return 0
        count, after = 0, ""
        while found := self.archive.summaries_from(after, page):
            for game, raw in found:
                doc = json.loads(raw)
                done = completed(doc, store.read(game))
                if done is not doc:
                    self.archive.resummarise(game, json.dumps(done))
                    count += 1
            after = found[-1][0]
        return count


def completed(doc: dict[str, Any], stored: list[StoredEvent]) -> dict[str, Any]:
    """A summary written before it had ``places`` and ``ended``, completed from the game's events
    (``stored``, all of them); a summary that has them, as it is."""
    if ("places" in doc and "ended" in doc) or not stored:
        return doc
    state = fold(s.event for s in stored)
    return {**doc, **end_fields(state, stored[-1].meta)}


def entry(game: str, created: str) -> str:
    """A game's name in the listings: its creation time first, so names sort newest last."""
    millis = round(datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp() * 1000)
    return f"{millis:013d}:{game}"


def game_of(entry: str) -> str:
    return entry.split(":", 1)[1]


def _loaded(raw: bytes | str) -> dict[str, Any]:
    """A stored summary, with what summaries written before a field existed lack."""
    doc = json.loads(raw)
    doc.setdefault("scenario", False)  # indexed before scenario games existed
    doc.setdefault("updated", doc["created"])  # indexed before the last move's time was kept
    doc.setdefault("names", [])  # indexed before summaries named the seats
    return doc
