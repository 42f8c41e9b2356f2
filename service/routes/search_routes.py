"""A player's games, filtered and paged, and their export as NDJSON (application/search/)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, request, stream_with_context
from marshmallow import ValidationError, fields
from marshmallow.validate import OneOf, Range

from application.accounts.scopes import READ
from application.games.codec import dumps
from application.refusals import NotFound
from application.search.player_games import MAX_EXPORTED, Filters, aware, search
from domain import Edition
from events.endings import ENDINGS

from ..operation import OPTIONAL_PERSON, Answer, Body, Operation, Paging, Reply
from ..quotas import quotas
from ..requests import accounts, service, signed_in
from ..schemas.games import GameList
from .game_routes import with_seat
from .replay_routes import published_log

search_api = Blueprint("search", __name__)


class GameSearch(Paging):
    status = fields.String(
        validate=OneOf(["active", "finished"], error="must be active or finished"),
        metadata={"description": "Only games in this state (`active`: only the player themself may ask)."},
    )
    opponent = fields.String(metadata={"description": "Only games the player played against this account."})
    edition = fields.String(validate=OneOf([e.value for e in Edition], error="must be classic or cmon"))
    players = fields.Integer(validate=Range(2, 4, error="must be 2, 3 or 4"))
    result = fields.String(
        validate=OneOf(["won", "lost"], error="must be won or lost"),
        metadata={"description": "The player's result: `won` (among the winners) or `lost`. Finished games only."},
    )
    place = fields.Integer(
        validate=Range(1, 4, error="must be 1, 2, 3 or 4"),
        metadata={"description": "The player's place, 1 the best (ties share one). Finished games only.", "example": 1},
    )
    ended = fields.String(
        validate=OneOf(ENDINGS, error=f"must be {', '.join(ENDINGS[:-1])} or {ENDINGS[-1]}"),
        metadata={
            "description": "How the game ended: `played` (a seat's own move), `clock` (a move the clock played "
            "for a seat whose time ran out) or `admin` (an operator ended it). Finished games only.",
            "example": "clock",
        },
    )
    ended_from = fields.DateTime(
        metadata={"description": "Only games that ended at or after this time (UTC if no zone)."}
    )
    ended_to = fields.DateTime(
        metadata={"description": "Only games that ended at or before this time (UTC if no zone)."}
    )


class ExportSearch(GameSearch):
    status = fields.String(
        validate=OneOf(["finished"], error="must be finished: a game's log is published when it ends"),
        metadata={"description": "Finished games only: a game's log is published when it ends."},
    )
    limit = fields.Integer(
        load_default=MAX_EXPORTED,
        validate=Range(1, MAX_EXPORTED, error=f"must be a whole number from 1 to {MAX_EXPORTED}"),
        metadata={"description": "At most this many games in the file."},
    )


SEARCH_TEXT = (
    "The player's own games in any state when they ask (signed in as them), else their finished games only. "
    "Filters combine; a bad one is refused (422 naming it). Newest first by creation; `next` is passed back as `after`."
)


@Operation(
    search_api,
    "get",
    "/players/{player}/games",
    id="listPlayerGames",
    tag="games",
    summary="A player's games, filtered by opponent, edition, player count, result, place and end, a page at a time.",
    description=SEARCH_TEXT + " `my_seat` is the player's seat.",
    security=OPTIONAL_PERSON,
    scope=READ,
    query=GameSearch,
    responses={200: Reply("The games.", GameList)},
    problems=(401, 403, 404, 422),
)
def list_player_games(player: str, query: Body) -> Answer:
    seats, page = _searched(player, query)
    return {"games": [with_seat(s, seats[s["game"]]) for s in page.games], "next": page.next}


NEXT_LINK = {
    "Link": {
        "description": '`<...?after=<cursor>...>; rel="next"` when more games match: the same export continued.',
        "schema": {"type": "string"},
    }
}


@Operation(
    search_api,
    "get",
    "/players/{player}/games/export",
    id="exportPlayerGames",
    tag="audit",
    summary=f"The finished games a search finds, as NDJSON: each line one game's log (as getLog answers it), "
    f"at most {MAX_EXPORTED} a request.",
    description="The same filters as `listPlayerGames`; only finished games (a game's log is published when it ends). "
    "Streamed; `bluemoon-audit file.ndjson` verifies it offline, line by line. Counted against "
    "QUOTA_EXPORTS_PER_ADDRESS (429 `too_many_exports` past it).",
    security=OPTIONAL_PERSON,
    scope=READ,
    query=ExportSearch,
    responses={
        200: Reply(
            "One game's log a line.",
            {
                "application/x-ndjson": {
                    "schema": {"type": "string", "description": "One `Log` (components.schemas.Log) a line."}
                }
            },
            headers=NEXT_LINK,
        )
    },
    problems=(401, 403, 404, 422, 429),
)
def export_player_games(player: str, query: Body) -> Answer:
    _, page = _searched(player, {**query, "status": "finished"})
    if limits := quotas():
        limits.count_export()
    games = [s["game"] for s in page.games]

    def lines() -> Iterator[bytes]:
        for game in games:
            yield dumps(published_log(game)) + b"\n"

    headers = {}
    if page.next:
        given = {k: v for k, v in request.args.items() if k != "after"}
        headers["Link"] = f'<{request.path}?{urlencode({**given, "after": page.next})}>; rel="next"'
    return Response(stream_with_context(lines()), mimetype="application/x-ndjson", headers=headers)


def _searched(player: str, query: Body) -> tuple[dict[str, int], Any]:
    """The player's seats and the page of their games ``query`` asks for."""
    if not accounts().exists(player):
        raise NotFound("no such player")
    itself = signed_in() == player
    if query.get("status") == "active" and not itself:
        raise ValidationError({"status": ["only the player themself sees their games in play"]})
    seats = accounts().seats(player)
    opponent = query.get("opponent")
    if opponent is not None and not accounts().exists(opponent):
        raise ValidationError({"opponent": ["no such player"]})
    filters = Filters(
        finished_only=not itself,
        status=query.get("status"),
        opponent=accounts().seats(opponent) if opponent is not None else None,
        edition=query.get("edition"),
        players=query.get("players"),
        result=query.get("result"),
        place=query.get("place"),
        ended=query.get("ended"),
        ended_from=aware(query["ended_from"]) if "ended_from" in query else None,
        ended_to=aware(query["ended_to"]) if "ended_to" in query else None,
    )
    return seats, search(service().index, seats, filters, query["limit"], query.get("after"))
