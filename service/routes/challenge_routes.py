"""Challenges that wait: a game of two asked of a named person or a bot account, answered by them
(accept, decline with a reason) or cancelled by its author, else expired after 7 days
(application/challenges/challenges.py, docs/challenges.md). A bot account answers with its own
token, by the same operations."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint

from application.accounts.scopes import PLAY, READ
from application.challenges.challenges import CHALLENGE_SECONDS, CHALLENGES_PER_ACCOUNT

from ..operation import PERSON, Answer, Body, Operation, Reply, location
from ..quotas import quotas
from ..requests import components, person, shown_clock, stored_clock
from ..retried import Made, Plan, once
from ..schemas.challenges import Challenge, ChallengeRequest, DeclineRequest, MyChallenges
from ..schemas.retries import RetryKey

challenges = Blueprint("challenges", __name__)

LIMITS = (
    f"A challenge waits {CHALLENGE_SECONDS // 86400} days for its answer, then expires. At most "
    f"{CHALLENGES_PER_ACCOUNT} of yours wait at once (429 `too_many_challenges`, Retry-After), and one at a time "
    "between two people, either way (409 `challenge_already_open`, naming it)."
)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def public(found: dict[str, Any]) -> dict[str, Any]:
    """A challenge as its two people see it."""
    return {
        **{k: found[k] for k in ("id", "status", "options", "rated", "turn_deadline", "deadline_level", "created")},
        "challenger": found["from"],
        "challenged": found["to"],
        "clock": shown_clock(found.get("clock")),
        "expires": _iso(found["expires"]),
        **{k: found.get(k) for k in ("answered", "reason", "game", "rematch_of")},
    }


@Operation(
    challenges,
    "post",
    "/challenges",
    id="createChallenge",
    tag="lobby",
    summary="Challenge a person or a bot account to a game of two; it waits for their answer.",
    description="Refused with 403 `not_allowed` when they do not let you (never why), 422 naming `account` for "
    f"yourself or an unknown account, 403 `account_suspended` while you are suspended. {LIMITS}",
    security=PERSON,
    scope=PLAY,
    headers=RetryKey,
    body=ChallengeRequest,
    responses={201: Reply("Sent; it waits for an answer.", Challenge, headers=location("The challenge."))},
    problems=(400, 401, 403, 409, 413, 415, 422, 429),
)
def create_challenge(body: Body, headers: Body) -> Answer:
    challenger = person()
    game = {
        **{k: body[k] for k in ("edition", "expansion", "rated", "turn_deadline")},
        "deadline_level": body["deadline_level"] if body["turn_deadline"] or body["clock"] else None,
        "clock": stored_clock(body["clock"]),
    }

    def count() -> None:
        if limits := quotas():
            limits.count_game(challenger)

    def made(plan: Plan) -> Made:
        found = components().challenges.create(challenger, body["account"], game, challenge_id=plan["challenge"])
        return public(found), {"Location": f"/challenges/{found['id']}"}

    return once("createChallenge", headers, made, lambda: {"challenge": uuid.uuid4().hex}, count)


@Operation(
    challenges,
    "get",
    "/me/challenges",
    id="listMyChallenges",
    tag="lobby",
    summary="Your challenges waiting for an answer: to you (none from a person you block) and from you.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("Your waiting challenges.", MyChallenges)},
    problems=(401, 403),
)
def my_challenges() -> Answer:
    found = components().challenges.of(person())
    return {way: [public(c) for c in listed] for way, listed in found.items()}


@Operation(
    challenges,
    "get",
    "/challenges/{challenge}",
    id="getChallenge",
    tag="lobby",
    summary="A challenge of yours (yours or to you; 404 for anyone else), and its game once accepted.",
    security=PERSON,
    scope=READ,
    responses={200: Reply("The challenge.", Challenge)},
    problems=(401, 403, 404),
)
def get_challenge(challenge: str) -> Answer:
    return public(components().challenges.get(challenge, person()))


@Operation(
    challenges,
    "post",
    "/challenges/{challenge}/accept",
    id="acceptChallenge",
    tag="lobby",
    summary="Accept a challenge to you: its game starts, with both of you seated. Accepting again answers the "
    "same game.",
    description="A bot account accepts with its own token (scopes `play` and `bot`). 409 `challenge_answered` "
    "once it was declined, cancelled or expired.",
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Accepted: `game` is the new game.", Challenge)},
    problems=(401, 403, 404, 409),
)
def accept_challenge(challenge: str) -> Answer:
    return public(components().challenges.accept(challenge, person()))


@Operation(
    challenges,
    "post",
    "/challenges/{challenge}/decline",
    id="declineChallenge",
    tag="lobby",
    summary="Decline a challenge to you, with a reason from a short list.",
    security=PERSON,
    scope=PLAY,
    body=DeclineRequest,
    responses={200: Reply("Declined.", Challenge)},
    problems=(400, 401, 403, 404, 409, 413, 415, 422),
)
def decline_challenge(challenge: str, body: Body) -> Answer:
    return public(components().challenges.decline(challenge, person(), body["reason"]))


@Operation(
    challenges,
    "delete",
    "/challenges/{challenge}",
    id="cancelChallenge",
    tag="lobby",
    summary="Cancel a challenge you sent, before it is answered.",
    security=PERSON,
    scope=PLAY,
    responses={200: Reply("Cancelled.", Challenge)},
    problems=(401, 403, 404, 409),
)
def cancel_challenge(challenge: str) -> Answer:
    return public(components().challenges.cancel(challenge, person()))
