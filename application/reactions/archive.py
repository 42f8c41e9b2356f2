"""The move of a finished game to the archive, asked for by the append that ends it
(application/archive/moves.py), due ``ARCHIVE_AFTER_SECONDS`` later."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.archive.moves import archive_entry
from events.outbox import now_ms
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    ends = change.after.finished and (change.before is None or not change.before.finished)
    return [archive_entry(change.game, now_ms())] if ends else []
