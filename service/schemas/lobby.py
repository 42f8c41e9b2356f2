"""The lobby (service/routes/lobby_routes.py): open games to join, rematches, ratings and the leaderboard."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .common import LEVELS, Flag, Strict, Whole, next_page
from .games import ClockRequest, TimeLimits


class RatingRange(Strict):
    min = fields.Float(required=True, validate=validate.Range(-100, 100))
    max = fields.Float(required=True, validate=validate.Range(-100, 100))

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_: Any) -> None:
        if data["min"] > data["max"]:
            raise ValidationError("the range is upside down: max must not be below min", "max")


class OpenGameRequest(TimeLimits):
    players = Whole(required=True, validate=validate.Range(2, 4))
    edition = fields.String(load_default="cmon", validate=validate.OneOf(["classic", "cmon"]))
    expansion = Flag(load_default=False)
    bots = fields.List(
        fields.String(validate=validate.OneOf(LEVELS)),
        load_default=list,
        metadata={"description": "A bot level for each bot seat; at least one seat besides yours stays for a person."},
    )
    rated = Flag(load_default=True, metadata={"description": "Whether the end rates every seat (ratings)."})
    rating_range = fields.Nested(
        RatingRange,
        load_default=None,
        allow_none=True,
        metadata={"description": "Only people whose shown rating is within it may join (yours too)."},
    )
    bot_accounts = Flag(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Whether bot accounts (programs' accounts, labelled bots) may join: a bot account's join of "
            "a game that keeps them out is refused with 409 bot_accounts_kept_out. Left out (or null): kept out of "
            "a rated game, let in to an unrated one."
        },
    )

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("expansion") and data.get("edition") == "classic":
            raise ValidationError("the expansion exists in the cmon edition only", "expansion")
        if len(data.get("bots", [])) > data["players"] - 2:
            raise ValidationError(
                f"at most {data['players'] - 2} bots: an open game keeps a seat for another person", "bots"
            )


class OpenGameOptions(Schema):
    players = Whole(required=True)
    edition = fields.String(required=True)
    expansion = Flag(required=True)


class OpenSeat(Schema):
    kind = fields.String(required=True, metadata={"description": "human or bot"})
    name = fields.String(required=True, allow_none=True, metadata={"description": "null: a free seat, or a bot"})
    level = fields.String(allow_none=True)
    player = fields.String(
        allow_none=True, metadata={"description": "The person's player id (their ratings); null while free"}
    )
    account_bot = Flag(
        metadata={"description": "true: the seat's account is a bot account (a program plays it); absent for a person"},
    )


class OpenGame(Schema):
    id = fields.String(required=True)
    created = fields.String(required=True)
    closes = fields.String(required=True, metadata={"description": "When it is cancelled unless full by then."})
    status = fields.String(required=True, validate=validate.OneOf(["open", "started", "cancelled"]))
    options = fields.Nested(OpenGameOptions, required=True)
    rated = Flag(required=True)
    rating_range = fields.Nested(RatingRange, required=True, allow_none=True)
    turn_deadline = Whole(required=True, allow_none=True)
    deadline_level = fields.String(required=True, allow_none=True)
    clock = fields.Nested(ClockRequest, required=True, allow_none=True)
    bot_accounts = Flag(metadata={"description": "Whether bot accounts may join."})
    seats = fields.List(fields.Nested(OpenSeat), required=True)
    free = Whole(required=True, metadata={"description": "Seats still free for people."})
    game = fields.String(
        required=True, allow_none=True, metadata={"description": "The game, once every seat is taken."}
    )
    cancelled = fields.String(required=True, allow_none=True, metadata={"description": "Why it was cancelled."})


class OpenGameList(Schema):
    open_games = fields.List(fields.Nested(OpenGame), required=True)
    next = next_page()


class RematchStatus(Schema):
    accepted = fields.List(Whole(), required=True, metadata={"description": "Seats that accepted."})
    waiting_for = fields.List(Whole(), required=True, metadata={"description": "Human seats yet to accept."})
    game = fields.String(
        required=True, allow_none=True, metadata={"description": "The new game, once every human seat accepted."}
    )
    invites = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={
            "description": "Once the new game is made: the invites to its open seats (seat -> invite), the "
            "seats no one joined in this game, to pass on to whoever should take them. Shown only to this "
            "game's seats (their tokens, or the people holding them); empty for anyone else."
        },
    )
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "Your seat's token in the new game (only for a seat held by a token, only in "
            "the answer to your acceptance): keep it."
        },
    )
    challenge = fields.Dict(
        metadata={
            "description": "Only when your offer was sent as a challenge (the other person has left): the "
            "`Challenge` (`GET /challenges/{challenge}`); the rematch itself stays unaccepted."
        },
    )


class RatingNumbers(Schema):
    rating = fields.Float(required=True, metadata={"description": "Shown rating: mu - 3 sigma."})
    mu = fields.Float(required=True, metadata={"description": "Estimated skill (Plackett-Luce)."})
    sigma = fields.Float(required=True, metadata={"description": "Uncertainty of mu."})
    games = Whole(required=True, metadata={"description": "Rated games played."})


class RatedGame(Schema):
    game = fields.String(required=True)
    seat = Whole(required=True)
    place = Whole(required=True, metadata={"description": "1 the best; tied seats share a place."})
    before = fields.Nested(RatingNumbers, required=True)
    after = fields.Nested(RatingNumbers, required=True)
    at = fields.String(required=True)


class PlayerRating(RatingNumbers):
    player = fields.String(required=True, metadata={"description": "An account's player id, or bot:<level>."})
    name = fields.String(required=True)
    bot = Flag(metadata={"description": "true: a bot (a bot account, or a bot level); absent for a person."})
    history = fields.List(fields.Nested(RatedGame), required=True, metadata={"description": "Newest first."})


class RatedPlayer(RatingNumbers):
    player = fields.String(required=True)
    name = fields.String(required=True)
    bot = Flag(metadata={"description": "true: a bot (a bot account, or a bot level); absent for a person."})


class Leaderboard(Schema):
    players = fields.List(
        fields.Nested(RatedPlayer), required=True, metadata={"description": "People, best first (no bot account)."}
    )
    bot_accounts = fields.List(
        fields.Nested(RatedPlayer),
        metadata={"description": "Bot accounts, listed apart from people, best first."},
    )
    bots = fields.List(
        fields.Nested(RatedPlayer), required=True, metadata={"description": "Each bot level, strongest first."}
    )
