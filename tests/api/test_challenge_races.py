"""Challenges raced on the real Redis (application/challenges/challenges.py): two accepts at once
make one game, and an accept at the moment the challenge expires is either accepted (its game
made, nobody told it expired) or expired (no game), never both."""

from __future__ import annotations

import functools
import threading
import time

from application.challenges.challenges import ChallengeAnswered
from events import keys
from tests.support.challenges import challenge, components
from tests.support.lobby import account_of, people
from tests.support.person_stream import kinds, news, write_news_at_once


def _together(*calls):
    """Run the calls at once in threads; each one's result or exception."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, call):
        barrier.wait()
        try:
            results[i] = call()
        except Exception as error:  # the race's loser: kept to be looked at
            results[i] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return results


def test_two_accepts_at_once_start_one_game(api_real):
    api = api_real
    write_news_at_once(api)
    ann, ben = people(api, "ann.race", "ben.race")
    ben_id = account_of(api, ben)
    c = components(api)
    for _ in range(5):
        sent = challenge(api, ann, ben_id, rated=False)
        accept = functools.partial(c.challenges.accept, sent["id"], ben_id)
        first, second = _together(accept, accept)
        assert first["game"] == second["game"] and first["status"] == "accepted"
    games = api.get("/me/games?limit=50", headers={"Authorization": f"Bearer {ben}"}).json["games"]
    assert len(games) == 5
    assert kinds(news(api, ann)).count("challenge.accepted") == 5
    assert kinds(news(api, ben)).count("game.started") == 5


def test_an_accept_at_the_moment_of_expiry_is_accepted_or_expired_never_both(api_real):
    api = api_real
    write_news_at_once(api)
    ann, ben = people(api, "ann.expiry", "ben.expiry")
    ben_id = account_of(api, ben)
    c = components(api)
    outcomes = []
    for _ in range(8):
        sent = challenge(api, ann, ben_id, rated=False)
        due = int(time.time() * 1000) + 40
        c.client.hset(keys.challenge(sent["id"]), "expires", due)  # it expires in 40 ms
        time.sleep(max(0.0, due / 1000 - time.time() - 0.001))
        accepted, expired = _together(
            functools.partial(c.challenges.accept, sent["id"], ben_id),
            functools.partial(c.challenges.expire, sent["id"]),
        )
        final = c.challenges._read(sent["id"])
        told = [e for e in news(api, ann) if e["game"] == sent["id"]]
        if final["status"] == "accepted":
            assert accepted["game"] == final["game"] and c.client.exists(keys.stream(final["game"]))
            assert kinds(told) == ["challenge.accepted"]
        else:
            assert final["status"] == "expired" and isinstance(accepted, ChallengeAnswered)
            assert final["game"] is None and kinds(told) == ["challenge.expired"]
        assert expired["status"] in ("open", final["status"])  # too early, else what happened (by it or the accept)
        outcomes.append(final["status"])
    seated = api.get("/me/games?limit=50", headers={"Authorization": f"Bearer {ben}"}).json["games"]
    assert len(seated) == outcomes.count("accepted")
