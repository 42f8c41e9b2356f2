"""Games and seats: create a game, list games, look at one, join an open seat."""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from typing import Any

import redis
from flask import Blueprint, Response, current_app
from marshmallow import ValidationError, fields
from marshmallow.validate import OneOf

from application.accounts.scopes import PLAY, READ
from application.games.game_service import SeatSpec, digest
from application.games.sweeps import Sweeper
from application.refusals import Unauthorized
from domain import Edition, Layout, Options
from domain.scenario import Position
from events.projection import Page, entry, page_of

from ..operation import (
    ETAG,
    OPTIONAL_AUTH,
    OPTIONAL_PERSON,
    VIEW_ETAG,
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
from ..requests import (
    accounts,
    components,
    etag,
    game_view,
    same_etag,
    service,
    signed_in,
    stored_clock,
    tokens,
    view_etag,
)
from ..retried import Made, Plan, once
from ..schemas.game_view import GameView
from ..schemas.games import Created, CreateGame, GameList, Join, Joined
from ..schemas.retries import RetryKey

games = Blueprint("games", __name__)


@Operation(
    games,
    "post",
    "/games",
    id="createGame",
    tag="games",
    summary="Create a game; human seats get their secret token now (signed in: your seat is the first human one).",
    security=OPTIONAL_PERSON,
    scope=PLAY,
    headers=RetryKey,
    body=CreateGame,
    responses={201: Reply("Created.", Created, headers={**ETAG, **location("The game.")})},
    problems=(400, 413, 415, 422, 429),
)
def create_game(body: Body, headers: Body) -> Answer:
    account = signed_in()
    components().suspensions.refuse_if_suspended(account)  # 403 account_suspended
    seats = [
        SeatSpec(s["kind"], s.get("name"), s.get("level") or ("greedy" if s["kind"] == "bot" else None))
        for s in body["seats"]
    ]
    mine = next((i for i, s in enumerate(seats) if s.kind == "human"), None) if account else None
    if account and mine is not None:  # the person's seat: named after them, and alerted for
        seats[mine] = SeatSpec("human", seats[mine].name or accounts().display_name(account), None, account=account)
    options = Options(len(seats), Edition(body["edition"]), body["expansion"], Layout(body["layout"]))
    setup = body.get("setup") or {}
    if setup.get("first_player") is not None and setup["first_player"] >= len(seats):
        raise ValidationError({"setup": {"first_player": [f"must be a seat number below {len(seats)}"]}})

    def count() -> None:
        if limits := quotas():
            limits.count_game(account)

    def secrets_of_seats() -> Plan:
        """The game's id and its seats' secrets, chosen before it is made (application/retries.py)."""
        chosen = {"human": lambda: secrets.token_urlsafe(32), "open": lambda: secrets.token_urlsafe(24)}
        return {"game": uuid.uuid4().hex, "secrets": [chosen[s.kind]() if s.kind in chosen else None for s in seats]}

    def made(plan: Plan) -> Made:
        return _create(body, options, account, mine, seats, plan)

    return once("createGame", headers, made, secrets_of_seats, count)


def _create(
    body: Body, options: Options, account: str | None, mine: int | None, seats: list[SeatSpec], plan: Plan
) -> Made:
    """The game ``plan`` names, made once (its id and its seats' secrets are the plan's)."""
    chosen = plan["secrets"]
    seats = [dataclasses.replace(s, token=digest(chosen[i])) if s.kind == "human" else s for i, s in enumerate(seats)]
    seats = [dataclasses.replace(s, invite=digest(chosen[i])) if s.kind == "open" else s for i, s in enumerate(seats)]
    setup = body.get("setup") or {}
    grid = {p["tile"]: (p["row"], p["col"]) for p in setup["grid"]} if setup.get("grid") else None
    try:
        created = service().create(
            options,
            seats,
            grid=grid,
            deck=setup.get("deck"),
            first_player=setup.get("first_player"),
            turn_deadline=body.get("turn_deadline"),
            deadline_level=body.get("deadline_level"),
            scenario=_position(body["scenario"]) if body.get("scenario") else None,
            clock=stored_clock(body.get("clock")),
            game=plan["game"],
        )
    except ValueError as error:  # the domain's check of an explicit grid or deck, or of a scenario
        raise ValidationError({"scenario" if body.get("scenario") else "setup": [str(error)]}) from error
    if account and mine is not None:
        accounts().add_seat(account, created.game, mine)
    try:  # and the games never started that are due, removed: housekeeping, which must not fail the creation
        Sweeper(service().client).made(created.game)
    except redis.RedisError as error:
        current_app.logger.warning("games never started not swept: %s", error)
    for seat in created.seats:
        seat["open"] = seat["kind"] == "open"
        if seat["kind"] == "human":
            seat["token"] = chosen[seat["seat"]]
        if seat["kind"] == "open":
            seat["invite"] = chosen[seat["seat"]]
            seat["invite_url"] = f"/games/{created.game}/seats/{seat['seat']}/join"
    return created.__dict__, {"Location": f"/games/{created.game}", **etag(created.version)}


def _position(doc: dict[str, Any]) -> Position:
    return Position(
        hands=tuple(tuple(hand) for hand in doc["hands"]),
        figures=tuple(doc["figures"]),
        crystals=tuple(doc["crystals"]),
        scales=tuple(doc["scales"]),
        turn=doc["turn"],
        markers=tuple((m["building"], m["space"], m["seat"]) for m in doc["markers"]),
        obelisk=tuple(doc["obelisk"]),
        dragons=tuple((d["dragon"], d["tile"]) for d in doc["dragons"]),
        discard=tuple(doc["discard"]),
        rebuilt=tuple(doc["rebuilt"]),
        scale_supply=doc["scale_supply"],
    )


class GameFilter(Paging):
    status = fields.String(validate=OneOf(["active", "finished"], error="must be active or finished"))
    my_turn = TrueOrFalse(metadata={"description": "Only games where it is the token's seat's turn."})


@Operation(
    games,
    "get",
    "/games",
    id="listGames",
    tag="games",
    summary="List games, newest first, a page at a time; with seat tokens (comma-separated), your games.",
    security=OPTIONAL_AUTH,
    scope=READ,
    query=GameFilter,
    responses={200: Reply("Games.", GameList)},
    problems=(401, 422),
)
def list_games(query: Body) -> Answer:
    status, my_turn, limit, after = query.get("status"), query.get("my_turn", False), query["limit"], query.get("after")
    account = signed_in()
    sent = [] if account else tokens()
    mine = {**service().games_of(sent), **(accounts().seats(account) if account else {})}
    if sent and not mine:  # a mistyped token must not quietly list every game instead of yours
        raise Unauthorized("no seat token sent is a seat of any game")
    if my_turn and not mine:
        raise Unauthorized("my_turn=true lists your games: send 'Authorization: Bearer <seat token>', or sign in")
    page = _page_of_mine(mine, status, my_turn, limit, after) if mine else service().index.page(status, limit, after)
    for summary in page.games:
        with_seat(summary, mine.get(summary["game"]))
    return {"games": page.games, "next": page.next}


def with_seat(summary: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A summary as the caller sees it: their seat in the game, and whether it is their turn."""
    summary["my_seat"] = seat
    summary["my_turn"] = None if seat is None else summary["turn"] == seat
    return summary


def _page_of_mine(mine: dict[str, int], status: str | None, my_turn: bool, limit: int, after: str | None) -> Page:
    """The token holder's games, paged the way the index pages every game."""
    listed = {}
    for game, summary in service().index.summaries(mine).items():
        if (status and summary["status"] != status) or (my_turn and summary["turn"] != mine[game]):
            continue
        listed[entry(game, summary["created"])] = summary
    return page_of(listed, limit, after)


class Conditional(Parameters):
    if_none_match = fields.String(
        data_key="If-None-Match",
        metadata={
            "description": "The view's ETag you hold: when the game is still as it showed (the same version, "
            "seats, clocks and deadline) the answer is 304 with no body."
        },
    )


@Operation(
    games,
    "get",
    "/games/{game}",
    id="getGame",
    tag="games",
    summary="The game as your seat (with a token) or a spectator sees it.",
    security=OPTIONAL_AUTH,
    scope=READ,
    headers=Conditional,
    responses={
        200: Reply("The view.", GameView, headers=VIEW_ETAG),
        304: Reply("Not modified since the If-None-Match ETag.", headers=VIEW_ETAG),
    },
    problems=(403, 404),
)
def get_game(game: str, caller: Caller, headers: Body) -> Answer:
    state = service().state(game, caller.read)
    tag = view_etag(state.version, caller.settings, caller.seat)
    if same_etag(headers.get("if_none_match", ""), tag):
        return Response(status=304, headers=tag)
    return game_view(game, state, caller.seat, caller.settings), tag


@Operation(
    games,
    "post",
    "/games/{game}/seats/{seat}/join",
    id="joinSeat",
    tag="games",
    summary="Take an open seat with its invite; returns the seat token (signed in: the seat is yours).",
    security=OPTIONAL_PERSON,
    scope=PLAY,
    headers=RetryKey,
    body=Join,
    responses={201: Reply("Joined.", Joined)},
    problems=(400, 403, 404, 409, 413, 415, 422, 429),
)
def join(game: str, seat: int, body: Body, headers: Body) -> Answer:
    account = signed_in()
    components().suspensions.refuse_if_suspended(account)
    name = body.get("name") or (accounts().display_name(account) if account else None)

    def take(plan: Plan) -> Made:
        token = service().join(game, seat, body["invite"], name, token=plan["token"])
        if account:
            accounts().add_seat(account, game, seat)
        return {"game": game, "seat": seat, "token": token}, {}

    return once("joinSeat", headers, take, lambda: {"token": secrets.token_urlsafe(32)}, invite=body["invite"])
