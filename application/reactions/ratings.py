"""The rating of a rated game, when the game ends (application/lobby/ratings.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.lobby.ratings import rating_entry
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    return [rating_entry(change.game)] if change.after.finished and change.settings.get("rated") else []
