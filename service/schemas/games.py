"""Making, joining and listing games (service/routes/game_routes.py): the seats, a setup or a
position given instead of drawn, and the time limits."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.catalogue import BUILDINGS
from events.endings import ENDINGS

from .common import CARD_IDS, LEVELS, TILES, Flag, Strict, Whole, next_page, shown_name


class SeatRequest(Strict):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["human", "open", "bot"]),
        metadata={
            "description": "human: a token is returned now; open: an invite to pass on; bot: played by the workers."
        },
    )
    name = shown_name()
    level = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(LEVELS),
        metadata={"description": "Bot level (bots only; default greedy)."},
    )

    @validates_schema
    def _level_for_bots(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("level") and data["kind"] != "bot":
            raise ValidationError("only a bot seat has a level", "level")


class Placement(Strict):
    tile = fields.String(required=True, validate=validate.OneOf(TILES))
    row = Whole(required=True, validate=validate.Range(0, 4))
    col = Whole(required=True, validate=validate.Range(0, 4))


class ExplicitSetup(Strict):
    grid = fields.List(
        fields.Nested(Placement),
        load_default=None,
        allow_none=True,
        metadata={"description": "Every tile's cell (layout explicit only)."},
    )
    deck = fields.List(
        fields.String(validate=validate.OneOf(CARD_IDS)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(equal=80),
        metadata={"description": "All 80 card ids, top first; 8 are dealt to each seat in seat order."},
    )
    first_player = Whole(load_default=None, allow_none=True, validate=validate.Range(0, 3))


class MarkerPlacement(Strict):
    building = fields.String(required=True, validate=validate.OneOf(sorted(BUILDINGS)))
    space = Whole(required=True, validate=validate.Range(0, 3), metadata={"description": "Space index, left to right."})
    seat = Whole(required=True, validate=validate.Range(0, 3))


class DragonPlacement(Strict):
    dragon = fields.String(required=True, validate=validate.OneOf(["red", "green", "blue"]))
    tile = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(TILES),
        metadata={"description": "Null: outside the city."},
    )


class Scenario(Strict):
    """A position to start from instead of the opening (P15). Lists run by seat."""

    hands = fields.List(
        fields.List(fields.String(validate=validate.OneOf(CARD_IDS)), validate=validate.Length(max=40)),
        required=True,
        validate=validate.Length(min=2, max=4),
        metadata={"description": "Each seat's cards; the rest of the deck is shuffled from the seed."},
    )
    figures = fields.List(
        fields.String(validate=validate.OneOf(TILES)), required=True, validate=validate.Length(min=2, max=4)
    )
    crystals = fields.List(
        Whole(validate=validate.Range(0, 999)), required=True, validate=validate.Length(min=2, max=4)
    )
    scales = fields.List(Whole(validate=validate.Range(0, 99)), required=True, validate=validate.Length(min=2, max=4))
    turn = Whole(load_default=0, validate=validate.Range(0, 3), metadata={"description": "The seat whose turn begins."})
    markers = fields.List(fields.Nested(MarkerPlacement), load_default=list, validate=validate.Length(max=40))
    rebuilt = fields.List(
        fields.String(validate=validate.OneOf(sorted(BUILDINGS))),
        load_default=list,
        validate=validate.Length(max=24),
        metadata={
            "description": "Buildings already rebuilt (their markers are back with their owners, so none may be "
            "placed on them)."
        },
    )
    obelisk = fields.List(
        Whole(validate=validate.Range(0, 3)),
        load_default=list,
        validate=validate.Length(max=12),
        metadata={"description": "The seats owning the filled obelisk spaces, bottom up."},
    )
    dragons = fields.List(fields.Nested(DragonPlacement), load_default=list, validate=validate.Length(max=3))
    discard = fields.List(
        fields.String(validate=validate.OneOf(CARD_IDS)), load_default=list, validate=validate.Length(max=80)
    )
    scale_supply = Whole(
        load_default=None,
        allow_none=True,
        validate=validate.Range(0, 99),
        metadata={"description": "Scales left in the supply; null: the starting supply less the scales held."},
    )


class ClockRequest(Strict):
    """A time bank per seat, as Board Game Arena's clock: instead of a fixed deadline per turn."""

    bank_seconds = Whole(
        required=True,
        validate=validate.Range(min=2, max=60 * 86400),
        metadata={"description": "Seconds each human seat starts with for all its turns (e.g. 259200: 3 days)."},
    )
    increment_seconds = Whole(
        load_default=0,
        validate=validate.Range(min=0, max=7 * 86400),
        metadata={"description": "Seconds added each time the seat ends its turn (e.g. 86400: 1 day)."},
    )
    cap_seconds = Whole(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=2, max=60 * 86400),
        metadata={"description": "The most a bank may hold; the starting bank unless given (never below it)."},
    )

    @validates_schema
    def _cap(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("cap_seconds") is not None and data["cap_seconds"] < data["bank_seconds"]:
            raise ValidationError("must be at least bank_seconds", "cap_seconds")


class TimeLimits(Strict):
    """How long a human seat may take, for a game made at once or an open game: a fixed
    deadline per turn or a time bank, and what plays an overdue turn."""

    turn_deadline = Whole(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=10, max=30 * 86400),
        metadata={"description": "Seconds a human seat has for a turn; then the workers play it."},
    )
    deadline_level = fields.String(
        load_default="pass",
        validate=validate.OneOf(["pass", *LEVELS]),
        metadata={"description": "How an overdue turn is played: pass (just the Reset) or a bot level."},
    )
    clock = fields.Nested(
        ClockRequest,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "A time bank per human seat instead of `turn_deadline`; a seat whose bank runs out "
            "in its turn has it played as `deadline_level`."
        },
    )

    @validates_schema
    def _one_time_limit(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("clock") and data.get("turn_deadline"):
            raise ValidationError("a game has a time bank (clock) or a fixed turn_deadline, not both", "clock")


class CreateGame(TimeLimits):
    edition = fields.String(load_default="cmon", validate=validate.OneOf(["classic", "cmon"]))
    expansion = Flag(load_default=False)
    layout = fields.String(load_default="standard", validate=validate.OneOf(["standard", "variant", "explicit"]))
    seats = fields.List(fields.Nested(SeatRequest), required=True, validate=validate.Length(min=2, max=4))
    setup = fields.Nested(
        ExplicitSetup,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Parts of the setup given instead of drawn; only when every human seat is yours "
            "(no open seat: ruling P9), else 422 given_setup_needs_own_seats naming the field. Views list them "
            "(`given`); such a game is never rated."
        },
    )
    scenario = fields.Nested(
        Scenario,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Start from this position instead of the opening: a scenario game, marked as one "
            "in views, the index and the audit. Like `setup`, only when every human seat is yours (ruling P9)."
        },
    )

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("expansion") and data.get("edition") == "classic":
            raise ValidationError("the expansion exists in the cmon edition only", "expansion")
        grid = (data.get("setup") or {}).get("grid")
        if data.get("layout") == "explicit" and not grid:
            raise ValidationError("an explicit layout needs setup.grid", "setup")
        if data.get("layout") != "explicit" and grid:
            raise ValidationError("setup.grid is only for the explicit layout", "setup")
        setup = data.get("setup") or {}
        if data.get("scenario") and (setup.get("deck") or setup.get("first_player") is not None):
            raise ValidationError(
                "a scenario gives the hands and the turn; leave setup.deck and first_player out", "setup"
            )


