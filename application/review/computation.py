"""What a review is computed from: the finished game's whole log, its seed revealed (domain/review)."""

from __future__ import annotations

from typing import Any

from application.games.game_service import GameService
from application.refusals import NotFinished
from domain.review import review_game

NOT_BEFORE_THE_END = "a game is reviewed once it has ended and its seed is revealed"


def computed(service: GameService, game: str) -> dict[str, Any]:
    """The review of the finished ``game``; refused (NotFinished) before its end, when its seed
    and hidden cards are still secret."""
    if not service.state(game).finished:
        raise NotFinished(NOT_BEFORE_THE_END)
    return dict(review_game([stored.event for stored in service.store.read(game)]))
