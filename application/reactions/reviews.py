"""A finished game's review, asked for by the append that ends it (application/review/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.review.reviews import review_entry
from events.store import OutboxWrite

if TYPE_CHECKING:
    from application.reactions import Change


def react(change: Change) -> list[OutboxWrite]:
    ends = change.after.finished and (change.before is None or not change.before.finished)
    return [review_entry(change.game)] if ends else []