class SeatInfo(Schema):
    seat = Whole(required=True)
    kind = fields.String(required=True, metadata={"description": "human, open or bot"})
    name = fields.String(allow_none=True)
    level = fields.String(allow_none=True)
    open = Flag(required=True)
    account_bot = Flag(
        metadata={
            "description": "In a game's view, true: the seat's account is a bot account (a program plays it; its kind "
            "is `human`, as every account's seat); absent for a person, an open seat or a bot level (kind `bot`)."
        }
    )


class CreatedSeat(SeatInfo):
    token = fields.String(
        metadata={
            "description": "Secret seat token (human seats). Shown only once; send it as 'Authorization: Bearer <token>'."
        }
    )
    invite = fields.String(metadata={"description": "Invite code for an open seat."})
    invite_url = fields.String(metadata={"description": "Where the invited player posts the invite to join."})


class Created(Schema):
    game = fields.String(required=True)
    version = Whole(required=True)
    seats = fields.List(fields.Nested(CreatedSeat), required=True)


class Join(Strict):
    invite = fields.String(required=True, validate=validate.Length(min=1, max=200))
    name = shown_name()


class Joined(Schema):
    game = fields.String(required=True)
    seat = Whole(required=True)
    token = fields.String(required=True)


class Summary(Schema):
    game = fields.String(required=True)
    created = fields.String(required=True)
    updated = fields.String(required=True, metadata={"description": "When its last events were played."})
    version = Whole(required=True)
    status = fields.String(required=True, metadata={"description": "active or finished"})
    players = Whole(required=True)
    edition = fields.String(required=True)
    expansion = Flag(required=True)
    scenario = Flag(required=True, metadata={"description": "Started from a given position (a scenario game)."})
    turn = Whole(allow_none=True, metadata={"description": "The seat to move, null when finished."})
    turn_number = Whole(allow_none=True)
    winners = fields.List(Whole(), allow_none=True)
    places = fields.List(
        Whole(),
        allow_none=True,
        metadata={"description": "Each seat's place, 1 the best, ties sharing one; null in play.", "example": [1, 2]},
    )
    ended = fields.String(
        allow_none=True,
        validate=validate.OneOf(ENDINGS),
        metadata={"description": "How it ended: `played`, `clock` or `admin`; null in play.", "example": "played"},
    )
    names = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Each seat's name, or what sits there (a bot, an open seat)."},
    )
    my_seat = Whole(allow_none=True, metadata={"description": "Your seat, when listed with your token."})
    my_turn = Flag(allow_none=True)


class GameList(Schema):
    games = fields.List(fields.Nested(Summary), required=True)
    next = next_page()
