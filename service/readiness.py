"""What ``/readyz`` asks before it says the process is ready: that each store it needs answers.
A list, by name: the game store and the job queue's Redis (a web process that cannot enqueue
a bot's turn is not ready either); the archive (application/archive/) adds its own check the
same way, ``checks["the archive"] = <a function that raises when it cannot be reached>``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis
from redis.exceptions import RedisClusterException

#: the errors a check may raise to say "not reachable now"; a check of another kind adds its own
UNREACHABLE: tuple[type[BaseException], ...] = (redis.RedisError, RedisClusterException, OSError)


class Readiness:
    """The checks /readyz runs, in order: each a name and a function that raises when what it
    checks cannot be reached."""

    def __init__(self, checks: dict[str, Callable[[], Any]]) -> None:
        self.checks = checks

    def failing(self) -> list[str]:
        """What is unreachable now, each said with its error's kind ("the job queue's Redis
        (ConnectionError)"); empty when everything answers."""
        failed = []
        for name, check in self.checks.items():
            try:
                check()
            except UNREACHABLE as error:
                failed.append(f"{name} ({type(error).__name__})")
        return failed
