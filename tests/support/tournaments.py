"""Tournaments as the tests run them (application/tournaments/): the work the outbox hands on, run
in this process one job at a time as the workers would (a list drained in a loop, not a call
inside the append that handed it on), and a tournament's spec."""

from __future__ import annotations

import time
import uuid
from collections import deque
from typing import Any

from application.background.handoff import CallbackHandoff
from application.background.turns import TurnTicket
from application.wiring import Components
from workers.person_stream_jobs import write_now
from workers.rating_jobs import rate_now
from workers.tournament_jobs import apply_now
from workers.turn_jobs import play


class Worklist:
    """A ``Handoff`` keeping what it is handed; ``drain`` runs it (turns, ratings, people's
    news and tournaments' steps; other kinds are left)."""

    def __init__(self) -> None:
        self.work: deque[tuple[str, Any]] = deque()
        self.c: Components | None = None
        kinds = ("rating", "person_stream", "tournament")
        self.handoff = CallbackHandoff(
            lambda ticket: self.work.append(("turn", ticket)),
            **{kind: (lambda claim, kind=kind: self.work.append((kind, claim))) for kind in kinds},
        )

    def drain(self, most: int = 100_000) -> int:
        """Run the work handed on, and what it hands on, until none is left; returns how many jobs ran."""
        c = self.c
        assert c is not None, "bind the components first"
        ran = 0
        while self.work and ran < most:
            kind, work = self.work.popleft()
            ran += 1
            if kind == "turn":
                ticket: TurnTicket = work
                play(c.service, ticket.game, ticket.seat, ticket.turn, ticket.played_as or ticket.level, ticket.reason,
                     payload=ticket.payload())  # fmt: skip
            elif kind == "rating":
                rate_now(c.service, c.ratings, work.name, work.payload)
            elif kind == "person_stream":
                write_now(c, work.name, work.payload)
            else:
                apply_now(c, work.name, work.payload)
        return ran

    def due(self) -> int:
        """Claim what is due in the outbox now (a dispatcher's round), then drain it."""
        assert self.c is not None
        self.c.service.dispatch()
        return self.drain()


def spec(**given: Any) -> dict[str, Any]:
    """A tournament as asked for: a Swiss of 2 rounds at tables of 2, starting in a minute."""
    return {
        "name": f"cup {uuid.uuid4().hex[:6]}",
        "format": {"kind": "swiss", "table_size": 2, "rounds": 2},
        "edition": "cmon",
        "expansion": False,
        "rated": False,
        "turn_deadline": None,
        "deadline_level": "pass",
        "clock": None,
        "round_seconds": 86400,
        "starts": int(time.time() * 1000) + 60_000,
        "min_players": 2,
        "max_players": 16,
        "bot_accounts": True,
        "bot_levels": True,
        **given,
    }


def account(c: Components, name: str) -> str:
    """A new account (unique id) named ``name``."""
    made = f"{name}-{uuid.uuid4().hex[:8]}"
    c.accounts.create_without_email(made, name)
    return made


def start_now(c: Components, tournament_id: str) -> None:
    """Move the tournament's start to now (as time would), by its own document's swap."""
    raw, doc = c.tournaments.document(tournament_id)
    assert c.tournaments.documents.swap(raw, {**doc, "starts": int(time.time() * 1000) - 1})
