"""A seat no one joined: its game ends with it open (the deadline's bot played it), no one may
take it after the end, and its rematch keeps it open with an invite the players can pass on."""

from __future__ import annotations

import json

from tests.support.accounts import personal_token
from workers.turn_jobs import play


def test_an_open_seat_is_closed_at_the_end_and_its_rematch_invite_goes_to_the_players(api):
    created = api.post(
        "/games",
        json={"seats": [{"kind": "human"}, {"kind": "open"}], "turn_deadline": 10, "deadline_level": "greedy"},
    ).json
    game, token, invite = created["game"], created["seats"][0]["token"], created["seats"][1]["invite"]
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:  # every turn the deadline's bot's
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    late = api.post(f"/games/{game}/seats/1/join", json={"invite": invite, "name": "Late"})
    assert late.status_code == 409 and late.json["code"] == "game_over"
    assert api.get(f"/games/{game}").json["seats"][1]["kind"] == "open"  # refused: nothing changed
    accepted = api.post(f"/games/{game}/rematch", token=token).json
    new = accepted["game"]
    assert new and accepted["waiting_for"] == [] and set(accepted["invites"]) == {"1"}
    assert api.get(f"/games/{game}/rematch", token=token).json["invites"] == accepted["invites"]
    joined = api.post(f"/games/{new}/seats/1/join", json={"invite": accepted["invites"]["1"], "name": "Cy"})
    assert joined.status_code == 201
    assert api.get(f"/games/{new}/legal", token=joined.json["token"]).status_code == 200


def test_a_stranger_reading_a_rematch_gets_no_invite_and_cannot_take_its_open_seat(api):
    """The attack of issue 34: game ids are public, so anyone could read the rematch's invites
    and take a stranger's seat. Only the old game's seats (a seat token, or the person holding
    the seat) see them."""
    ada = personal_token(api, "ada@example.com")
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}, token=ada).json
    game, token = created["game"], created["seats"][0]["token"]
    _play_to_the_end(api, game)
    accepted = api.post(f"/games/{game}/rematch", token=token).json
    new, invite = accepted["game"], accepted["invites"]["1"]
    assert api.get(f"/games/{game}/rematch", token=ada).json["invites"] == {"1": invite}  # her account's seat
    elsewhere = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json["seats"][0]["token"]
    mallory = personal_token(api, "mallory@example.com")
    anonymous = api.get(f"/games/{game}/rematch")
    assert anonymous.status_code == 200 and anonymous.json["invites"] == {} and anonymous.json["game"] == new
    assert api.get(f"/games/{game}/rematch", token=mallory).json["invites"] == {}  # signed in, holds no seat
    assert api.get(f"/games/{game}/rematch", token=elsewhere).status_code == 403  # another game's seat token
    seen = api.get(f"/games/{new}").json  # the new game itself shows no invite either
    assert "invite" not in json.dumps(seen["seats"])
    taken = api.post(f"/games/{new}/seats/1/join", json={"invite": "guessed", "name": "Mallory"}, token=mallory)
    assert taken.status_code == 403
    assert api.get(f"/games/{new}").json["seats"][1]["kind"] == "open"  # still free for whom Ada passes it to


def _play_to_the_end(api, game: str) -> None:
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:  # every turn the deadline's bot's
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
