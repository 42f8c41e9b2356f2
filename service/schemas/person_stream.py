"""Following a person (service/routes/person_stream_routes.py): their news across their games, one
schema for each type's ``data`` (application/person_stream/news.py says when each is written).
openapi.yaml makes ``PersonEvent`` a ``oneOf`` of one envelope per type, discriminated on ``type``
(service/openapi_types.py)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from application.person_stream.news import CHALLENGE_TYPES, TOURNAMENT_TYPES, TYPES

from .common import Flag, Whole
from .games import SeatInfo
from .lobby import OpenGameOptions, RatingNumbers


def _seat() -> Whole:
    return Whole(required=True, metadata={"description": "Your seat in the game."})


def _game_id(what: str) -> fields.String:
    return fields.String(required=True, allow_none=True, metadata={"description": what})


class PersonOpenGameFilled(Schema):
    """The open game you sat at filled: its game is made (`game.started` follows)."""

    open_game = fields.String(required=True, metadata={"description": "The open game's id."})
    seat = _seat()


class PersonGameStarted(Schema):
    """A game was made with a seat of yours: one you made signed in, an open game that filled, or a
    rematch every seat accepted. (A seat you take later, by its invite or by keeping its token, is
    not announced: its game had started.)"""

    seat = _seat()
    seats = fields.List(fields.Nested(SeatInfo), required=True, metadata={"description": "Every seat, in order."})
    rated = Flag(required=True, metadata={"description": "Whether its end rates the seats."})
    open_game = _game_id("The open game it was made from, else null.")
    rematch_of = _game_id("The game it is a rematch of, else null.")
    tournament = _game_id("The tournament it is your next game of, else null (GET /tournaments/{tournament}).")
    round = Whole(required=True, allow_none=True, metadata={"description": "Its round in that tournament, else null."})
    version = Whole(required=True, metadata={"description": "The game's version when it was made."})


class PersonTurnStarted(Schema):
    """Your turn began."""

    seat = _seat()
    turn = Whole(required=True, metadata={"description": "The turn's number."})
    version = Whole(required=True, metadata={"description": "The game's version with the turn begun."})
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "When the turn must end (ISO 8601, UTC), else null: a game without a deadline."},
    )


class PersonGameEnded(Schema):
    """A game of yours ended."""

    seat = _seat()
    version = Whole(required=True, metadata={"description": "The game's last version."})
    reason = fields.String(
        required=True,
        validate=validate.OneOf(["offerings", "rebuilt", "draw", "stalemate"]),
        metadata={"description": "How it ended (R11, P16)."},
    )
    winners = fields.List(Whole(), required=True)
    places = fields.List(
        Whole(), required=True, metadata={"description": "Each seat's place, 1 the best, ties shared."}
    )
    place = Whole(required=True, metadata={"description": "Your place."})
    rated = Flag(required=True, metadata={"description": "Whether it is rated: a `rating.changed` follows."})


class PersonRatingChanged(Schema):
    """A rated game of yours was rated."""

    seat = _seat()
    place = Whole(required=True, metadata={"description": "Your place, 1 the best."})
    before = fields.Nested(RatingNumbers, required=True)
    after = fields.Nested(RatingNumbers, required=True)


class PersonRematchOffered(Schema):
    """Another seat of a finished game of yours offered (or accepted) its rematch, which waits for you:
    `POST /games/{game}/rematch` accepts it."""

    seat = _seat()
    by = Whole(required=True, metadata={"description": "The seat that offered or accepted."})
    by_name = fields.String(required=True, allow_none=True, metadata={"description": "That seat's name."})
    accepted = fields.List(Whole(), required=True, metadata={"description": "Seats that accepted."})
    waiting_for = fields.List(Whole(), required=True, metadata={"description": "Human seats yet to accept."})


class PersonChallenge(Schema):
    """A challenge's news (the item's `game` is the challenge's id, `GET /challenges/{challenge}`):
    `challenge.received` by the challenged person, `challenge.accepted` (its game in `game`) and
    `challenge.declined` (its `reason`) by the challenger, `challenge.cancelled` by the challenged
    person, `challenge.expired` by both."""

    challenge = fields.String(required=True, metadata={"description": "The challenge's id."})
    other = fields.String(required=True, metadata={"description": "The other person's account."})
    other_name = fields.String(required=True, metadata={"description": "Their name."})
    options = fields.Nested(OpenGameOptions, required=True)
    rated = Flag(required=True)
    reason = fields.String(required=True, allow_none=True, metadata={"description": "Why it was declined."})
    game = _game_id("The game, once accepted, else null.")


class PersonTournament(Schema):
    """A tournament's news (the item's `game` is the tournament's id, `GET /tournaments/{tournament}`):
    `tournament.bye` (you sit out a round: no game, a bye), `tournament.cancelled` (too few joined by
    its start; to each entrant not withdrawn), `tournament.finished` (to each entrant, with their
    place in the final standings)."""

    tournament = fields.String(required=True, metadata={"description": "The tournament's id."})
    name = fields.String(required=True, metadata={"description": "Its name."})
    round = Whole(required=True, allow_none=True, metadata={"description": "The bye's round, else null."})
    reason = fields.String(required=True, allow_none=True, metadata={"description": "Why it was cancelled, else null."})
    place = Whole(
        required=True, allow_none=True, metadata={"description": "Your place in the final standings, else null."}
    )


#: Each type's data.
PERSON_EVENT_DATA: dict[str, type[Schema]] = {
    "open_game.filled": PersonOpenGameFilled,
    "game.started": PersonGameStarted,
    "turn.started": PersonTurnStarted,
    "game.ended": PersonGameEnded,
    "rating.changed": PersonRatingChanged,
    "rematch.offered": PersonRematchOffered,
    **dict.fromkeys(CHALLENGE_TYPES, PersonChallenge),
    **dict.fromkeys(TOURNAMENT_TYPES, PersonTournament),
}
assert tuple(PERSON_EVENT_DATA) == TYPES, "one schema for each type the stream tells"


class PersonEvent(Schema):
    """One item of your news; `type` says which, and `data` holds its fields."""

    id = Whole(required=True, metadata={"description": "Its id, counting up: pass it as `after` or Last-Event-ID."})
    type = fields.String(required=True, validate=validate.OneOf(TYPES))
    game = fields.String(required=True, metadata={"description": "The game it is about."})
    at = fields.String(required=True, metadata={"description": "When it happened (ISO 8601, UTC)."})
    data = fields.Dict(required=True)


class PersonEventPage(Schema):
    events = fields.List(fields.Nested(PersonEvent), required=True)
    next = Whole(
        required=True,
        metadata={"description": "Pass as `after` for the next page: the last event's id (`after` when none)."},
    )
