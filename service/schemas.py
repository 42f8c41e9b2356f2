"""Marshmallow schemas: the one source of the API's shapes. ``openapi.yaml`` is generated
from them (service/openapi.py), requests are validated by them, and every response is
dumped through them."""

from __future__ import annotations

from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates_schema,
)

from application.accounts.shown_text import hidden_characters
from application.words import LANGUAGES
from domain import COMMAND_TYPES
from domain.catalogue import BUILDINGS, COURTYARD
from domain.commands import COMMAND_FIELDS as FIELD_RULES
from domain.peoples import CARDS, Colour
from domain.state import EndReason

TILES = sorted([COURTYARD, *BUILDINGS])
CARD_IDS = sorted(CARDS)
COLOURS = [c.value for c in Colour]
LEVELS = ["random", "greedy", "mcts", "planner"]


class Whole(fields.Integer):
    """An integer as JSON Schema means it: ``3`` or ``3.0``, never ``2.5``, ``true`` or ``"3"``
    (marshmallow would truncate the first, count the second as 1 and read the third)."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool | str) or (isinstance(value, float) and not value.is_integer()):
            raise self.make_error("invalid")
        return super()._validated(value)


class Flag(fields.Boolean):
    """``true`` or ``false`` only: marshmallow would also take 0, 1, "yes" and more."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):  # 0 == False, so the truthy/falsy sets cannot tell them apart
            raise self.make_error("invalid", input=value)
        return value


class Strict(Schema):
    """Unknown fields are an error, never silently dropped."""

    class Meta:
        unknown = RAISE


#: How a name others see is described: application/accounts/shown_text.py has the exact set refused.
NAME_RULE = (
    "1-40 characters of Unicode text, without control characters (tab, CR, LF, ...), line "
    "separators or invisible formatting (bidi overrides and isolates, zero-width spaces, U+FEFF, ...)."
)


def _shown_to_others(value: str) -> None:
    """A name others see shows what it says: nothing that breaks lines, hides or reorders text."""
    hidden = hidden_characters(value)
    if hidden:
        raise ValidationError(f"must not hold control or invisible formatting characters (found {', '.join(hidden)})")


def _name() -> fields.String:
    return fields.String(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(min=1, max=40), _shown_to_others],
        metadata={"description": f"A display name: {NAME_RULE}"},
    )


class SeatRequest(Strict):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["human", "open", "bot"]),
        metadata={
            "description": "human: a token is returned now; open: an invite to pass on; bot: played by the workers."
        },
    )
    name = _name()
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
    name = _name()


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
    names = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Each seat's name, or what sits there (a bot, an open seat)."},
    )
    my_seat = Whole(allow_none=True, metadata={"description": "Your seat, when listed with your token."})
    my_turn = Flag(allow_none=True)


def _next_page() -> fields.String:
    """A paged list's cursor to its next page."""
    return fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `after` for the next, older page; null on the last page."},
    )


class GameList(Schema):
    games = fields.List(fields.Nested(Summary), required=True)
    next = _next_page()


# -- the view of a game (domain.views.view) --------------------------------------------------


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


# -- commands -------------------------------------------------------------------------------


class Recolour(Strict):
    card = fields.String(
        required=True, validate=validate.OneOf(CARD_IDS), metadata={"description": "The Hoax card played."}
    )
    targets = fields.List(
        fields.String(validate=validate.OneOf(CARD_IDS)), required=True, validate=validate.Length(min=1, max=4)
    )


#: Which fields each command type takes (field -> required); the rest must be absent. The
#: domain's commands say it (domain/commands.py), and which of them take null.
COMMAND_FIELDS: dict[str, dict[str, bool]] = {
    name: {field: rule.required for field, rule in rules.items()} for name, rules in FIELD_RULES.items()
}


