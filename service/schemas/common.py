"""What every feature's schemas share: field kinds as JSON Schema means them, requests that
refuse unknown fields, the rule for names others see, a list's cursor, the names of cards, tiles
and bot levels, and the problem any operation may answer (RFC 9457)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from application.accounts.shown_text import hidden_characters
from domain.catalogue import BUILDINGS, COURTYARD
from domain.peoples import CARDS, Colour

TILES = sorted([COURTYARD, *BUILDINGS])
CARD_IDS = sorted(CARDS)
COLOURS = [c.value for c in Colour]
LEVELS = ["random", "greedy", "mcts", "planner", "expert"]


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


def shown_to_others(value: str) -> None:
    """A name others see shows what it says: nothing that breaks lines, hides or reorders text."""
    hidden = hidden_characters(value)
    if hidden:
        raise ValidationError(f"must not hold control or invisible formatting characters (found {', '.join(hidden)})")


def shown_name() -> fields.String:
    """A seat's display name, optional: others see it."""
    return fields.String(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(min=1, max=40), shown_to_others],
        metadata={"description": f"A display name: {NAME_RULE}"},
    )


def next_page() -> fields.String:
    """A paged list's cursor to its next page."""
    return fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `after` for the next, older page; null on the last page."},
    )


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
    until = Whole(metadata={"description": "With account_suspended: when the suspension ends (epoch ms)."})
    limit = fields.String(
        metadata={"description": "With a refusal past a limit or quota: the setting that sets it (docs/operations.md)."}
    )
    scope = fields.String(
        metadata={
            "description": "With insufficient_scope or session_required: the scope the operation needs, as the "
            'WWW-Authenticate header also says (`Bearer error="insufficient_scope", scope="play"`).'
        }
    )
