"""Redis memory per archived game, and how fast games move to the archive (application/archive/).

Makes N finished games (two people, a one-command scenario game: seat tokens, an index entry, the
log, settings and records), measures Redis' ``used_memory`` before them, with them, and after
every one moved to the archive, and times the moves. Prints the memory left per archived game
(the goal: under 100 bytes), the memory each move freed, and moves per second.

    python bench/archive_memory.py [--games N]     (REDIS_URL, else an embedded server; ARCHIVE_URL,
                                                     else an SQLite file in a temporary folder)
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout, so that bench.* imports when run as python bench/archive_memory.py
os.environ.setdefault("ARCHIVE_URL", f"sqlite:///{tempfile.mkdtemp(prefix='bluemoon-archive-')}/archive.sqlite3")

import redis  # noqa: E402

from application.background.handoff import CallbackHandoff  # noqa: E402
from application.review.reviews import PREFIX  # noqa: E402
from bench.server import redis_for  # noqa: E402
from events import keys  # noqa: E402
from service.app import create_app  # noqa: E402

SCENARIO = {
    "seats": [{"kind": "human"}, {"kind": "human"}],
    "scenario": {
        "hands": [["black-1a", "black-2a"], ["black-3a", "black-1b"]],
        "figures": ["courtyard", "courtyard"],
        "crystals": [20, 0],
        "scales": [3, 1],
        "dragons": [],
        "markers": [],
        "obelisk": [0, 0, 0, 0, 0],
        "scale_supply": 1,
    },
}


def finished_game(web) -> str:
    """A game that ends with seat 0's first command (its sixth obelisk offering)."""
    made = web.post("/games", json=SCENARIO).get_json()
    game, token = made["game"], made["seats"][0]["token"]
    head = {"Authorization": f"Bearer {token}"}
    legal = web.get(f"/games/{game}/legal", headers=head).get_json()
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    web.post(f"/games/{game}/commands", json=offer, headers={**head, "If-Match": f'"{legal["version"]}"'})
    return game


def used(client: redis.Redis) -> int:
    gc.collect()
    return int(client.info("memory")["used_memory"])


@dataclass(frozen=True)
class Figures:
    held: float  #: bytes of Redis a finished game held before its move
    left: float  #: bytes of Redis left a game after its move (the goal: under 100)
    keys_left: int  #: keys that still name one of the games
    moves_per_second: float
    used: tuple[int, int, int]  #: used_memory before the games, with them, after their moves


def measured(client: redis.Redis, n: int) -> Figures:
    """N finished games made, measured, moved and measured again on ``client``'s Redis (best alone)."""
    app = create_app({"REDIS_CLIENT": client, "HANDOFF": CallbackHandoff(lambda _: None), "RATE_LIMIT": 0})
    components, web = app.extensions["bluemoon"], app.test_client()
    components.mover.move(finished_game(web))  # every script loaded, every structure made once
    client.delete(*(keys.unstarted(shard) for shard in range(keys.SHARDS)))
    empty = used(client)
    games = [finished_game(web) for _ in range(n)]
    # the sweep of games never started drops each game's note within 7 days of its creation,
    # before its move is due (7 days after its end): not the archive's to count
    client.delete(*(keys.unstarted(shard) for shard in range(keys.SHARDS)))
    # each game's review is asked for at its end and done by the reviews worker within minutes,
    # days before its move: its outbox entry is long gone by then, as here (no worker runs)
    for game in games:
        entry = f"{PREFIX}{game}"
        payload = client.hget(keys.outbox_of(entry)[0], entry)
        if payload is not None:
            components.service.outbox.finish(entry, payload.decode())
    held = used(client)
    started = time.perf_counter()
    moved = [components.mover.move(game) for game in games]
    took = time.perf_counter() - started
    after = used(client)
    assert moved == ["moved"] * n, set(moved)
    left = sum(1 for game in games for _ in client.scan_iter(match=f"*{game}*", count=1000))
    return Figures((held - empty) / n, (after - empty) / n, left, n / took, (empty, held, after))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    n = parser.parse_args().games
    with redis_for("archive", persist=False) as url:
        found = measured(redis.Redis.from_url(url), n)
    empty, held, after = found.used
    print(f"used_memory: {empty:,} before the games, {held:,} with them, {after:,} after their moves")
    print(f"{n} finished games: Redis held {found.held:,.0f} bytes a game before their move")
    print(f"after the move: {found.left:,.1f} bytes a game left (goal < 100); keys naming a game: {found.keys_left}")
    print(f"moves: {found.moves_per_second:,.0f} games/s ({1000 / found.moves_per_second:.1f} ms each)")


if __name__ == "__main__":
    main()