class Command(Strict):
    """One command of the current turn. Send exactly what GET .../legal lists, or any other
    legal command (an overpayment, say)."""

    type = fields.String(
        required=True,
        validate=validate.OneOf(sorted(COMMAND_TYPES)),
        metadata={
            "description": "move, fly_figure (Flit 1), gain_steps (Flit 2), fly_dragon (Vulca/Terrah/Aqua 1), "
            "move_dragon (their 2s), contribute, offer, use_action (expansion buildings), end_turn (the Reset), "
            "take_back (undo this turn's steps and contributions while nothing hidden was revealed: ruling P17)."
        },
    )
    to = fields.String(
        allow_none=True,
        validate=validate.OneOf(TILES),
        metadata={
            "description": "A tile. Null only for fly_dragon (outside the city) and use_action (no destination: "
            "the Hospital's and the Golden Shrine's actions, as /legal lists them; the same as leaving it out)."
        },
    )
    card = fields.String(validate=validate.OneOf(CARD_IDS), metadata={"description": "The card played for its power."})
    building = fields.String(validate=validate.OneOf(sorted(BUILDINGS)))
    space = Whole(validate=validate.Range(0, 3), metadata={"description": "Space index, left to right."})
    cards = fields.List(fields.String(validate=validate.OneOf(CARD_IDS)), validate=validate.Length(min=1, max=20))
    colour = fields.String(
        allow_none=True, validate=validate.OneOf(COLOURS), metadata={"description": "Required on any-colour spaces."}
    )
    hoax = fields.List(fields.Nested(Recolour), validate=validate.Length(max=10))
    pillar = fields.String(
        allow_none=True,
        validate=validate.OneOf(CARD_IDS),
        metadata={"description": "A Pillar card for an offering after the first one this turn."},
    )
    discards = fields.List(fields.String(validate=validate.OneOf(CARD_IDS)), validate=validate.Length(max=2))

    @validates_schema
    def _fields_of_type(self, data: dict[str, Any], **_: Any) -> None:
        allowed = COMMAND_FIELDS.get(data.get("type", ""), {})
        errors: dict[str, list[str]] = {}
        for name, required in allowed.items():
            if required and name not in data:
                errors[name] = [f"required for a {data['type']} command"]
        for name in data:
            if name != "type" and name not in allowed:
                errors[name] = [
                    f"not a field of a {data.get('type')} command (allowed: {', '.join(allowed) or 'none'})"
                ]
        rules = FIELD_RULES.get(data.get("type", ""), {})
        for name, value in data.items():
            if value is None and name in rules and not rules[name].nullable and name not in errors:
                errors[name] = [f"must not be null in a {data['type']} command ({_null_takers(name)})"]
        if errors:
            raise ValidationError(errors)


def _null_takers(field: str) -> str:
    """Which commands take a null ``field``, for the refusal of another's null."""
    takers = [name for name, rules in FIELD_RULES.items() if field in rules and rules[field].nullable]
    return f"only {' and '.join(takers)} take a null {field}" if takers else f"{field} is never null"


class CommandRequest(Command):
    expected_version = Whole(
        validate=validate.Range(min=0, max=2**53 - 1),
        load_default=None,
        allow_none=True,
        metadata={"description": "The version you played against (or send If-Match)."},
    )

    @validates_schema
    def _fields_of_type(self, data: dict[str, Any], **kw: Any) -> None:
        rest = {k: v for k, v in data.items() if k != "expected_version"}
        Command._fields_of_type(self, rest, **kw)


class DiscardChoice(Schema):
    from_ = fields.List(
        fields.String(),
        required=True,
        data_key="from",
        metadata={"description": "Cards the Reset may discard: your hand."},
    )
    at_most = Whole(required=True, metadata={"description": "How many of them, at most (the rules allow 2)."})


class Legal(Schema):
    game = fields.String(required=True)
    version = Whole(required=True)
    seat = Whole(required=True)
    commands = fields.List(
        fields.Nested(Command),
        required=True,
        metadata={
            "description": "Every legal command, ready to post back; `end_turn` once, discarding "
            "nothing, unless `expand=true` (then every discard combination too)."
        },
    )
    end_turn_discards = fields.Nested(
        DiscardChoice,
        required=True,
        allow_none=True,
        metadata={
            "description": "To end the turn discarding cards, post `end_turn` with 0 to "
            "`at_most` different cards of `from` as `discards`. Null when "
            "it is not your turn."
        },
    )


