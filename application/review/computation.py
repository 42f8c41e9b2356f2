"""What a review is computed from: the finished game's published log, its seed revealed, reviewed
as ``bluemoon-review log.json`` reviews it (application/games/log_review.py): the same numbers."""

from __future__ import annotations

from typing import Any

from application.games.codec import event_to_json
from application.games.game_service import GameService
from application.games.log_review import review_log
from application.refusals import NotFinished

NOT_BEFORE_THE_END = "a game is reviewed once it has ended and its seed is revealed"


def computed(service: GameService, game: str) -> dict[str, Any]:
    """The review of the finished ``game``; refused (NotFinished) before its end, when its seed
    and hidden cards are still secret."""
    if not service.state(game).finished:
        raise NotFinished(NOT_BEFORE_THE_END)
    events = [event_to_json(stored, stored.event) for stored in service.store.read(game)]  # as GET /log serves them
    return review_log({"game": game, "events": events})
