"""What the service tells of itself (service/routes/meta_routes.py): its health and the building catalogue."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.catalogue import BUILDINGS

from .common import Flag, Whole


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