class EventMeta(Schema):
    """The command that caused the event and how it was chosen: every event a command caused
    has `command`, `seat` and `version` (the game's creation has none of these); a bot's or
    a deadline's moves add the level, budget, generator seed and an HMAC of the bot's view keyed
    with the game's seed (checkable once the seed is revealed at the end), so anyone can re-run
    the choice. More fields may come: ignore those you do not know."""

    command = fields.Dict(
        metadata={"description": "The command as it was decided: its `type` and fields, as a `Command` has them."}
    )
    seat = Whole(metadata={"description": "The seat the command was played for."})
    version = Whole(
        metadata={"description": "The game's version the command was decided against: its first event is the next."}
    )
    key_digest = fields.String(
        validate=validate.Regexp("^[0-9a-f]{16}$"),
        metadata={
            "description": "The first 16 hex digits of the SHA-256 of the Idempotency-Key (UTF-8) the command "
            "was sent with; absent without one. The sender recognises its own command by it (with `seat` and "
            "`version`), say after an answer that never came; the key itself is never shown."
        },
    )
    reason = fields.String(
        validate=validate.OneOf(["bot", "deadline"]),
        metadata={"description": "Who chose the command: a bot seat's bot, or a bot playing for a seat out of time."},
    )
    level = fields.String(
        validate=validate.OneOf(["pass", *LEVELS]),
        metadata={"description": "The bot level that chose it; `pass` where an overdue turn was just ended."},
    )
    budget = fields.Float(metadata={"description": "The bot's thinking budget, in seconds."})
    seed = fields.String(metadata={"description": "The bot's generator seed for this decision."})
    view = fields.String(
        metadata={"description": "HMAC-SHA-256 of the bot's view of the game, keyed with the game's seed (hex)."}
    )


class Event(Schema):
    seq = Whole(required=True, metadata={"description": "Sequence number: the game's version after this event."})
    type = fields.String(required=True)
    schema = Whole(required=True)
    at = fields.String(required=True)
    actor = fields.String(required=True)
    meta = fields.Nested(EventMeta, required=True)
    data = fields.Dict(
        required=True,
        metadata={"description": "The event's fields, redacted for you (hidden values are null). See docs/rules.md."},
    )


class CommandResult(Schema):
    game = fields.String(required=True)
    version = Whole(required=True)
    duplicate = Flag(
        required=True,
        metadata={"description": "True when this Idempotency-Key was applied before: nothing new happened."},
    )
    events = fields.List(fields.Nested(Event), required=True)
    view = fields.Nested(GameView, required=True)


class EventPage(Schema):
    game = fields.String(required=True)
    version = Whole(required=True, metadata={"description": "The game's version now."})
    events = fields.List(fields.Nested(Event), required=True)
    next = Whole(
        required=True,
        metadata={"description": "Pass as `after` for the next page: the last event's version (`after` when none)."},
    )
    next_after = Whole(
        required=True,
        metadata={
            "description": "The same as `next`, by its older name, kept for clients that read it.",
            "deprecated": True,
        },
    )


class Log(Schema):
    game = fields.String(required=True)
    seed = fields.String(required=True)
    commitment = fields.String(required=True)
    events = fields.List(fields.Nested(Event), required=True)


class Check(Schema):
    name = fields.String(required=True)
    ok = Flag(required=True)
    detail = fields.String(required=True)


class Audit(Schema):
    game = fields.String(required=True)
    verified = Flag(
        required=True,
        metadata={
            "description": "Every check passed: the seed, every shuffle, and every command judged again by the rules."
        },
    )
    setup = fields.String(
        required=True,
        metadata={
            "description": "`drawn from the seed`, or `explicit, not drawn (…)` when "
            "the creator gave the grid, deck or first player."
        },
    )
    checks = fields.List(fields.Nested(Check), required=True)


