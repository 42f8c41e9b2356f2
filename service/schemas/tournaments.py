"""Tournaments (service/routes/tournament_routes.py): Swiss or round robin at tables of two to four,
their entrants, rounds, games and standings (application/tournaments/, docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from application.tournaments.tournaments import MAX_PLAYERS

from .common import LEVELS, Flag, Strict, Whole, shown_to_others
from .games import ClockRequest, TimeLimits

STATUSES = ["open", "running", "finished", "cancelled"]


class TournamentRequest(TimeLimits):
    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=80), shown_to_others],
        metadata={"description": "Its name, shown to everyone: no control or invisible formatting characters."},
    )
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["swiss", "round_robin"]),
        metadata={"description": "swiss: a set number of rounds paired by score; round_robin: everyone meets."},
    )
    table_size = Whole(required=True, validate=validate.Range(2, 4), metadata={"description": "Seats a table."})
    rounds = Whole(
        load_default=None,
        allow_none=True,
        validate=validate.Range(1, 15),
        metadata={"description": "A Swiss's rounds (1 to 15); a round robin's follow from its players: leave out."},
    )
    edition = fields.String(load_default="cmon", validate=validate.OneOf(["classic", "cmon"]))
    expansion = Flag(load_default=False)
    rated = Flag(load_default=True, metadata={"description": "Whether each game's end rates its seats."})
    starts = fields.AwareDateTime(
        required=True, metadata={"description": "When it starts (in the future); join and leave until then."}
    )
    round_seconds = Whole(
        load_default=7 * 86400,
        validate=validate.Range(min=3600, max=30 * 86400),
        metadata={
            "description": "A round's deadline after its start: its unfinished games are played out by the clock."
        },
    )
    min_players = Whole(load_default=2, validate=validate.Range(2, MAX_PLAYERS))
    max_players = Whole(
        load_default=16, validate=validate.Range(2, MAX_PLAYERS), metadata={"description": f"At most {MAX_PLAYERS}."}
    )
    bot_accounts = Flag(
        load_default=None,
        allow_none=True,
        metadata={"description": "Whether bot accounts may join; left out: not in a rated one, yes in an unrated one."},
    )
    bot_levels = Flag(load_default=False, metadata={"description": "Whether its maker may enter the service's bots."})

    @validates_schema
    def _consistent(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("expansion") and data.get("edition") == "classic":
            raise ValidationError("the expansion exists in the cmon edition only", "expansion")
        if data.get("min_players", 2) > data.get("max_players", 16):
            raise ValidationError("must not be above max_players", "min_players")


class BotEntrantRequest(Strict):
    level = fields.String(required=True, validate=validate.OneOf(LEVELS))


class TournamentFormat(Schema):
    kind = fields.String(required=True)
    table_size = Whole(required=True)
    rounds = Whole(required=True, allow_none=True, metadata={"description": "A Swiss's; null for a round robin."})


class TournamentOptions(Schema):
    edition = fields.String(required=True)
    expansion = Flag(required=True)


class TournamentPerson(Schema):
    account = fields.String(required=True)
    name = fields.String(required=True)


class Entrant(Schema):
    player = fields.String(
        required=True, metadata={"description": "The account's player id, or bot:<level>:<n> for the service's bots."}
    )
    name = fields.String(required=True)
    level = fields.String(required=True, allow_none=True, metadata={"description": "A service bot's level."})
    bot = Flag(required=True, metadata={"description": "A bot account or the service's bot."})
    rating = fields.Float(required=True, metadata={"description": "The shown rating when it joined (pairing)."})
    withdrawn = Flag(required=True)
    no_shows = Whole(required=True, metadata={"description": "Rounds whose game it made no move of its own in."})


class TournamentTable(Schema):
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "In seat order."})
    places = fields.List(Whole(), required=True, allow_none=True, metadata={"description": "Once its game ended."})
    no_shows = fields.List(fields.String(), required=True)


class TournamentRound(Schema):
    number = Whole(required=True)
    started = fields.String(required=True)
    deadline = fields.String(required=True)
    tables = fields.List(fields.Nested(TournamentTable), required=True)
    byes = fields.List(fields.String(), required=True)


class Standing(Schema):
    player = fields.String(required=True)
    place = Whole(required=True)
    points = fields.Float(required=True)
    buchholz = fields.Float(required=True)
    sonneborn_berger = fields.Float(required=True)
    games = Whole(required=True)
    byes = Whole(required=True)
    absences = Whole(required=True)
    withdrawn = Flag(required=True)


class TournamentSummary(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    reason = fields.String(required=True, allow_none=True, metadata={"description": "too_few_players: cancelled."})
    creator = fields.Nested(TournamentPerson, required=True)
    format = fields.Nested(TournamentFormat, required=True)
    options = fields.Nested(TournamentOptions, required=True)
    rated = Flag(required=True)
    turn_deadline = Whole(required=True, allow_none=True)
    deadline_level = fields.String(required=True, allow_none=True)
    clock = fields.Nested(ClockRequest, required=True, allow_none=True)
    round_seconds = Whole(required=True)
    starts = fields.String(required=True)
    min_players = Whole(required=True)
    max_players = Whole(required=True)
    bot_accounts = Flag(required=True)
    bot_levels = Flag(required=True)
    created = fields.String(required=True)
    ended = fields.String(required=True, allow_none=True)
    players = Whole(required=True, metadata={"description": "Entrants, withdrawn or not."})


class Tournament(TournamentSummary):
    entrants = fields.List(fields.Nested(Entrant), required=True)
    rounds = fields.List(fields.Nested(TournamentRound), required=True, metadata={"description": "Paired so far."})
    standings = fields.List(fields.Nested(Standing), required=True, metadata={"description": "Best first."})


class TournamentList(Schema):
    tournaments = fields.List(fields.Nested(TournamentSummary), required=True)
