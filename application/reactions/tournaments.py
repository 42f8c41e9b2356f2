"""A tournament's game that ends asks for its result to be recorded in its round
(application/tournaments/rounds.py), by the same append that ends it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.tournaments.documents import result_entry
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    ends = change.after.finished and (change.before is None or not change.before.finished)
    found = result_entry(change.game, change.settings.get("origin")) if ends else None
    return [found] if found is not None else []