class Problem(Schema):
    """RFC 9457 problem details."""

    type = fields.String(required=True, metadata={"description": "A URI reference naming the cause, stable per cause."})
    title = fields.String(required=True)
    status = Whole(required=True)
    detail = fields.String(required=True)
    instance = fields.String()
    code = fields.String(required=True, metadata={"description": "The cause as a short code, e.g. not_your_turn."})
    errors = fields.Dict(metadata={"description": "Field -> messages, for malformed requests."})
    field = fields.String(allow_none=True)
    current_version = Whole(metadata={"description": "With stale_version: the game's version now."})
    limit = fields.String(
        metadata={"description": "With a refusal past a limit or quota: the setting that sets it (docs/operations.md)."}
    )


class RedisCheck(Schema):
    status = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "unsafe", "unchecked", "degraded", "unknown"]),
        metadata={
            "description": "Whether Redis keeps games: an append-only file and no eviction on every node "
            "(`unchecked` where CONFIG is disabled, as on managed Redis); `degraded` when a node is "
            "failing or a primary has fewer replicas than STORE_REPLICAS (its writes are refused)."
        },
    )
    detail = fields.String(required=True)


class RewardView(Schema):
    crystals = Whole(required=True)
    scales = Whole(required=True, metadata={"description": "Golden scales, from the supply while it lasts."})
    cards = Whole(required=True, metadata={"description": "Cards drawn from the deck."})


class SpaceSpec(Schema):
    colour = fields.String(required=True, metadata={"description": "A colour, or 'any' (one colour per space)."})
    value = Whole(required=True)


class BuildingSpec(Schema):
    building = fields.String(required=True, validate=validate.OneOf(list(BUILDINGS)))
    name = fields.String(required=True)
    spaces = fields.List(fields.Nested(SpaceSpec), required=True, metadata={"description": "Left to right."})
    majority = fields.Nested(RewardView, required=True, metadata={"description": "To the most markers (R7)."})
    construction = fields.Nested(RewardView, required=True, metadata={"description": "To each contributor."})
    neighbourhood = fields.Nested(
        RewardView,
        required=True,
        metadata={"description": "To each contributor of a building completed next to this rebuilt one."},
    )
    expansion = Flag(required=True)
    starting = Flag(required=True, metadata={"description": "One of the four tiles around the Courtyard."})


class Catalogue(Schema):
    buildings = fields.List(fields.Nested(BuildingSpec), required=True)


class Health(Schema):
    status = fields.String(required=True)
    redis = fields.Nested(RedisCheck, metadata={"description": "On /readyz: the start-up check of Redis's settings."})


WEBHOOK_KINDS = ["turn.started", "turn.deadline_near", "game.ended", "event"]


class WebhookRequest(Strict):
    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), validate.URL(schemes={"http", "https"}, require_tld=False)],
        metadata={
            "description": "Where to POST. Hosts that are or resolve to loopback, private, link-local, "
            "multicast or metadata addresses (also inside an IPv6 address) are refused, and so is any port "
            "but 443 (https) or 80 (http); redirects are not followed."
        },
    )
    events = fields.List(
        fields.String(validate=validate.OneOf(WEBHOOK_KINDS)),
        required=True,
        validate=validate.Length(min=1, max=len(WEBHOOK_KINDS)),
        metadata={
            "description": "Kinds: `turn.started` (your turn began), `turn.deadline_near` (the last "
            "quarter of your turn's deadline, at most 5 minutes), `game.ended`, `event` "
            "(every event, redacted for your seat)."
        },
    )


