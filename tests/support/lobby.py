"""Open games and ratings as the API tests reach them: people with tokens, an open game, a
game made to have ended a given way."""

from __future__ import annotations

from dataclasses import replace

from domain.state import EndReason, Result
from tests.support.accounts import personal_token


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def people(api, *names: str) -> list[str]:
    return [personal_token(api, f"{name}@example.com") for name in names]


def open_game(api, token, **body):
    answer = api.post("/open-games", json={"players": 2, **body}, headers=auth(token))
    assert answer.status_code == 201, answer.json
    return answer.json


def account_of(api, token: str) -> str:
    return api.get("/me", headers=auth(token)).json["account"]


def finished_as(api, game: str, reason: EndReason, winners: tuple[int, ...], points: list[tuple[int, int]]):
    """The game as if it had ended so: each seat's offerings and crystals and the result (the
    final order is all that ratings read)."""
    state = api.app.extensions["bluemoon"].service.state(game)
    players = tuple(replace(p, offerings=o, crystals=c) for p, (o, c) in zip(state.players, points))
    return replace(state, players=players, result=Result(reason, winners))


def played_out_from_the_lobby(api, ada: str, bo: str) -> tuple[str, list]:
    """Two people (``ada``, ``bo``) and a greedy bot from the lobby, played to the end (the
    people end their turns, the bot builds): the game, and the rating claims its end handed off."""
    table = open_game(api, ada, players=3, bots=["greedy"])
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    claims: list = []
    api.app.extensions["bluemoon"].service.dispatcher.handoff.on["rating"] = claims.append
    by_seat = {0: ada, 1: bo}
    for _ in range(500):
        api.run_workers()
        view = api.get(f"/games/{game}").json
        if view["status"] == "finished":
            break
        end = {"type": "end_turn", "expected_version": view["version"]}
        ended = api.post(f"/games/{game}/commands", json=end, headers=auth(by_seat[view["turn"]["seat"]]))
        assert ended.status_code == 200, ended.json
    assert view["status"] == "finished"
    return game, claims
