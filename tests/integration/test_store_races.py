"""Races on a real Redis: many writers at one version, exactly one wins each round."""

from __future__ import annotations

import multiprocessing
import random
import threading

import redis

from domain import Options, decide, fold, legal_commands, new_game
from events.redis_store import RedisStore
from events.store import WrongExpectedVersion

ROUNDS = 8


def _attempt(url: str, game: str, version: int, pick: int) -> tuple[str, int]:
    """Load the game, choose a legal command, and append it at ``version``."""
    client = redis.Redis.from_url(url)
    try:
        store = RedisStore(client)
        state = fold(s.event for s in store.read(game, until=version))
        legal = list(legal_commands(state, state.turn.seat))
        events = decide(state, legal[pick % len(legal)])
        try:
            outcome = store.append(game, version, events, command_id=f"{version}-{pick}", command_hash=str(pick))
            return "won", outcome.last
        except WrongExpectedVersion as stale:
            return "stale", stale.current
    finally:
        client.close()


def _race(url: str, game: str, contenders: int, run) -> None:  # type: ignore[no-untyped-def]
    store = RedisStore(redis.Redis.from_url(url))
    store.append(game, 0, new_game(Options(4), b"race"))
    seen_states = []
    for _ in range(ROUNDS):
        version = store.version(game)
        results = run(version)
        winners = [r for r in results if r[0] == "won"]
        assert len(winners) == 1, results
        assert all(r[0] == "stale" and r[1] == winners[0][1] for r in results if r[0] != "won")
        seen_states.append(store.load(game, snapshots=False))
    stored = store.read(game)
    assert [s.seq for s in stored] == list(range(1, len(stored) + 1))  # no gap, no duplicate
    assert fold(s.event for s in stored) == seen_states[-1]


def test_twenty_threads_at_one_version(redis_url, game_id):
    def run(version):
        barrier = threading.Barrier(20)
        results = [None] * 20

        def worker(i):
            barrier.wait()
            results[i] = _attempt(redis_url, game_id, version, i)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results

    _race(redis_url, game_id, 20, run)


def test_four_processes_at_one_version(redis_url, game_id):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:

        def run(version):
            picks = random.sample(range(1000), 4)
            return pool.starmap(_attempt, [(redis_url, game_id, version, p) for p in picks])

        _race(redis_url, game_id, 4, run)
