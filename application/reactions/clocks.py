"""The clock's record: a bank charged for the turn that ended, the turn that started noted
(application/games/clocks.py), written by the append itself so it is never behind an acknowledged
turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.games.clocks import Clocks
from events.outbox import now_ms
from events.store import HashWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[HashWrite]:
    record = Clocks.record(change.game, change.events, change.settings, now_ms())
    return [record] if record is not None else []
