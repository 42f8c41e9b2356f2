"""What an append's events cause besides themselves: work for the workers (outbox entries) and
the clock's record, written by the same append (one Lua script), so no acknowledged command
loses what it started.

Each reaction is a module of its own with one function, ``react(change)``, returning writes;
``GameService`` runs the list below inside every append (a new game's first one included: the
store's ``writes_for``) and knows none of them by name. A new side effect is a module here and
a line in ``REACTIONS``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from application.background.work import WORK
from application.reactions import (
    alerts,
    archive,
    clocks,
    person_streams,
    ratings,
    reviews,
    tournaments,
    turn_handoff,
    webhooks,
)
from application.telemetry.request_ids import stamped
from domain import Event, Game
from events.serialization import StoredEvent
from events.store import HashWrite, OutboxWrite

#: What a reaction returns: outbox entries, or the record an append writes beside its events
#: (at most one an append: events/store.py).
Write = OutboxWrite | HashWrite


@dataclass(frozen=True)
class Change:
    """One append, as the reactions see it."""

    game: str
    events: list[Event]
    stored: list[StoredEvent]  #: the events as the append stores them (their versions and time)
    before: Game | None  #: the state the command was judged against; None for a new game
    after: Game  #: the state after the events
    settings: dict[str, Any]  #: the game's settings (seats, deadline, webhooks, accounts, clocks)

    @property
    def first_version(self) -> int:
        """The version of the first event."""
        return (self.before.version if self.before is not None else 0) + 1


class Reaction(Protocol):
    def __call__(self, change: Change) -> Sequence[Write]: ...


#: In this order: the turn's entry first (the appending process hands on what is due in order).
REACTIONS: tuple[Reaction, ...] = (
    turn_handoff.react,
    alerts.react,
    ratings.react,
    webhooks.react,
    clocks.react,
    person_streams.react,
    archive.react,
    tournaments.react,
    reviews.react,
)


def writes(change: Change) -> list[Write]:
    """Every write the change causes, reaction by reaction. An outbox entry of no kind in the
    table (application/background/work.py) would wait for ever: KeyError, and nothing is
    appended."""
    made = [write for react in REACTIONS for write in react(change)]
    for write in made:
        if isinstance(write, OutboxWrite):
            WORK.of(write.name)
    # the request whose command this is goes with the work it causes (application/telemetry/request_ids.py)
    return [dataclasses.replace(w, payload=stamped(w.payload)) if isinstance(w, OutboxWrite) else w for w in made]
