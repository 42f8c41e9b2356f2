"""The rating of a rated game, when the game ends (application/ratings.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from events.store import OutboxWrite

from ..ratings import rating_entry

if TYPE_CHECKING:
    from . import Change


def react(change: Change) -> list[OutboxWrite]:
    return [rating_entry(change.game)] if change.after.finished and change.settings.get("rated") else []
