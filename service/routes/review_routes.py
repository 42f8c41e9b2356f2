"""A finished game's review: asked for once, computed by a job on the reviews queue, read by anyone
as the finished game's log is (application/review/)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app

from application.games.codec import dumps
from application.refusals import NotFinished, NotFound
from application.review.computation import NOT_BEFORE_THE_END
from application.review.reviews import DONE, NONE, PENDING, PREFIX, Reviews

from ..operation import Answer, Operation, Reply
from ..requests import service
from ..schemas.review import ReviewState

review = Blueprint("review", __name__)

RETRY_AFTER = 5  #: seconds a client should wait before asking again for a review under way
#: the API's one Retry-After header (service/openapi.py writes it once, under components)
PENDING_HEADERS = {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}}


def _reviews(game: str) -> Reviews:
    """The game's reviews, refused for a game that has not ended (nothing of it exists before)."""
    svc = service()
    if not svc.state(game).finished:
        raise NotFinished(NOT_BEFORE_THE_END)
    return Reviews(svc.store, svc.outbox)


def _answer(game: str, status: str, record: dict[str, Any] | None) -> Answer:
    if status == PENDING:
        body = dumps(ReviewState().dump({"game": game, "status": PENDING}))
        answer = current_app.response_class(body, status=202, mimetype="application/json")
        answer.headers["Retry-After"] = str(RETRY_AFTER)
        return answer
    assert record is not None
    return {"game": game, "status": status, **({"review": record["review"]} if status == DONE else {})}


@Operation(
    review,
    "get",
    "/games/{game}/review",
    id="getReview",
    tag="audit",
    summary="A finished game's review: each seat's chance over the game, its costliest decisions, its luck.",
    description="Computed once per game by the review workers when it ends (or when asked for with POST), "
    "from the revealed log: nothing of it exists before the end (409). 404 when none was asked for.",
    responses={
        200: Reply("The review (or `failed`).", ReviewState),
        202: Reply("Being computed.", ReviewState, headers=PENDING_HEADERS),
    },
    problems=(404, 409),
)
def get_review(game: str) -> Answer:
    status, record = _reviews(game).status(game)
    if status == NONE:
        raise NotFound(f"no review of {game} was asked for: POST /games/{game}/review asks for one")
    return _answer(game, status, record)


@Operation(
    review,
    "post",
    "/games/{game}/review",
    id="requestReview",
    tag="audit",
    summary="Ask for a finished game's review (one ended before reviews, or since archived).",
    description="Idempotent: a game has one review (one asked for after its archiving is kept 30 days); a game "
    "reviewed or under review is not asked for again and answers as GET does.",
    responses={
        200: Reply("Reviewed already (or `failed`).", ReviewState),
        202: Reply("Asked for, or being computed.", ReviewState, headers=PENDING_HEADERS),
    },
    problems=(404, 409),
)
def request_review(game: str) -> Answer:
    reviews = _reviews(game)
    if reviews.ask(game) == PENDING:
        service().dispatch(PREFIX + game)  # to the reviews queue now
    status, record = reviews.status(game)
    return _answer(game, status, record)
