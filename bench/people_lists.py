"""The people's reads at their caps: how long a friends list page and a profile take on a real
Redis, and how much memory a person's notes take at their quota.

- ``--friends`` people (100: a page of ``GET /me/follows`` at its largest), each seated in
  ``--games`` games (half still going), read as one page by ``Friends.page``;
- a profile (``Profiles.profile``) of a person seated in ``--seats`` games;
- ``MOST_NOTES`` notes of ``MOST_NOTE_CHARACTERS`` characters each: the notes hash's Redis memory.

Games are written as the index's summaries only (events/projection.py): those are what the reads
read. Bounded: well under a minute with the defaults.

    python bench/people_lists.py [--friends 100] [--games 50] [--seats 5000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.people.friends import Friends  # noqa: E402
from application.people.notes import MOST_NOTE_CHARACTERS, MOST_NOTES, Notes  # noqa: E402
from application.people.profiles import Profiles  # noqa: E402
from application.wiring import build  # noqa: E402
from bench.server import redis_for  # noqa: E402
from events import keys  # noqa: E402


def seated(components, account: str, games: int) -> None:
    """``account`` in ``games`` games of two, half of them finished, as the index records them."""
    seats = {}
    for i in range(games):
        game = uuid.uuid4().hex
        finished = i % 2 == 1
        components.service.index.record_summary(
            {
                "game": game,
                "created": "2026-11-28T00:00:00.000+00:00",
                "updated": f"2026-11-28T00:{i // 60 % 60:02d}:{i % 60:02d}.000+00:00",
                "version": 10,
                "status": "finished" if finished else "active",
                "players": 2,
                "edition": "cmon",
                "scenario": False,
                "expansion": False,
                "turn": None if finished else 0,
                "turn_number": 3,
                "winners": [0] if finished else None,
                "names": ["Friend", "greedy bot"],
            }
        )
        seats[game] = 0
    components.client.hset(keys.account_seats(account), mapping=seats)


def timed(read, runs: int = 20) -> tuple[float, float]:
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        read()
        took.append((time.perf_counter() - start) * 1000)
    return statistics.median(took), max(took)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--friends", type=int, default=100)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seats", type=int, default=5000)
    args = parser.parse_args()
    with redis_for("people", persist=False) as url:
        c = build(url)
        me = uuid.uuid4().hex
        c.accounts.create_without_email(me, "Me")
        for n in range(args.friends):
            friend = uuid.uuid4().hex
            c.accounts.create_without_email(friend, f"Friend {n}")
            seated(c, friend, args.games)
            c.relations.follow(me, friend)
        friends = Friends(c.relations, c.ratings, c.service.index)
        median, most = timed(lambda: friends.page(me, args.friends))
        shown = sum(len(f["games"]) for f in friends.page(me, args.friends)["friends"])
        print(f"friends list: {args.friends} friends x {args.games} games: median {median:.1f} ms, max {most:.1f} ms")
        print(f"  ({shown} current games shown)")
        busy = uuid.uuid4().hex
        c.accounts.create_without_email(busy, "Busy")
        seated(c, busy, args.seats)
        profiles = Profiles(c.accounts, c.ratings, c.relations, c.service.index)
        median, most = timed(lambda: profiles.profile(busy, me))
        print(f"profile of a person in {args.seats} games: median {median:.1f} ms, max {most:.1f} ms")
        notes = Notes(c.store)
        for n in range(MOST_NOTES):
            notes.put(me, "player", f"p{n:032d}", "é" * MOST_NOTE_CHARACTERS)
        memory = c.client.memory_usage(keys.notes(me))
        print(
            f"notes: {MOST_NOTES} of {MOST_NOTE_CHARACTERS} characters (2 bytes each in UTF-8): {memory / 2**20:.1f} MiB"
        )


if __name__ == "__main__":
    main()
