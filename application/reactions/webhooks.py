"""The game's webhooks' deliveries of these events, their bodies made of the events as stored
(application/webhook_subscriptions.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from events.store import OutboxWrite

from ..webhook_subscriptions import deliveries

if TYPE_CHECKING:
    from . import Change


def react(change: Change) -> list[OutboxWrite]:
    hooks = change.settings.get("webhooks")
    return deliveries(change.game, hooks, change.stored, change.after, change.settings) if hooks else []
