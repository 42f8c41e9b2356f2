"""Whose a command id is. An Idempotency-Key is the sending seat's: the store records a seat's
command under ``<seat>:<key>``, so that a key one seat used names nothing for another (an
opponent who sends the key a bot will use next takes nothing from the bot), and a retry from the
same seat with the same key still answers its original. The turn jobs (a bot's or a deadline's
move, workers/turn_jobs.py) record theirs in a scope of their own, ``bot:<game>:<version>:<seat>``:
a seat's ids begin with its number, so no key a player sends can take a job's.
"""

from __future__ import annotations

from domain.options import PLAYERS

#: The turn jobs' scope, for bot and deadline moves alike: their ids have always begun with it,
#: so a job retried across an upgrade still finds the commands it applied before.
TURN_JOBS = "bot"


def scoped(sender: str, key: str) -> str:
    """The stored command id of ``key`` sent by ``sender``: a seat's number, or TURN_JOBS."""
    return f"{sender}:{key}"


def of_any_seat(key: str) -> list[str]:
    """The stored ids ``key`` has for each seat a game can have: a request's record is read in the
    round trip that tells whose seat its token is, before its seat is known."""
    return [scoped(str(seat), key) for seat in range(max(PLAYERS))]
