"""A person's play through a generated client's models (tests/e2e/test_generated_clients.py and
tests/e2e/test_client_packages.py play whole games against a greedy bot with it)."""

from __future__ import annotations

import random
from typing import Any


def choose_like_a_human(commands: list[Any], rnd: random.Random) -> Any:
    """A human's pick: build when possible (so the game ends), else mostly move, else the Reset."""
    by_type: dict[str, list] = {}
    for command in commands:
        by_type.setdefault(command.type_, []).append(command)
    for kind in ("offer", "contribute"):
        if by_type.get(kind):
            return rnd.choice(by_type[kind])
    if by_type.get("move") and rnd.random() < 0.6:
        return rnd.choice(by_type["move"])
    return by_type["end_turn"][0]
