"""The view of a game (domain.views.view), as a seat or a spectator sees it."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.state import EndReason

from .common import Flag, Whole
from .games import ClockRequest, SeatInfo


class SpaceView(Schema):
    colour = fields.String(required=True, metadata={"description": "A colour, or 'any'."})
    value = Whole(required=True)
    marker = Whole(allow_none=True, required=True)


class TileView(Schema):
    tile = fields.String(required=True)
    row = Whole(required=True)
    col = Whole(required=True)
    reconstructed = Flag(required=True)
    spaces = fields.List(fields.Nested(SpaceView), required=True)


class PlayerView(Schema):
    seat = Whole(required=True)
    position = fields.String(required=True)
    hand_size = Whole(required=True)
    hand = fields.List(
        fields.String(),
        allow_none=True,
        required=True,
        metadata={"description": "Your own cards; null for other seats."},
    )
    aside_size = Whole(required=True)
    aside = fields.List(fields.String(), allow_none=True, required=True)
    crystals = Whole(
        allow_none=True, required=True, metadata={"description": "Private: null for other seats until the game ends."}
    )
    scales = Whole(required=True)
    markers = Whole(required=True)
    offerings = Whole(required=True)


class ObeliskSpace(Schema):
    value = Whole(required=True)
    marker = Whole(allow_none=True, required=True)


class TurnView(Schema):
    seat = Whole(required=True)
    number = Whole(required=True)
    phase = fields.String(required=True, metadata={"description": "movement or contribution"})
    steps = Whole(required=True)
    offered = Flag(required=True)
    action_used = Flag(required=True)
    deadline = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When this turn's deadline passes (UTC, ISO 8601), if the game has one; "
            "then the turn is played as `settings.deadline_level`."
        },
    )


class ResultView(Schema):
    reason = fields.String(
        required=True,
        validate=validate.OneOf([r.value for r in EndReason]),
        metadata={"description": "offerings, rebuilt, draw or stalemate (ruling P16)"},
    )
    winners = fields.List(Whole(), required=True)


class OptionsView(Schema):
    players = Whole(required=True)
    edition = fields.String(required=True)
    expansion = Flag(required=True)
    layout = fields.String(required=True)


class DragonsView(Schema):
    red = fields.String(allow_none=True, required=True)
    green = fields.String(allow_none=True, required=True)
    blue = fields.String(allow_none=True, required=True)


class GameSettings(Schema):
    turn_deadline = Whole(
        required=True, allow_none=True, metadata={"description": "Seconds a human seat has for a turn; null for none."}
    )
    deadline_level = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "What plays an overdue turn: `pass` ends it, a bot level plays it."},
    )
    rated = Flag(required=True, metadata={"description": "Whether the end rates the seats (games from open games)."})
    clock = fields.Nested(
        ClockRequest, required=True, allow_none=True, metadata={"description": "The time bank, if the game has one."}
    )


class SeatClock(Schema):
    seat = Whole(required=True)
    bank_ms = Whole(
        required=True,
        allow_none=True,
        metadata={"description": "What the seat's time bank holds now (running down in its turn); null without one."},
    )
    away_until = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Until when (UTC) the seat's person is on vacation: their clock is paused."},
    )


class GameView(Schema):
    game = fields.String(required=True)
    version = Whole(required=True)
    viewer = Whole(allow_none=True, required=True, metadata={"description": "Your seat; null for a spectator."})
    options = fields.Nested(OptionsView, required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(["active", "finished"]),
        metadata={"description": "finished once the game ended (`result` says how), else active."},
    )
    scenario = Flag(
        required=True,
        metadata={"description": "Started from a given position, not the drawn opening (a scenario game)."},
    )
    given = fields.List(
        fields.String(validate=validate.OneOf(["grid", "deck", "first_player", "scenario"])),
        required=True,
        metadata={
            "description": "What the creator gave instead of drawing it from the seed (ruling P9): grid, deck, "
            "first_player, scenario (a given position, which gives the deal and the first player too). Empty: "
            "everything was drawn, as fair for every seat. A game with anything given is never rated."
        },
    )
    commitment = fields.String(required=True, metadata={"description": "SHA-256 of the secret seed."})
    seed = fields.String(allow_none=True, required=True, metadata={"description": "Revealed when the game ends."})
    city = fields.List(fields.Nested(TileView), required=True)
    dragons = fields.Nested(DragonsView, required=True)
    obelisk = fields.List(fields.Nested(ObeliskSpace), required=True)
    scale_supply = Whole(required=True)
    quiet_turns = Whole(
        required=True,
        metadata={
            "description": "Turns ended in a row with no contribution and no offering by anyone; at 10 per "
            "player the game ends as a stalemate (ruling P16)."
        },
    )
    deck_size = Whole(required=True)
    discard = fields.List(fields.String(), required=True)
    players = fields.List(fields.Nested(PlayerView), required=True)
    turn = fields.Nested(TurnView, allow_none=True, required=True)
    result = fields.Nested(ResultView, allow_none=True, required=True)
    seats = fields.List(fields.Nested(SeatInfo), required=True)
    settings = fields.Nested(GameSettings, required=True)
    clocks = fields.List(fields.Nested(SeatClock), required=True, metadata={"description": "Each seat's clock."})
