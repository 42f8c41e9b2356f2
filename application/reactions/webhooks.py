"""The game's webhooks' deliveries of these events, their bodies made of the events as stored
(application/outbound/webhooks.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.outbound.webhooks import deliveries
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    hooks = change.settings.get("webhooks")
    return deliveries(change.game, hooks, change.stored, change.after, change.settings) if hooks else []
