"""People (service/routes/people_routes.py): profiles, the friends list, mutes and blocks, what a
person allows, and private notes."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from application.people.notes import MOST_NOTE_CHARACTERS, refused_characters
from application.people.relations import ChallengePolicy

from .common import Flag, Strict, Whole
from .lobby import RatedGame, RatingNumbers

POLICIES = [p.value for p in ChallengePolicy]


class PlayedGame(Schema):
    game = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "active or finished"})
    edition = fields.String(required=True)
    players = Whole(required=True)
    expansion = Flag(required=True)
    updated = fields.String(required=True, metadata={"description": "When its last events were played."})
    winners = fields.List(Whole(), allow_none=True)
    names = fields.List(fields.String(), required=True, metadata={"description": "Each seat's name."})
    seat = Whole(required=True, metadata={"description": "This player's seat."})
    turn = Whole(required=True, allow_none=True, metadata={"description": "The seat to move; null when finished."})
    turn_name = fields.String(required=True, allow_none=True, metadata={"description": "Whose turn it is, by name."})
    their_turn = Flag(required=True, metadata={"description": "Whether it is this player's turn."})
    watch = fields.String(required=True, metadata={"description": "The game's page, to watch it."})


class GameCounts(Schema):
    games = Whole(required=True)
    finished = Whole(required=True)
    by_edition = fields.Dict(keys=fields.String(), values=Whole(), required=True)
    by_players = fields.Dict(keys=fields.String(), values=Whole(), required=True)


class PersonNamed(Schema):
    player = fields.String(required=True)
    name = fields.String(required=True)
    bot = Flag(metadata={"description": "true: a bot account; absent for a person."})


class Yours(Schema):
    following = Flag(required=True)
    muting = Flag(required=True)
    blocking = Flag(required=True)


class PlayerProfile(RatingNumbers):
    player = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "The display name others see (never an email)."})
    bot = Flag(metadata={"description": "true: a bot account; absent for a person."})
    history = fields.List(
        fields.Nested(RatedGame), required=True, metadata={"description": "Rated games, newest first (at most 100)."}
    )
    recent_games = fields.List(
        fields.Nested(PlayedGame), required=True, metadata={"description": "The last moved first (at most 10)."}
    )
    counts = fields.Nested(GameCounts, required=True)
    followers = Whole(required=True)
    friends_public = Flag(required=True)
    friends = fields.List(
        fields.Nested(PersonNamed),
        required=True,
        allow_none=True,
        metadata={"description": "Whom they follow (at most 100); null unless public or your own."},
    )
    yours = fields.Nested(
        Yours,
        required=True,
        allow_none=True,
        metadata={"description": "Signed in: whether you follow, mute, block them; null signed out or your own."},
    )


class Friend(PersonNamed):
    rating = fields.Float(required=True, metadata={"description": "Shown rating: mu - 3 sigma."})
    games = fields.List(
        fields.Nested(PlayedGame),
        required=True,
        metadata={"description": "Current games, last moved first (at most 10)."},
    )


class FriendList(Schema):
    friends = fields.List(
        fields.Nested(Friend), required=True, metadata={"description": "The earliest followed first."}
    )
    next = fields.String(
        required=True, allow_none=True, metadata={"description": "Pass as `after` for the next page; null on the last."}
    )


class PeopleList(Schema):
    people = fields.List(fields.Nested(PersonNamed), required=True)


class Privacy(Schema):
    challenges = fields.String(
        required=True, validate=validate.OneOf(POLICIES), metadata={"description": "Who may challenge you."}
    )
    friends_public = Flag(required=True, metadata={"description": "Whether your profile shows whom you follow."})


class PrivacyChange(Strict):
    challenges = fields.String(
        validate=validate.OneOf(POLICIES), metadata={"description": "everyone, followed or nobody"}
    )
    friends_public = Flag()


def _plain_text(value: str) -> None:
    if hidden := refused_characters(value):
        raise ValidationError(
            f"no control or invisible formatting characters but line breaks (found {', '.join(hidden)})"
        )


NOTE_RULE = (
    f"Plain text (never markup), at most {MOST_NOTE_CHARACTERS} characters; line breaks, but no other control "
    "character and no invisible formatting (bidi overrides and isolates, zero-width spaces, ...)."
)


class NoteChange(Strict):
    text = fields.String(
        required=True,
        validate=[validate.Length(max=MOST_NOTE_CHARACTERS), _plain_text],
        metadata={"description": NOTE_RULE},
    )


class Note(Schema):
    subject = fields.String(required=True, validate=validate.OneOf(["player", "game"]))
    about = fields.String(required=True, metadata={"description": "The player's or the game's id."})
    text = fields.String(required=True, metadata={"description": "Yours alone; empty when you keep none."})
    updated = fields.String(required=True, allow_none=True, metadata={"description": "null: no note kept."})
