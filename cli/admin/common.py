"""What every ``bluemoon-admin`` command shares: its answer (words for people, JSON for
scripts), the errors it reports as such, and the connections it opens."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from application.background.rq_handoff import RQHandoff
from application.settings import BLUEMOON_QUEUE
from application.wiring import Components, build, queue_url, store_url


@dataclass
class Answer:
    data: Any  #: what ``--json`` prints
    lines: list[str] = field(default_factory=list)  #: what a person reads


class Refused(Exception):
    """The command cannot do what was asked: its message says why (exit 1)."""


#: Every command's own options: ``--json`` after the command's name, as scripts write it.
OPTIONS = argparse.ArgumentParser(add_help=False)
OPTIONS.add_argument("--json", action="store_true", help="print JSON for scripts instead of words")


def command(group: Any, name: str, run: Callable[[argparse.Namespace], Answer], help: str) -> argparse.ArgumentParser:
    """A subcommand of ``group`` that runs ``run``."""
    parser = group.add_parser(name, parents=[OPTIONS], help=help, description=help)
    parser.set_defaults(run=run)
    return parser


def components(handing: bool = False) -> Components:
    """The application on the store's Redis (STORE_URL, else REDIS_URL or the embedded one);
    ``handing``: the work its appends ask for is enqueued on RQ, as the web process does."""
    return build(
        url=store_url(), handoff=RQHandoff(queue_connection(), queue=BLUEMOON_QUEUE.read()) if handing else None
    )


def queue_connection() -> redis.Redis:
    """RQ's Redis (QUEUE_URL, else REDIS_URL)."""
    return redis.Redis.from_url(queue_url())
