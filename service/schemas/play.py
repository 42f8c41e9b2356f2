"""Playing (service/routes/play_routes.py): a command, the legal ones, and what playing one answers."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain import COMMAND_TYPES
from domain.catalogue import BUILDINGS
from domain.commands import COMMAND_FIELDS as FIELD_RULES

from .common import CARD_IDS, COLOURS, TILES, Flag, Strict, Whole
from .feeds import Event
from .game_view import GameView


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


class CommandResult(Schema):
    game = fields.String(required=True)
    version = Whole(required=True)
    duplicate = Flag(
        required=True,
        metadata={"description": "True when this Idempotency-Key was applied before: nothing new happened."},
    )
    events = fields.List(fields.Nested(Event), required=True)
    view = fields.Nested(GameView, required=True)
