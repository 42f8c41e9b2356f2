"""A seat no one joined: its game ends with it open (the deadline's bot played it), no one may
take it after the end, and its rematch keeps it open with an invite the players can pass on."""

from __future__ import annotations

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