class Webhook(Schema):
    id = fields.String(required=True)
    seat = Whole(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(validate=validate.OneOf(WEBHOOK_KINDS)), required=True)
    created = fields.String(required=True)
    enabled = Flag(required=True, metadata={"description": "False once deliveries kept failing or timing out."})
    failures = Whole(required=True, metadata={"description": "Deliveries in a row that failed every try."})
    timeouts = Whole(
        required=True,
        metadata={"description": "Attempts in a row whose receiver did not connect or answer in time."},
    )
    deferred = Whole(
        required=True,
        metadata={
            "description": "Deliveries put off to the next minute because the game or the seat's account had "
            "used its delivery budget (120 and 300 a minute by default), in total."
        },
    )
    disabled_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Why it is disabled: `timeouts` (3 attempts in a row timed out: 2 s to connect, "
            "5 s to answer, by default), `failures` (5 deliveries in a row failed every try); null while enabled."
        },
    )


class WebhookCreated(Webhook):
    secret = fields.String(
        required=True,
        metadata={
            "description": "The signing secret (`whsec_…`), shown only now: "
            "verify each delivery with a Standard Webhooks library."
        },
    )


class WebhookList(Schema):
    webhooks = fields.List(fields.Nested(Webhook), required=True)


class DeliveryAttempt(Schema):
    at = fields.String(required=True)
    delivery = fields.String(
        required=True, metadata={"description": "The message's `webhook-id`, the same on every try."}
    )
    kind = fields.String(required=True)
    attempt = Whole(required=True)
    status = Whole(
        required=True, allow_none=True, metadata={"description": "The receiver's HTTP status, if it answered."}
    )
    ms = fields.Float(required=True, metadata={"description": "How long the attempt took."})
    outcome = fields.String(required=True, validate=validate.OneOf(["delivered", "retrying", "failed"]))
    error = fields.String(required=True, allow_none=True)


class DeliveryLog(Schema):
    deliveries = fields.List(
        fields.Nested(DeliveryAttempt), required=True, metadata={"description": "The last 50 attempts, newest first."}
    )


class WebhookMessage(Schema):
    type = fields.String(required=True, validate=validate.OneOf([*WEBHOOK_KINDS, "webhook.test"]))
    game = fields.String(required=True)
    version = Whole(required=True, metadata={"description": "The game's version the message is about."})
    seat = Whole(required=True, metadata={"description": "The webhook's seat; `data` is redacted for it."})
    data = fields.Dict(
        required=True,
        metadata={
            "description": "`event`: the Event, redacted for the seat; `turn.started`: "
            "turn, seat, deadline_seconds; `turn.deadline_near`: turn, seat, "
            "seconds_left; `game.ended`: the GameEnded event; `webhook.test` (a test you asked for): webhook."
        },
    )


# -- accounts (application/accounts/account_service.py) ---------------------------------------------------


class EmailLinkRequest(Strict):
    email = fields.Email(
        required=True,
        validate=validate.Length(max=254),
        metadata={"description": "Where to send the sign-in link. Never shown to anyone else."},
    )
    language = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of the mail and of the page its link opens (else the request's "
            "Accept-Language, else English)."
        },
    )


class EmailLinkSent(Schema):
    delivery = fields.String(
        required=True,
        validate=validate.OneOf(["email", "server log"]),
        metadata={"description": "How links travel on this service: by email, or (without SMTP) in its log."},
    )
    detail = fields.String(required=True)


class EmailLinkUse(Strict):
    token = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The `token` of the link's query (`/signin?token=...`)."},
    )


class Profile(Schema):
    account = fields.String(required=True)
    display_name = fields.String(required=True, metadata={"description": "Shown to others."})
    email = fields.String(
        required=True, allow_none=True, metadata={"description": "Shown to you alone; null for a passkey-only account."}
    )
    created = fields.String(required=True)


class ProfileChange(Strict):
    display_name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=40), _shown_to_others],
        metadata={"description": NAME_RULE},
    )


class TokenRequest(Strict):
    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=60),
        metadata={"description": "What the token is for, to tell it apart in the list."},
    )


