"""A seat polling an unchanged game gets the picture drawn of that very state object; any other
state, even one of the same version, is drawn anew, and no caller's additions reach the memo."""

from __future__ import annotations

import dataclasses

import fakeredis

from application.games.views import ViewMemo
from domain import Options, fold, new_game, view
from service.app import create_app

STATE = fold(new_game(Options(2), b"memo"))


def test_the_same_state_object_is_drawn_once_per_seat(monkeypatch):
    drawn = []
    monkeypatch.setattr("application.games.views.view", lambda state, seat: drawn.append(seat) or view(state, seat))
    memo = ViewMemo()
    first = memo.view("g", STATE, 0)
    assert memo.view("g", STATE, 0) is first
    memo.view("g", STATE, 1)
    memo.view("g", STATE, None)
    assert drawn == [0, 1, None]


def test_another_state_of_the_same_version_is_drawn_anew():
    memo = ViewMemo()
    first = memo.view("g", STATE, 0)
    other = dataclasses.replace(STATE, quiet_turns=STATE.quiet_turns + 1)  # same version, another game
    assert other.version == STATE.version
    again = memo.view("g", other, 0)
    assert again is not first and again == view(other, 0)


def test_the_memo_keeps_at_most_its_size():
    memo = ViewMemo(size=2)
    for game in "abc":
        memo.view(game, STATE, 0)
    assert len(memo._drawn) == 2


def test_what_a_request_adds_to_a_view_stays_out_of_the_memo():
    app = create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "RATE_LIMIT": 0})
    client = app.test_client()
    created = client.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).get_json()
    game, token = created["game"], created["seats"][0]["token"]
    first = client.get(f"/games/{game}", headers={"Authorization": f"Bearer {token}"})
    second = client.get(f"/games/{game}", headers={"Authorization": f"Bearer {token}"})
    assert first.data == second.data and "deadline" in first.get_json()["turn"]
    (_, picture), *_ = app.extensions["bluemoon"].service.views._drawn.values()
    assert "game" not in picture and "deadline" not in picture["turn"]
