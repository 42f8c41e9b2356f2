"""Move a single-node store from key layout 1 to layout 2: ``bluemoon-migrate [--dry-run] [--url REDIS_URL]``.

Why: layout 1 gave every game its own ``{game:<id>}`` hash tag and kept one shared
``{outbox}`` for all games, so an append (a game's events and the outbox entries they write)
touched two slots and could not run on a Redis Cluster. Layout 2 (events/keys.py) puts a
game's keys and its shard's outbox under one shard tag. This command renames a store written
by the previous release, on the single node that holds it, before the data moves to a cluster.

How: stop the service and its workers, run ``bluemoon-migrate --dry-run`` to see every game,
key and outbox entry that would move, then ``bluemoon-migrate``. Each game's keys are copied
with DUMP/RESTORE (exact: stream entry ids, fields, everything), the copies compared with the
originals, and only then the originals deleted; each outbox entry (payload, due time, tries)
moves to its shard's outbox in one transaction. It is idempotent and resumable: a game whose old
keys are gone is done, a copy left by an interrupted run is checked and kept, and a second
run changes nothing and says so. A key that exists under both names with different contents
is never overwritten: the game is left alone and reported (exit 1). The seat tokens'
owners move from layout 1's one ``{index}:tokens`` hash to a key each, and the lobby's index from
its one ``{index}`` slot to the shards (each summary to its game's shard; a newer summary already
there is kept). RQ's keys are the same in both layouts and are not touched. Refuses a cluster
(exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import redis

from application.wiring import redis_url
from events import keys
from events.projection import GameIndex
from events.redis_store import text

#: Layout 1's shared outbox: payloads (hash), due (sorted set), tries (hash).
LEGACY_OUTBOX = ("{outbox}:payloads", "{outbox}:due", "{outbox}:tries")
LEGACY_TOKENS = "{index}:tokens"  #: layout 1's one hash of every seat token's owner (token digest -> game:seat)
LEGACY_PATTERN = "{game:*}:*"  #: every layout-1 game key (a glob: braces are plain characters)

#: A key's part (what follows the tag) -> its layout-2 name; webhook logs are ``webhook-log:<hook>``.
PARTS: dict[str, Callable[[str], str]] = {
    "events": keys.stream,
    "commands": keys.commands,
    "snapshot": keys.snapshot,
    "meta": keys.meta,
    "webhooks": keys.webhooks,
}


def legacy_key(game: str, part: str) -> str:
    """A layout-1 key: ``{game:<id>}:<part>`` (events, commands, snapshot, meta, webhooks,
    webhook-log:<hook>)."""
    return "{game:" + game + "}:" + part


def new_key(game: str, part: str) -> str:
    """The layout-2 name of a game's key; KeyError for a part layout 1 never had."""
    if part.startswith("webhook-log:"):
        return keys.webhook_log(game, part.removeprefix("webhook-log:"))
    return PARTS[part](game)


def contents(client: Any, key: str) -> tuple[str, Any]:
    """A key's type and everything in it, to compare a copy with its original."""
    kind = text(client.type(key))
    read: dict[str, Callable[[], Any]] = {
        "stream": lambda: client.xrange(key, "-", "+"),
        "hash": lambda: client.hgetall(key),
        "list": lambda: client.lrange(key, 0, -1),
        "zset": lambda: client.zrange(key, 0, -1, withscores=True),
        "set": lambda: client.smembers(key),
        "string": lambda: client.get(key),
    }
    return kind, read[kind]() if kind in read else None


@dataclass
class Summary:
    moved: list[str] = field(default_factory=list)  #: games moved by this run
    keys_moved: int = 0
    already_done: int = 0  #: games found on layout 2 with no layout-1 key left
    entries_moved: int = 0  #: outbox entries moved to their shards' outboxes
    entries_waiting: int = 0  #: entries of games not moved (yet): they move with their games
    tokens_moved: int = 0  #: seat tokens moved from the one hash to a key each
    summaries_moved: int = 0  #: lobby summaries moved from the one {index} hash to their shards
    problems: list[str] = field(default_factory=list)  #: what was left alone, and why


class Conflict(Exception):
    """A game or an entry that cannot be moved without losing something."""