class TokenInfo(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = fields.String(required=True)
    last_used = fields.String(required=True, allow_none=True, metadata={"description": "To the minute."})


class NewToken(TokenInfo):
    token = fields.String(
        required=True,
        metadata={"description": "The secret, shown this once: send it as 'Authorization: Bearer <token>'."},
    )


class TokenList(Schema):
    tokens = fields.List(fields.Nested(TokenInfo), required=True)


class SeatClaim(Strict):
    tokens = fields.List(
        fields.String(validate=validate.Length(min=1, max=200)),
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "Seat tokens held by this browser or program: each proves its seat."},
    )
    account = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "The account the seats go to, as shown to the person who confirmed it (GET /auth/session): "
            "refused (409 not_this_account) unless the caller is signed in to it."
        },
    )


class ClaimedSeat(Schema):
    game = fields.String(required=True)
    seat = Whole(required=True)


class Claimed(Schema):
    claimed = fields.List(fields.Nested(ClaimedSeat), required=True)
    unmatched = Whole(required=True, metadata={"description": "How many tokens named no seat."})
    kept_elsewhere = fields.List(
        fields.Nested(ClaimedSeat),
        required=True,
        metadata={
            "description": "Seats not claimed because your account keeps another seat of the same game "
            "(an account keeps one seat a game; its token still plays it)."
        },
    )


# -- passkeys (application/accounts/passkeys.py) ---------------------------------------------------


class PasskeyBegin(Strict):
    display_name = fields.String(
        load_default=None,
        validate=[validate.Length(min=1, max=40), _shown_to_others],
        metadata={"description": f"Signing up with a passkey alone: the new account's display name, {NAME_RULE}"},
    )


class Ceremony(Schema):
    ceremony = fields.String(required=True, metadata={"description": "Send it back with the authenticator's answer."})
    options = fields.Dict(
        required=True,
        metadata={
            "description": "WebAuthn options (JSON, binary fields in base64url) for navigator.credentials.create or .get."
        },
    )


class PasskeyFinish(Strict):
    ceremony = fields.String(required=True, validate=validate.Length(min=1, max=100))
    credential = fields.Dict(
        required=True,
        metadata={
            "description": "The authenticator's answer as JSON (PublicKeyCredential.toJSON()), base64url fields."
        },
    )


class PasskeyInfo(Schema):
    id = fields.String(required=True, metadata={"description": "The credential id (base64url)."})
    name = fields.String(required=True)
    created = fields.String(required=True)
    last_used = fields.String(required=True, allow_none=True)


class PasskeyList(Schema):
    passkeys = fields.List(fields.Nested(PasskeyInfo), required=True)


class PasskeyRegistered(Schema):
    account = fields.String(required=True)
    passkey = fields.Nested(PasskeyInfo, required=True)


class DeviceCode(Schema):
    code = fields.String(required=True, metadata={"description": "Type it on the other device (ABCD-EFGH)."})
    link = fields.String(required=True, metadata={"description": "Or open this there (a QR code of it, say)."})
    expires_in = Whole(required=True, metadata={"description": "Seconds it stays good (once)."})


class DeviceCodeUse(Strict):
    code = fields.String(required=True, validate=validate.Length(min=8, max=20))


class SessionState(Schema):
    signed_in = Flag(required=True)
    profile = fields.Nested(Profile, required=True, allow_none=True)


# -- open games, rematches, ratings -----------------------------------------------------------


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
    seats = fields.List(fields.Nested(OpenSeat), required=True)
    free = Whole(required=True, metadata={"description": "Seats still free for people."})
    game = fields.String(
        required=True, allow_none=True, metadata={"description": "The game, once every seat is taken."}
    )
    cancelled = fields.String(required=True, allow_none=True, metadata={"description": "Why it was cancelled."})


class OpenGameList(Schema):
    open_games = fields.List(fields.Nested(OpenGame), required=True)
    next = _next_page()


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
    history = fields.List(fields.Nested(RatedGame), required=True, metadata={"description": "Newest first."})


class RatedPlayer(RatingNumbers):
    player = fields.String(required=True)
    name = fields.String(required=True)


class Leaderboard(Schema):
    players = fields.List(fields.Nested(RatedPlayer), required=True, metadata={"description": "Best first."})
    bots = fields.List(
        fields.Nested(RatedPlayer), required=True, metadata={"description": "Each bot level, strongest first."}
    )
