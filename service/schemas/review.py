"""A finished game's review (service/routes/review_routes.py, application/review/)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .common import Whole
from .play import Command

CHANCE = "A chance of finishing first, 0 to 1."


class CurvePoint(Schema):
    version = Whole(required=True, metadata={"description": "The game's version: the state after that event."})
    chance = fields.Float(required=True, metadata={"description": CHANCE})


class Mistake(Schema):
    version = Whole(
        required=True,
        metadata={
            "description": "The version the decision was made at (replay it there): a turn's beginning, or the "
            "end of the turn for its discards."
        },
    )
    cost = fields.Float(required=True, metadata={"description": "The chance of finishing first the turn gave away."})
    played = fields.Nested(
        Command,
        required=True,
        metadata={
            "description": "The turn's first command as played (its end_turn, for the discards), as the API takes it."
        },
    )
    better = fields.Nested(
        Command,
        required=True,
        metadata={
            "description": "The first command of the best turn plan found instead (the best end_turn, for the "
            "discards)."
        },
    )


class Draw(Schema):
    version = Whole(required=True)
    luck = fields.Float(
        required=True, metadata={"description": "What the cards drawn were worth against what could have been drawn."}
    )


class SeatReview(Schema):
    seat = Whole(required=True)
    decisions = fields.Float(
        required=True, metadata={"description": "The turns' total cost, in chance of finishing first (0.18: 18%)."}
    )
    luck = fields.Float(required=True, metadata={"description": "The draws' total, signed (0.06: +6%)."})
    curve = fields.List(
        fields.Nested(CurvePoint), required=True, metadata={"description": "The seat's chance over the game."}
    )
    mistakes = fields.List(
        fields.Nested(Mistake), required=True, metadata={"description": "The costliest turns, at most three."}
    )
    draws = fields.List(fields.Nested(Draw), required=True)


class Review(Schema):
    model = fields.String(required=True, metadata={"description": "The value model's version that judged it."})
    method = Whole(
        required=True,
        metadata={
            "description": "How it judged, beside the model: 1 costed each turn's commands alone; 2 also costs "
            "a Reset's discards, as a decision of their own. `bluemoon-review` computes the current method; "
            "a review of an earlier one is given again only by the code of its time."
        },
    )
    seed = fields.String(required=True, metadata={"description": "The review's seed (hex), derived from the game's."})
    version = Whole(required=True, metadata={"description": "The game's last version."})
    samples = Whole(
        required=True,
        metadata={"description": "Worlds each turn was judged in (half choose the best plan, half cost it)."},
    )
    seats = fields.List(fields.Nested(SeatReview), required=True)


class ReviewState(Schema):
    game = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(["done", "pending", "failed"]),
        metadata={
            "description": "`done` (with `review`), `pending` (its job is computing it: ask again after Retry-After), "
            "or `failed` (it could not be computed; it is not tried again)."
        },
    )
    review = fields.Nested(Review, metadata={"description": "With `done` only."})
