"""Every kind of background work in one table: what names its outbox entries, which job runs
it, on which queue, under which lease, and who hands it on.

An append writes a kind's outbox entries (``<prefix><game>...``) with its events
(application/reactions/); the dispatcher claims them and hands each to the workers
(application/background/handoff.py); RQ's adapter enqueues the kind's job on the kind's queue
(application/background/rq_handoff.py); the worker imports the jobs and listens on the queues this table
names (cli/bluemoon_worker.py). None of them names a kind: a new one is a row here and its job
in ``workers/`` (docs/architecture.md, "Adding a kind of background work").

The jobs are named by their dotted path, as text: the application never imports ``workers``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from application.background import turns
from application.settings import BLUEMOON_TURN_LEASE_MS
from events.outbox import Claim

LEASE_MS = BLUEMOON_TURN_LEASE_MS.read()  #: every kind's lease today (docs/settings.md)

TURNS, DELIVERIES, REVIEWS = "turns", "deliveries", "reviews"
#: The queues, in the order a worker that serves several takes them: the game's own work
#: first; deliveries (which wait on other people's servers) on a queue of their own, so that a
#: receiver that never answers holds only delivery workers (application/background/rq_handoff.py);
#: reviews (seconds of CPU each, application/review/) last, on their own: a bot's reply never waits behind one.
QUEUES = (TURNS, DELIVERIES, REVIEWS)

#: The arguments a job is enqueued with: positional and keyword.
Arguments = tuple[tuple[Any, ...], dict[str, Any]]


def claimed(claim: Claim) -> Claim:
    """What most jobs are handed: the claimed entry itself."""
    return claim


def name_and_payload(claim: Claim) -> Arguments:
    """Most jobs' arguments: the entry's name and payload (``job(name, payload)``)."""
    return (claim.name, claim.payload), {}


def tried(claim: Claim) -> Arguments:
    """A job that gives up after some claims: the entry's name, payload and this claim's number."""
    return (claim.name, claim.payload, claim.tries), {}


def named_job_id(claim: Claim) -> str:
    """A job named by its entry and the claim: ``rt-<game>-<tries>`` for ``rt:<game>``, every colon
    a dash (RQ takes letters, digits, ``_`` and ``-`` only): ``ps-<game>-<what>-<account>-<tries>``."""
    return f"{claim.name.replace(':', '-')}-{claim.tries}"


def message_job_id(claim: Claim) -> str:
    """A delivery's or an alert's job: named by its message id and the claim (an entry such as a
    deadline's keeps its name across turns, its message is new each time); a redelivery's by its
    mark too, as its claims count from 1 again: RQ would otherwise take it for the first
    delivery's job of that claim, and run or save one over the other."""
    message = json.loads(claim.payload)
    again = f"-{message['redelivery'][:12]}" if message.get("redelivery") else ""
    return f"{claim.name.partition(':')[0]}-{message['id']}{again}-{claim.tries}"


def versioned_job_id(claim: Claim) -> str:
    """A tournament's job: its step keeps its name from one version of the document to the next
    (application/tournaments/documents.py), so the version its payload names is in the id."""
    return f"{claim.name.replace(':', '-')}-{json.loads(claim.payload).get('version', 0)}-{claim.tries}"


@dataclass(frozen=True)
class Kind:
    """One kind of background work (a row of ``WORK``)."""

    name: str
    prefix: str  #: its outbox entries are named ``<prefix><game>...``; "" only for the game's turn
    job: str  #: the RQ job function's dotted name in ``workers/``
    queue: str  #: TURNS, DELIVERIES or REVIEWS: which workers take it
    lease_ms: int  #: how long a claim or a job's renewal holds an entry (events/outbox.py)
    timeout: int  #: seconds RQ lets one job run
    at_once: bool  #: handed on by the appending process when due now; else only by a dispatcher
    job_id: Callable[[Claim], str] = named_job_id  #: one job id per claim of the entry
    work: Callable[[Claim], Any] = claimed  #: what a claim becomes when handed on
    arguments: Callable[[Any], Arguments] = name_and_payload  #: the job's arguments, from the work

    def __post_init__(self) -> None:
        if self.queue not in QUEUES:
            raise ValueError(f"{self.name}: queue {self.queue!r} is none of {QUEUES}")
        if self.prefix and not (self.prefix.endswith(":") and self.prefix.count(":") == 1):
            raise ValueError(f"{self.name}: a prefix is a word and a colon, not {self.prefix!r}")


class Registry:
    """The kinds, found by the names of their outbox entries. Everything that hands work on
    reads the one instance, ``WORK``, when it needs a kind, never a copy of it."""

    def __init__(self, kinds: tuple[Kind, ...]) -> None:
        if len({kind.prefix for kind in kinds}) != len(kinds) or len({kind.name for kind in kinds}) != len(kinds):
            raise ValueError("each kind has a name and a prefix of its own")
        self.kinds = kinds

    def __iter__(self) -> Iterator[Kind]:
        return iter(self.kinds)

    def __getitem__(self, name: str) -> Kind:
        return next(kind for kind in self.kinds if kind.name == name)

    def of(self, entry: str) -> Kind:
        """The kind of the outbox entry named ``entry``: by its prefix, else (a game's id) the
        kind without one. KeyError for a prefix no kind has: work no table entry runs."""
        prefix = entry[: entry.index(":") + 1] if ":" in entry else ""
        found = next((kind for kind in self.kinds if kind.prefix == prefix), None)
        if found is None:
            raise KeyError(f"no kind of background work has the prefix {prefix!r} ({entry})")
        return found

    def leases(self) -> dict[str, int]:
        """Each prefix's lease (events/outbox.py's ``Outbox(leases=...)``)."""
        return {kind.prefix: kind.lease_ms for kind in self.kinds}

    def queues(self) -> tuple[str, ...]:
        """The queues the kinds run on, in QUEUES' order."""
        used = {kind.queue for kind in self.kinds}
        return tuple(queue for queue in QUEUES if queue in used)

    def job_modules(self) -> tuple[str, ...]:
        """The modules of the jobs, each once: what a worker imports before it forks."""
        return tuple(dict.fromkeys(kind.job.rpartition(".")[0] for kind in self.kinds))


WORK = Registry(
    (
        Kind(
            "turn",
            "",
            "workers.turn_jobs.play_turn",
            TURNS,
            LEASE_MS,
            timeout=60,  # a bot turn takes far less
            at_once=True,
            job_id=turns.job_id,
            work=turns.to_play,
            arguments=turns.job_arguments,
        ),
        Kind("rating", "rt:", "workers.rating_jobs.rate", TURNS, LEASE_MS, timeout=60, at_once=True),
        Kind(
            "webhook",
            "wh:",
            "workers.webhook_delivery.deliver",
            DELIVERIES,
            LEASE_MS,
            timeout=30,  # a delivery waits at most 5 s for its receiver
            at_once=False,  # a command's answer costs the same however many webhooks listen
            job_id=message_job_id,
        ),
        Kind(
            "person_stream",
            "ps:",
            "workers.person_stream_jobs.write",
            TURNS,  # a write to Redis, never a wait on another server
            LEASE_MS,
            timeout=30,
            at_once=True,  # a person following their stream hears of their turn as soon as the game's watchers do
        ),
        Kind(
            "app_webhook",
            "aw:",
            "workers.app_webhook_delivery.deliver",
            DELIVERIES,
            LEASE_MS,
            timeout=30,  # a delivery waits at most 5 s for its receiver
            at_once=False,
            job_id=message_job_id,
        ),
        Kind(
            "archive",
            "ar:",
            "workers.archive_jobs.move",
            TURNS,  # Redis and the archive, never another server
            LEASE_MS,
            timeout=60,  # a game's few hundred events
            at_once=False,  # due days after the game's end
        ),
        Kind(
            "challenge",
            "ch:",
            "workers.challenge_jobs.expire",
            TURNS,  # a write to Redis, never a wait on another server
            LEASE_MS,
            timeout=30,
            at_once=False,  # due days after it is written: the dispatcher claims it then
        ),
        Kind(
            "tournament",
            "tn:",
            "workers.tournament_jobs.apply",
            TURNS,  # writes to Redis, and games played out by the clock
            LEASE_MS,
            timeout=120,  # a round's pairing and games, or one game played out by the clock
            at_once=True,  # a round's end pairs the next one at once
            job_id=versioned_job_id,
        ),
        Kind(
            "alert",
            "al:",
            "workers.alert_jobs.send",
            DELIVERIES,
            LEASE_MS,
            timeout=30,
            at_once=False,
            job_id=message_job_id,
        ),
        Kind(
            "review",
            "rv:",
            "workers.review_jobs.review",
            REVIEWS,  # seconds of one core each: never in a bot's way
            LEASE_MS,  # the job renews its lease while it computes
            timeout=900,  # seconds of wall time: a four-player game's review on a niced worker of a busy machine
            at_once=True,  # the appender (or POST /review) enqueues it; a reviews worker computes it
            arguments=tried,
        ),
    )
)
