"""A turn for the workers: a bot's (due now) or a human's deadline (due when it passes),
written when a turn starts or the game ends (which clears it): application/background/turns.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.background.turns import starts_work, turn_entry
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    if not starts_work(change.events, change.after):
        return []
    return [turn_entry(change.game, change.after, change.settings)]