def legacy_games(client: Any) -> dict[str, list[str]]:
    """Each layout-1 game and the parts of its keys (sorted: events first, as it was read)."""
    found: dict[str, set[str]] = {}
    for raw in client.scan_iter(match=LEGACY_PATTERN, count=1000):
        name = text(raw)
        game, _, part = name[len("{game:") :].partition("}:")
        found.setdefault(game, set()).add(part)
    return {game: sorted(parts, key=lambda p: (p != "events", p)) for game, parts in sorted(found.items())}


def layout_2_games(client: Any) -> set[str]:
    """The games whose stream is on layout 2."""
    return {keys.game_of(text(key)) for key in client.scan_iter(match=keys.STREAMS, count=1000)}


def legacy_entries(client: Any) -> list[str]:
    """The names of layout 1's outbox entries (payloads, due times and tries together)."""
    payloads, due, tries = LEGACY_OUTBOX
    names = {text(n) for n in client.hkeys(payloads)}
    names |= {text(n) for n in client.zrange(due, 0, -1)} | {text(n) for n in client.hkeys(tries)}
    return sorted(names)


def plan(game: str, parts: list[str]) -> list[tuple[str, str]]:
    """The game's keys: (layout-1 name, layout-2 name) each."""
    try:
        return [(legacy_key(game, p), new_key(game, p)) for p in parts]
    except KeyError as unknown:
        raise Conflict(f"game {game}: {legacy_key(game, unknown.args[0])} is no key of layout 1; left alone") from None


def check_new_names(client: Any, game: str, pairs: list[tuple[str, str]]) -> None:
    """A new name may be free, or hold the same as the old one (copied by an interrupted run);
    anything else stops the game before anything is written."""
    for old, new in pairs:
        if client.exists(new) and contents(client, new) != contents(client, old):
            raise Conflict(f"game {game}: {new} exists and differs from {old}; left alone")


def move_game(client: Any, game: str, pairs: list[tuple[str, str]]) -> None:
    """Copy each key to its new name (or keep the copy an interrupted run made), compare every
    copy with its original, then delete the originals."""
    check_new_names(client, game, pairs)
    for old, new in pairs:
        dumped = None if client.exists(new) else client.dump(old)  # an existing copy is the same
        if dumped is not None:
            client.restore(new, max(int(client.pttl(old)), 0), dumped)
    for old, new in pairs:
        if contents(client, new) != contents(client, old):
            raise Conflict(f"game {game}: the copy {new} differs from {old}; left alone")
    client.delete(*(old for old, _ in pairs))


def move_entry(client: Any, name: str) -> bool:
    """Move an outbox entry (payload, due time, tries) to its shard's outbox in one transaction;
    False when it is gone already. An entry by that name in the shard's outbox is never replaced."""
    old, new = LEGACY_OUTBOX, keys.outbox_of(name)
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(*old, *new)
                payload, due, tries = pipe.hget(old[0], name), pipe.zscore(old[1], name), pipe.hget(old[2], name)
                if payload is None and due is None and tries is None:
                    return False
                if pipe.hexists(new[0], name) or pipe.zscore(new[1], name) is not None:
                    raise Conflict(f"outbox entry {name}: {new[0]} holds one by that name already; left alone")
                pipe.multi()
                if payload is not None:
                    pipe.hset(new[0], name, payload)
                if due is not None:
                    pipe.zadd(new[1], {name: due})
                if tries is not None:
                    pipe.hset(new[2], name, tries)
                pipe.hdel(old[0], name).zrem(old[1], name).hdel(old[2], name)
                pipe.execute()
                return True
            except redis.WatchError:
                continue  # written meanwhile: read it again


def move_token(client: Any, hashed: str, owner: bytes) -> bool:
    """Move one seat token's owner to its own key (layout 2); an existing key must agree."""
    if not client.set(keys.token(hashed), owner, nx=True) and client.get(keys.token(hashed)) != owner:
        raise Conflict(f"seat token {hashed[:12]}…: {keys.token(hashed)} names another seat; left alone")
    client.hdel(LEGACY_TOKENS, hashed)
    return True


