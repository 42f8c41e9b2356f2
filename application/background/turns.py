"""Turns the workers play: a bot's, or a human's whose deadline has passed.

A turn is an outbox entry written by the same append as the events that start it, so no
acknowledged command loses the work it started. This module says what that entry holds and
which level plays a claim of it after earlier claims died.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from typing import Any

import orjson

from application.games.clocks import deadline_ms
from domain import Event, Game
from domain.events import TurnStarted
from events.outbox import Claim, now_ms
from events.store import OutboxWrite

log = logging.getLogger("bluemoon.handoff")  #: the hand-off's log, where a fallback was always told


@dataclass(frozen=True)
class TurnTicket:
    """A turn the workers must play: a bot's, or a human's whose deadline has passed. It is
    the payload of the game's outbox entry, written with the events that start the turn."""

    game: str
    version: int  #: the version when the turn started
    seat: int
    turn: int  #: the turn number; a job for a turn that is over does nothing
    level: str  #: bot level, or ``pass`` to end a late human's turn
    reason: str  #: ``bot`` or ``deadline``
    deadline_ms: int | None = None  #: for a deadline: when it passes (epoch ms), shown in views
    tries: int = 1  #: which claim of the outbox entry this is (2 and more: an earlier job died)
    played_as: str | None = None  #: the level the job plays, when a fallback replaces ``level``
    request_id: str | None = None  #: the request that started the turn (application/telemetry/request_ids.py)

    def payload(self) -> str:
        """The outbox entry's text: the turn, without how this claim plays it (as the append
        wrote it: ``request_id`` only when one was stamped on it)."""
        doc = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("tries", "played_as")}
        if self.request_id is None:
            del doc["request_id"]
        return json.dumps(doc, sort_keys=True)

    @classmethod
    def from_payload(cls, payload: str, tries: int = 1) -> TurnTicket:
        return cls(**orjson.loads(payload), tries=tries)

    @property
    def job_id(self) -> str:
        return f"{self.reason}-{self.game}-{self.version}-{self.tries}"


#: Claims of one turn after which its bot level gives way: a job that died twice (a crash in
#: the bot, a killed worker) is played by greedy, and after that the turn is simply ended.
GREEDY_AFTER, PASS_AFTER = 2, 3


def fallback_level(ticket: TurnTicket) -> str:
    if ticket.tries > PASS_AFTER:
        return "pass"
    if ticket.tries > GREEDY_AFTER and ticket.level not in ("pass", "random"):
        return "greedy"
    return ticket.level


def starts_work(events: list[Event], state: Game) -> bool:
    """Whether these events change what the workers must do: a turn starts, or the game ends."""
    return state.finished or any(isinstance(e, TurnStarted) for e in events)


def turn_entry(game: str, state: Game, settings: dict[str, Any]) -> OutboxWrite:
    """The outbox entry for ``state``'s turn: a bot's turn (due now), a human's deadline
    (due when it passes), or none."""
    turn = state.turn
    if state.finished or turn is None:
        return OutboxWrite(game, None)
    seat = settings["seats"][turn.seat]
    if seat["kind"] == "bot":
        ticket = TurnTicket(game, state.version, turn.seat, turn.number, seat.get("level") or "greedy", "bot")
        return OutboxWrite(game, ticket.payload(), now_ms())
    due = deadline_ms(settings, turn.seat, now_ms())
    if due is not None:
        level = settings.get("deadline_level") or "pass"
        ticket = TurnTicket(game, state.version, turn.seat, turn.number, level, "deadline", deadline_ms=due)
        return OutboxWrite(game, ticket.payload(), due)
    return OutboxWrite(game, None)


def job_id(claim: Claim) -> str:
    """The job of this claim of a turn's entry (``TurnTicket.job_id``)."""
    return TurnTicket.from_payload(claim.payload, claim.tries).job_id


def to_play(claim: Claim) -> TurnTicket:
    """The claimed turn as its job plays it: at its fallback level after repeated claims."""
    ticket = TurnTicket.from_payload(claim.payload, claim.tries)
    fallback = fallback_level(ticket)
    if fallback != ticket.level:
        log.warning(
            "turn %s of %s: claim %d, playing it as %s instead of %s",
            ticket.turn,
            ticket.game,
            ticket.tries,
            fallback,
            ticket.level,
        )
    return dataclasses.replace(ticket, played_as=fallback)


def job_arguments(ticket: TurnTicket) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``workers.turn_jobs.play_turn``'s arguments: the turn, the level it is played at, and
    the entry's payload (whose lease the job renews)."""
    args = (ticket.game, ticket.seat, ticket.turn, ticket.played_as or ticket.level, ticket.reason)
    return args, {"payload": ticket.payload()}
