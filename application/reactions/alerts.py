"""A person's turn alert and its deadline reminder, when a turn of a seat kept in an account
starts (application/alerts/entries.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.alerts.entries import alert_entries
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    return alert_entries(change.game, change.events, change.first_version, change.after, change.settings)
