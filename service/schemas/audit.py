"""A finished game's published log and its audit (service/routes/replay_routes.py)."""

from __future__ import annotations

from marshmallow import Schema, fields

from .common import Flag
from .feeds import Event


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
