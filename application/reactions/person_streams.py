"""The news of an append for each person it concerns, carried to their streams by the outbox
(application/person_stream/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.person_stream.entries import entries
from application.person_stream.news import of_change
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    return entries(change.game, str(change.first_version), of_change(change))
