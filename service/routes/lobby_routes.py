"""Finding a game and seeing how you play: open games in the lobby, rematches, ratings and the
leaderboard (application/lobby/open_games.py, rematches.py, ratings.py)."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response
from marshmallow import fields
from marshmallow.validate import OneOf, Range

from application.accounts.scopes import PLAY, READ
from application.lobby.open_games import TableSpec
from application.lobby.ratings import BOT, Rating
from application.refusals import NotFound
from events import keys

from ..operation import (
    AUTH,
    OPTIONAL_AUTH,
    PERSON,
    Answer,
    Body,
    Caller,
    Operation,
    Paging,
    Parameters,
    Reply,
    TrueOrFalse,
    location,
)
from ..quotas import quotas
from ..requests import accounts, components, etag, etag_version, person, shown_clock, signed_in, stored_clock
from ..retried import Made, Plan, once
from ..schemas.common import LEVELS
from ..schemas.lobby import Leaderboard, OpenGame, OpenGameList, OpenGameRequest, PlayerRating, RematchStatus
from ..schemas.retries import RetryKey
from .challenge_routes import public as challenge_view

lobby = Blueprint("lobby", __name__)


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """An open game as anyone may see it: names and player ids, never an email."""
    seats = [
        {
            "kind": s["kind"],
            "name": s.get("name"),
            "level": s.get("level"),
            "player": s.get("account"),
            **({"account_bot": True} if s.get("bot") else {}),  # only a bot account's seat says so
        }
        for s in doc["seats"]
    ]
    closes = datetime.fromtimestamp(doc["closes"] / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    rating_range = doc["rating_range"]
    return {
        **{k: doc[k] for k in ("id", "created", "status", "options", "rated", "turn_deadline", "deadline_level")},
        "clock": shown_clock(doc.get("clock")),
        "closes": closes,
        "rating_range": {"min": rating_range[0], "max": rating_range[1]} if rating_range else None,
        "bot_accounts": doc.get("bot_accounts", True),  # (opened before bot accounts: they were not kept out)
        "seats": seats,
        "free": sum(s["kind"] == "human" and not s["player"] for s in seats),
        "game": doc["game"],
        "cancelled": doc["cancelled"],
    }


@Operation(
    lobby,
    "post",
    "/open-games",
    id="openGame",
    tag="lobby",
    summary="Open a game in the lobby with yourself in the first seat; it starts when every seat is taken.",
    security=PERSON,
    scope=PLAY,
    headers=RetryKey,
    body=OpenGameRequest,
    responses={201: Reply("Listed in the lobby.", OpenGame, headers=location("The open game."))},
    problems=(400, 401, 403, 409, 413, 415, 422, 429),
)
def open_game(body: Body, headers: Body) -> Answer:
    spec = TableSpec(
        players=body["players"],
        edition=body["edition"],
        expansion=body["expansion"],
        bots=tuple(body["bots"]),
        rated=body["rated"],
        rating_range=(body["rating_range"]["min"], body["rating_range"]["max"]) if body["rating_range"] else None,
        turn_deadline=body["turn_deadline"],
        deadline_level=body["deadline_level"] if body["turn_deadline"] or body["clock"] else None,
        clock=stored_clock(body["clock"]),
        bot_accounts=body["bot_accounts"],
    )
    creator = person()
    components().suspensions.refuse_if_suspended(creator)  # a moderator's suspension: no new games

    def count() -> None:
        if limits := quotas():
            limits.count_game(creator)

    def opened(plan: Plan) -> Made:
        doc = components().tables.open(creator, spec, table_id=plan["table"])
        return public(doc), {"Location": f"/open-games/{doc['id']}"}

    return once("openGame", headers, opened, lambda: {"table": uuid.uuid4().hex}, count)


class LobbyFilter(Paging):
    edition = fields.String(validate=OneOf(["classic", "cmon"], error="must be classic or cmon"))
    players = fields.Integer(validate=Range(2, 4, error="must be 2, 3 or 4"))
    bot_accounts = TrueOrFalse(
        load_default=True,
        metadata={"description": "false: leave out the open games a bot account opened or sits at."},
    )


class LobbyConditional(Parameters):
    if_none_match = fields.String(
        data_key="If-None-Match",
        metadata={"description": "The lobby's ETag you hold: when nothing changed since, the answer is 304."},
    )


@Operation(
    lobby,
    "get",
    "/open-games",
    id="listOpenGames",
    tag="lobby",
    summary="Open games waiting for players, newest first, a page at a time; poll with If-None-Match.",
    query=LobbyFilter,
    headers=LobbyConditional,
    responses={
        200: Reply("Open games.", OpenGameList, headers={"ETag": {"schema": {"type": "string"}}}),
        304: Reply(
            "Nothing opened, filled or closed since the If-None-Match ETag.",
            headers={"ETag": {"schema": {"type": "string"}}},
        ),
    },
    problems=(422,),
)
def list_open_games(query: Body, headers: Body) -> Answer:
    tables = components().tables
    version = tables.version()
    if etag_version(headers.get("if_none_match", "")) == version:
        return Response(status=304, headers=etag(version))
    found, after = tables.lobby(
        query.get("edition"), query.get("players"), query["limit"], query.get("after"), query["bot_accounts"]
    )
    # the version read before the listing: a change between the two costs a poll one more 200, never a 304
    return {"open_games": [public(doc) for doc in found], "next": after}, etag(version)


@Operation(
    lobby,
    "get",
    "/open-games/{table}",
    id="getOpenGame",
    tag="lobby",
    summary="An open game: its seats, and its game once every seat is taken.",
    responses={200: Reply("The open game.", OpenGame)},
    problems=(404,),
)
def get_open_game(table: str) -> Answer:
    return public(components().tables.get(table))


@Operation(
    lobby,
    "post",
    "/open-games/{table}/join",
    id="joinOpenGame",
    tag="lobby",
    summary="Take a free seat; the last seat taken starts the game, which is then in each person's games.",
    security=PERSON,
    scope=PLAY,
    headers=RetryKey,
    responses={200: Reply("Seated (and, when full, started).", OpenGame)},
    problems=(401, 403, 404, 409, 422),
)
def join_open_game(table: str, headers: Body) -> Answer:
    account = person()
    components().suspensions.refuse_if_suspended(account)
    return once(
        "joinOpenGame", headers, lambda plan: (public(components().tables.join(table, account, plan.get("mark"))), {})
    )


@Operation(
    lobby,
    "delete",
    "/open-games/{table}",
    id="cancelOpenGame",
    tag="lobby",
    summary="Cancel an open game you opened, before it starts; its seats are released.",
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Cancelled.", OpenGame)},
    problems=(401, 403, 404, 409),
)
def cancel_open_game(table: str) -> Answer:
    return public(components().tables.cancel(table, person()))


@Operation(
    lobby,
    "post",
    "/games/{game}/rematch",
    id="acceptRematch",
    tag="lobby",
    summary="Offer or accept a rematch of a finished game: the same seats and options, once every person accepts.",
    description="In a game of two people whose other person has left (nobody offered within an hour of the "
    "end: `REMATCH_WINDOW_SECONDS`), the offer is sent as a challenge instead (`challenge`, docs/challenges.md).",
    security=AUTH,
    scope=PLAY,
    headers=RetryKey,
    responses={200: Reply("Accepted; the new game once every human seat has.", RematchStatus)},
    problems=(401, 403, 404, 409, 422),
)
def accept_rematch(game: str, caller: Caller, headers: Body) -> Answer:
    seat, account = caller.seat, signed_in()
    assert seat is not None
    components().suspensions.refuse_if_suspended(account)  # a rematch is a new game

    def accepted(plan: Plan) -> Made:
        challenge = components().challenges.rematch(game, seat, account, plan["challenge"])
        if challenge is not None:  # the other person has left: a challenge waits for them instead
            status = components().rematches.status(game, seat)
            return {**status, "token": None, "challenge": challenge_view(challenge)}, {}
        return components().rematches.accept(game, seat, account, plan["token"], plan.get("mark")), {}

    def fresh() -> Plan:
        return {"token": secrets.token_urlsafe(32), "challenge": uuid.uuid4().hex}

    return once("acceptRematch", headers, accepted, fresh, seat_token=True)


@Operation(
    lobby,
    "get",
    "/games/{game}/rematch",
    id="getRematch",
    tag="lobby",
    summary="Who has accepted a rematch, and the new game once every person has; its invites only to this "
    "game's seats.",
    security=OPTIONAL_AUTH,
    scope=READ,
    responses={200: Reply("The rematch so far.", RematchStatus)},
    problems=(403, 404),
)
def get_rematch(game: str, caller: Caller) -> Answer:
    return components().rematches.status(game, caller.seat)


def rated(player: str, rating: Rating) -> dict[str, Any]:
    if player.startswith(BOT):
        return {"player": player, "name": f"{player[len(BOT) :]} bot", "bot": True, **rating.document()}
    profile = accounts().profile(player)
    return {"player": player, "name": profile["display_name"], **_bot(profile), **rating.document()}


def _bot(profile: dict[str, Any]) -> dict[str, bool]:
    """``bot: true`` for a bot account, nothing for a person (only a bot says so)."""
    return {"bot": True} if profile["bot"] else {}


@Operation(
    lobby,
    "get",
    "/players/{player}/rating",
    id="playerRating",
    tag="lobby",
    summary="A player's rating (a person's, or bot:<level>), its uncertainty and its history of rated games.",
    responses={200: Reply("The rating.", PlayerRating)},
    problems=(404,),
)
def player_rating(player: str) -> Answer:
    return _rating_of(player)


def _rating_of(player: str) -> dict[str, Any]:
    ratings = components().ratings
    if not (player.startswith(BOT) and player[len(BOT) :] in LEVELS) and not accounts().exists(player):
        raise NotFound(f"no player {player}")
    return {**rated(player, ratings.current(player)), "history": ratings.history(player)}


@Operation(
    lobby,
    "get",
    "/me/rating",
    id="myRating",
    tag="lobby",
    summary="Your rating, its uncertainty and its history.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("The rating.", PlayerRating)},
    problems=(401, 403),
)
def my_rating() -> Answer:
    return _rating_of(person())


class Top(Parameters):
    limit = fields.Integer(load_default=50, validate=Range(1, 100, error="must be a whole number from 1 to 100"))


@Operation(
    lobby,
    "get",
    "/leaderboard",
    id="leaderboard",
    tag="lobby",
    summary="The best rated people, and each bot level's rating to measure yourself against.",
    query=Top,
    responses={200: Reply("The leaderboard.", Leaderboard)},
    problems=(422,),
)
def leaderboard(query: Body) -> Answer:
    ratings = components().ratings
    people, bot_accounts = _best(query["limit"], keys.LEADERBOARD), _best(query["limit"], keys.BOT_LEADERBOARD)
    bots = sorted(
        (rated(f"{BOT}{level}", ratings.current(f"{BOT}{level}")) for level in LEVELS),
        key=lambda r: r["rating"],
        reverse=True,
    )
    return {"players": people, "bot_accounts": bot_accounts, "bots": bots}


def _best(limit: int, board: str) -> list[dict[str, Any]]:
    """The best ``limit`` accounts of a leaderboard: people's, or bot accounts'."""
    ratings, best = components().ratings, []
    for player, _ in ratings.leaderboard(limit, board=board):
        try:
            best.append(rated(player, ratings.current(player)))
        except NotFound:  # an account deleted while its last game was being rated
            ratings.forget(player)
    return best
