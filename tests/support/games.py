"""The one game factory of the tests (``created``: ``POST /games``, checked) and what plays
games on through the API."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.api.client import pick

TWO_HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
TWO_HUMANS_SEAT_0_FIRST = {**TWO_HUMANS, "setup": {"first_player": 0}}


def created(api, body: dict | None = None, **kw) -> dict:
    """``POST /games`` with ``body`` (two humans when not given), checked: its answer, which
    holds the game, its version and every seat's token or invite."""
    made = api.post("/games", json=TWO_HUMANS if body is None else body, **kw)
    assert made.status_code == 201, made.json
    return made.json


def game_and_tokens(api, body: dict | None = None, **kw) -> tuple[str, list[str]]:
    """A game made by ``created``: its id and its seats' tokens, in seat order."""
    made = created(api, body, **kw)
    return made["game"], [s["token"] for s in made["seats"]]


def made_with_first_turn(api, body: dict, seat: int = 0, tries: int = 40, **kw) -> dict:
    """``POST /games`` until the drawn first player is ``seat``: its answer. A game with an open
    seat draws its first player (ruling P9: nothing is given beside a seat for someone else), so
    a test that needs Ada to move first makes games until one lets her (half of them, two seats)."""
    for _ in range(tries):
        made = created(api, body, **kw)
        if api.get(f"/games/{made['game']}").json["turn"]["seat"] == seat:
            return made
    raise AssertionError(f"no game of {tries} drew seat {seat} to move first")


MAX_COMMANDS = 6000


def play_to_the_end(
    api, game: str, tokens: dict[int, str], rnd: random.Random, choose: Callable[..., dict[str, Any]] | None = None
) -> dict:
    """Humans choose from GET .../legal (``pick``, or ``choose(commands, rnd, state)``) and
    post their choice back unchanged."""
    for _ in range(MAX_COMMANDS):
        api.run_workers()
        state = api.get(f"/games/{game}").json
        if state["status"] == "finished":
            return state
        seat = state["turn"]["seat"]
        assert seat in tokens, "a bot's turn must have been played by the workers"
        legal = api.get(f"/games/{game}/legal", token=tokens[seat]).json
        command = choose(legal["commands"], rnd, state) if choose else pick(legal["commands"], rnd)
        response = api.post(
            f"/games/{game}/commands",
            token=tokens[seat],
            json=command,
            headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": f"{game}-{legal['version']}"},
        )
        assert response.status_code == 200, response.json
        assert response.json["version"] > legal["version"]
    raise AssertionError("the game did not end")


def two_humans(api):
    made = created(api, TWO_HUMANS_SEAT_0_FIRST)
    return made["game"], [s["token"] for s in made["seats"]], made["version"]


def end_turn(api, game, token, version):
    r = api.post(
        f"/games/{game}/commands",
        token=token,
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": f'"{version}"', "Idempotency-Key": f"end-{version}"},
    )
    assert r.status_code == 200, r.json
    return r.json["version"]
