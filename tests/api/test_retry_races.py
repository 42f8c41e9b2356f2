"""Exactly once under a real retry race: copies of one request, sent at once from threads with the
same Idempotency-Key to the in-process app on the real Redis, make one resource and all get its
first answer (application/retries.py: one plan per key, made create-if-absent)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from tests.api.client import CheckedClient
from tests.support.games import created
from tests.support.lobby import account_of, auth, open_game, people

COPIES = 8


def at_once(api: CheckedClient, send: Callable[[CheckedClient], Any]) -> list[Any]:
    """``send`` from COPIES threads, each its own client of the one app, released together."""
    start = threading.Barrier(COPIES)
    answers: list[Any] = [None] * COPIES

    def copy(i: int) -> None:
        client = CheckedClient(api.app)
        start.wait()
        answers[i] = send(client)

    threads = [threading.Thread(target=copy, args=(i,)) for i in range(COPIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


def one_answer(answers: list[Any], status: int) -> dict[str, Any]:
    assert {a.status_code for a in answers} == {status}, [a.json for a in answers if a.status_code != status]
    bodies = [a.json for a in answers]
    assert all(body == bodies[0] for body in bodies)
    return bodies[0]  # type: ignore[no-any-return]


def test_copies_of_a_game_creation_sent_at_once_make_one_game(api_real):
    (ada,) = people(api_real, f"ada-{uuid.uuid4().hex[:8]}")
    sent = {"Idempotency-Key": str(uuid.uuid4()), **auth(ada)}
    body = {"seats": [{"kind": "human"}, {"kind": "open"}]}
    made = one_answer(at_once(api_real, lambda c: c.post("/games", json=body, headers=sent)), 201)
    assert [g["game"] for g in api_real.get("/me/games", headers=auth(ada)).json["games"]] == [made["game"]]
    view = api_real.get(f"/games/{made['game']}", token=made["seats"][0]["token"])
    assert view.json["viewer"] == 0 and view.json["version"] == made["version"]
    joined = api_real.post(f"/games/{made['game']}/seats/1/join", json={"invite": made["seats"][1]["invite"]})
    assert joined.status_code == 201


def test_copies_of_a_seat_join_sent_at_once_take_the_seat_once_with_one_token(api_real):
    made = created(api_real, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    game, invite = made["game"], made["seats"][1]["invite"]
    sent = {"Idempotency-Key": str(uuid.uuid4())}
    path = f"/games/{game}/seats/1/join"
    joined = one_answer(at_once(api_real, lambda c: c.post(path, json={"invite": invite}, headers=sent)), 201)
    assert api_real.get(f"/games/{game}", token=joined["token"]).json["viewer"] == 1
    again = api_real.post(path, json={"invite": invite})  # a join of its own: the seat is taken
    assert again.status_code == 409 and again.json["code"] == "seat_taken"


def test_copies_of_an_open_games_join_sent_at_once_take_one_seat(api_real):
    tag = uuid.uuid4().hex[:8]
    ada, bo = people(api_real, f"ada-{tag}", f"bo-{tag}")
    table = open_game(api_real, ada, players=3)["id"]
    sent = {"Idempotency-Key": str(uuid.uuid4()), **auth(bo)}
    joined = one_answer(at_once(api_real, lambda c: c.post(f"/open-games/{table}/join", headers=sent)), 200)
    players = [s["player"] for s in joined["seats"]]
    assert players == [account_of(api_real, ada), account_of(api_real, bo), None] and joined["free"] == 1
    assert [s["player"] for s in api_real.get(f"/open-games/{table}").json["seats"]] == players
