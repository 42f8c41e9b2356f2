"""Tournaments: Swiss or round robin at tables of two to four, made by a signed-in person, joined and
left before the start, withdrawn from during it; read by anyone with their rounds, games and
standings (application/tournaments/, docs/tournaments.md)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint
from marshmallow import fields
from marshmallow.validate import OneOf, Range

from application.accounts.scopes import PLAY
from application.tournaments.tournaments import MAX_PLAYERS, TOURNAMENTS_PER_ACCOUNT

from ..operation import PERSON, Answer, Body, Operation, Parameters, Reply, location
from ..requests import components, person, shown_clock, stored_clock
from ..retried import Made, Plan, once
from ..schemas.retries import RetryKey
from ..schemas.tournaments import STATUSES, BotEntrantRequest, Tournament, TournamentList, TournamentRequest

tournaments = Blueprint("tournaments", __name__)

LIMITS = (
    f"At most {TOURNAMENTS_PER_ACCOUNT} of yours wait to start at once (429 `too_many_tournaments`, Retry-After "
    f"until the first starts); at most {MAX_PLAYERS} players."
)
REFUSALS = (
    "409 `tournament_started` once it started (or ended), `tournament_full`, `already_entered`, `not_entered`, "
    "`kept_out` (bot accounts or the service's bots kept out); 403 `not_allowed` when an entrant blocks you."
)


def _iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def summary(doc: dict[str, Any]) -> dict[str, Any]:
    """A tournament as listed."""
    keep = ("id", "name", "status", "reason", "creator", "options", "rated", "turn_deadline", "deadline_level")
    return {
        **{k: doc[k] for k in keep},
        **{k: doc[k] for k in ("round_seconds", "min_players", "max_players", "bot_accounts", "bot_levels")},
        "format": {"rounds": None, **doc["format"]},
        "clock": shown_clock(doc.get("clock")),
        "starts": _iso(doc["starts"]),
        "created": doc["created"],
        "ended": doc["ended"],
        "players": len(doc["entrants"]),
    }


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """A tournament as anyone sees it: its entrants, rounds, games and standings."""
    return {
        **summary(doc),
        "entrants": [
            {"player": e["id"], **{k: e[k] for k in ("name", "level", "bot", "rating", "withdrawn", "no_shows")}}
            for e in doc["entrants"]
        ],
        "rounds": [
            {
                "number": r["number"],
                "started": _iso(r["started"]),
                "deadline": _iso(r["deadline"]),
                "tables": r["tables"],
                "byes": r["byes"],
            }
            for r in doc["rounds"]
        ],
        "standings": doc["standings"],
    }


@Operation(
    tournaments,
    "post",
    "/tournaments",
    id="createTournament",
    tag="tournaments",
    summary="Make a tournament: Swiss or round robin at tables of 2 to 4, open to join until it starts.",
    description="It starts at `starts` if `min_players` joined, else it is cancelled (`reason`: too_few_players). "
    f"422 naming the field the rules refuse. {LIMITS}",
    security=PERSON,
    scope=PLAY,
    headers=RetryKey,
    body=TournamentRequest,
    responses={201: Reply("Made; open to join.", Tournament, headers=location("The tournament."))},
    problems=(400, 401, 403, 413, 415, 422, 429),
)
def create_tournament(body: Body, headers: Body) -> Answer:
    maker = person()
    spec = {
        **{k: body[k] for k in ("name", "edition", "expansion", "rated", "turn_deadline", "round_seconds")},
        **{k: body[k] for k in ("min_players", "max_players", "bot_levels")},
        "format": {"kind": body["kind"], "table_size": body["table_size"], "rounds": body["rounds"]},
        "deadline_level": body["deadline_level"] if body["turn_deadline"] or body["clock"] else None,
        "clock": stored_clock(body["clock"]),
        "starts": int(body["starts"].timestamp() * 1000),
        "bot_accounts": body["bot_accounts"] if body["bot_accounts"] is not None else not body["rated"],
    }

    def made(plan: Plan) -> Made:
        found = components().tournaments.create(maker, spec, tournament_id=plan["tournament"])
        return public(components().tournaments.get(found["id"])), {"Location": f"/tournaments/{found['id']}"}

    return once("createTournament", headers, made, lambda: {"tournament": uuid.uuid4().hex})


class TournamentFilter(Parameters):
    status = fields.String(validate=OneOf(STATUSES, error="must be one of " + ", ".join(STATUSES)))
    limit = fields.Integer(load_default=50, validate=Range(1, 100, error="must be a whole number from 1 to 100"))


@Operation(
    tournaments,
    "get",
    "/tournaments",
    id="listTournaments",
    tag="tournaments",
    summary="Tournaments, soonest start first (only those of `status`, if given).",
    query=TournamentFilter,
    responses={200: Reply("Tournaments.", TournamentList)},
    problems=(422,),
)
def list_tournaments(query: Body) -> Answer:
    found = components().tournaments.listing(query.get("status"), query["limit"])
    return {"tournaments": [summary(doc) for doc in found]}


@Operation(
    tournaments,
    "get",
    "/tournaments/{tournament}",
    id="getTournament",
    tag="tournaments",
    summary="A tournament: its entrants, rounds with their games, and standings (kept once it ends).",
    responses={200: Reply("The tournament.", Tournament)},
    problems=(404,),
)
def get_tournament(tournament: str) -> Answer:
    return public(components().tournaments.get(tournament))


def _changed(tournament: str, change: Any) -> Answer:
    change(tournament, person())
    return public(components().tournaments.get(tournament))


@Operation(
    tournaments,
    "post",
    "/tournaments/{tournament}/join",
    id="joinTournament",
    tag="tournaments",
    summary="Join before the start.",
    description=REFUSALS,
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Joined.", Tournament)},
    problems=(401, 403, 404, 409),
)
def join_tournament(tournament: str) -> Answer:
    return _changed(tournament, components().tournaments.join)


@Operation(
    tournaments,
    "post",
    "/tournaments/{tournament}/leave",
    id="leaveTournament",
    tag="tournaments",
    summary="Leave before the start (during it, withdraw).",
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Left.", Tournament)},
    problems=(401, 403, 404, 409),
)
def leave_tournament(tournament: str) -> Answer:
    return _changed(tournament, components().tournaments.leave)


@Operation(
    tournaments,
    "post",
    "/tournaments/{tournament}/withdraw",
    id="withdrawFromTournament",
    tag="tournaments",
    summary="Withdraw: no more pairings; your game of the round under way is played out by the clock.",
    description="Before the start, this is leaving. 409 `not_entered` if you are not playing in it.",
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Withdrawn.", Tournament)},
    problems=(401, 403, 404, 409),
)
def withdraw_from_tournament(tournament: str) -> Answer:
    return _changed(tournament, components().tournaments.withdraw)


@Operation(
    tournaments,
    "post",
    "/tournaments/{tournament}/bots",
    id="addTournamentBot",
    tag="tournaments",
    summary="Its maker enters one of the service's bots, when the tournament lets them in (`bot_levels`).",
    security=PERSON,
    scope=PLAY,
    body=BotEntrantRequest,
    responses={200: Reply("Entered.", Tournament)},
    problems=(400, 401, 403, 404, 409, 413, 415, 422),
)
def add_tournament_bot(tournament: str, body: Body) -> Answer:
    components().tournaments.add_bot(tournament, person(), body["level"])
    return public(components().tournaments.get(tournament))