def migrate(client: Any, dry_run: bool = False, limit: int | None = None, out: TextIO | None = None) -> Summary:
    """Move the layout-1 games (at most ``limit``: a batch, or an interruption in a test), then
    the outbox entries of the games that are on layout 2. A dry run only prints what would move."""
    out = out or sys.stdout
    summary = Summary()
    games = legacy_games(client)
    summary.already_done = len(layout_2_games(client) - games.keys())
    staying = set(list(games)[limit:] if limit is not None else [])  # their outbox entries wait with them
    for game, parts in games.items():
        if game in staying:
            continue
        try:
            pairs = plan(game, parts)
            if dry_run:
                check_new_names(client, game, pairs)
                print(f"game {game}: {len(pairs)} keys", file=out)
                print("".join(f"  {old} -> {new}\n" for old, new in pairs), end="", file=out)
            else:
                move_game(client, game, pairs)
                print(f"moved game {game} ({len(pairs)} keys)", file=out)
        except Conflict as conflict:
            summary.problems.append(str(conflict))
            staying.add(game)
            continue
        summary.moved.append(game)
        summary.keys_moved += len(pairs)
    for name in legacy_entries(client):
        if keys.owner(name) in staying:
            summary.entries_waiting += 1
            continue
        if dry_run:
            print(f"outbox entry {name} -> {keys.outbox_of(name)[0]}", file=out)
            summary.entries_moved += 1
            continue
        try:
            summary.entries_moved += move_entry(client, name)
        except Conflict as conflict:
            summary.problems.append(str(conflict))
    for hashed, owner in list(client.hscan_iter(LEGACY_TOKENS, count=1000)):
        if dry_run:
            summary.tokens_moved += 1
            continue
        try:
            summary.tokens_moved += move_token(client, text(hashed), owner)
        except Conflict as conflict:
            summary.problems.append(str(conflict))
    for game, raw in list(client.hscan_iter(keys.LEGACY_INDEX_SUMMARY, count=1000)):
        summary.summaries_moved += 1
        if not dry_run:
            GameIndex(client).record_summary(json.loads(raw))
            client.hdel(keys.LEGACY_INDEX_SUMMARY, game)
    if not dry_run and not client.exists(keys.LEGACY_INDEX_SUMMARY):
        client.delete(keys.LEGACY_INDEX)
    return summary


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def report(summary: Summary, dry_run: bool, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for problem in summary.problems:
        print(f"NOT MOVED: {problem}", file=out)
    games, moved_keys = _n(len(summary.moved), "game", "games"), _n(summary.keys_moved, "key", "keys")
    entries, done = _n(summary.entries_moved, "outbox entry", "outbox entries"), summary.already_done
    entries += f", {_n(summary.tokens_moved, 'seat token', 'seat tokens')}"
    entries += f" and {_n(summary.summaries_moved, 'lobby summary', 'lobby summaries')}"
    waiting = f"; {summary.entries_waiting} outbox entries wait with their games" if summary.entries_waiting else ""
    if dry_run:
        print(
            f"dry run: would move {games} ({moved_keys}), {entries}; {done} games already on layout 2{waiting}; "
            "nothing changed",
            file=out,
        )
    elif (
        not (
            summary.moved
            or summary.entries_moved
            or summary.tokens_moved
            or summary.summaries_moved
            or summary.problems
        )
        and not waiting
    ):
        print(f"nothing to move: all {done} games are on layout 2 already", file=out)
    else:
        print(f"moved {games} ({moved_keys}), {entries}; {done} games already done{waiting}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="print what would move; change nothing")
    parser.add_argument("--url", help="the Redis to migrate (default: REDIS_URL, else the embedded server)")
    parser.add_argument("--limit", type=int, help="move at most this many games, then stop (run again for the rest)")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be 1 or more")
    if args.url is None:
        args.url = redis_url()
    client = redis.Redis.from_url(args.url)
    try:
        if int(client.info("cluster").get("cluster_enabled", 0)):
            print(
                f"{args.url} is a Redis Cluster node: migrate on the single node that holds the store, "
                "then move the data to the cluster",
                file=sys.stderr,
            )
            return 2
        summary = migrate(client, dry_run=args.dry_run, limit=args.limit)
    except redis.ConnectionError as error:
        print(f"cannot reach Redis at {args.url}: {error}", file=sys.stderr)
        return 2
    finally:
        client.close()
    report(summary, args.dry_run)
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
