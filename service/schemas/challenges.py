"""Challenges (service/routes/challenge_routes.py): a game of two asked of a named person or a bot
account, waiting for their answer (application/challenges/challenges.py)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from application.challenges.challenges import REASONS

from .common import Flag, Whole
from .games import ClockRequest, TimeLimits
from .lobby import OpenGameOptions


class ChallengeRequest(TimeLimits):
    account = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The account you challenge (a person's or a bot account's player id)."},
    )
    edition = fields.String(load_default="cmon", validate=validate.OneOf(["classic", "cmon"]))
    expansion = Flag(load_default=False)
    rated = Flag(load_default=True, metadata={"description": "Whether the end rates both seats."})

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("expansion") and data.get("edition") == "classic":
            raise ValidationError("the expansion exists in the cmon edition only", "expansion")


class DeclineRequest(Schema):
    reason = fields.String(
        load_default="no_reason",
        validate=validate.OneOf(REASONS),
        metadata={"description": "Why, from a short list a client words: " + ", ".join(REASONS) + "."},
    )


class ChallengePerson(Schema):
    account = fields.String(required=True)
    name = fields.String(required=True)
    bot = Flag(required=True, metadata={"description": "true: a bot account (a program answers)."})


class Challenge(Schema):
    id = fields.String(required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["open", "accepted", "declined", "cancelled", "expired"])
    )
    challenger = fields.Nested(ChallengePerson, required=True, metadata={"description": "Who asks (seat 0)."})
    challenged = fields.Nested(ChallengePerson, required=True, metadata={"description": "Who answers (seat 1)."})
    options = fields.Nested(OpenGameOptions, required=True, metadata={"description": "Always 2 players."})
    rated = Flag(required=True)
    turn_deadline = Whole(required=True, allow_none=True)
    deadline_level = fields.String(required=True, allow_none=True)
    clock = fields.Nested(ClockRequest, required=True, allow_none=True)
    created = fields.String(required=True)
    expires = fields.String(required=True, metadata={"description": "When it expires unless answered."})
    answered = fields.String(required=True, allow_none=True, metadata={"description": "When it was answered."})
    reason = fields.String(
        required=True, allow_none=True, metadata={"description": "Why it was declined: " + ", ".join(REASONS)}
    )
    game = fields.String(required=True, allow_none=True, metadata={"description": "The game, once accepted."})
    rematch_of = fields.String(
        required=True, allow_none=True, metadata={"description": "The game it is a rematch of, else null."}
    )


class MyChallenges(Schema):
    incoming = fields.List(fields.Nested(Challenge), required=True, metadata={"description": "To you, newest first."})
    outgoing = fields.List(fields.Nested(Challenge), required=True, metadata={"description": "From you."})
