"""Fair for whoever joins (issue 34 item 1, ruling P9): a grid, a deck, a first player or a
scenario given instead of drawn is taken only when every human seat is the creator's at
creation (no open seat); such a game says so in every view and is never rated."""

from __future__ import annotations

import pytest

from domain import Options, fold, new_game
from domain.peoples import CANONICAL_DECK
from tests.support.accounts import personal_token
from workers.turn_jobs import play

GRID = [{"tile": t, "row": r, "col": c} for t, (r, c) in fold(new_game(Options(2), b"grid")).city.placement.items()]
POSITION = {  # three seats'
    "hands": [["black-1a"], ["black-1b"], ["black-1c"]],
    "figures": ["courtyard"] * 3,
    "crystals": [0] * 3,
    "scales": [0] * 3,
}
GIVEN = {  # the field named, and the body that gives it
    "setup.deck": {"setup": {"deck": list(reversed(CANONICAL_DECK))}},
    "setup.first_player": {"setup": {"first_player": 0}},
    "setup.grid": {"layout": "explicit", "setup": {"grid": GRID}},
    "scenario": {"scenario": POSITION},
}
HOLDER = {"setup.deck": "deck", "setup.first_player": "first_player", "setup.grid": "grid", "scenario": "scenario"}


@pytest.mark.parametrize("field", sorted(GIVEN))
def test_a_given_setup_beside_an_open_seat_is_refused_by_name_and_makes_no_game(api, field):
    before = api.get("/games").json["games"]
    body = {"seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "bot"}], **GIVEN[field]}
    refused = api.post("/games", json=body)
    assert refused.status_code == 422, refused.json
    assert refused.json["code"] == "given_setup_needs_own_seats" and refused.json["field"] == field
    assert field in refused.json["errors"] and "seat 1" in refused.json["detail"]
    assert api.get("/games").json["games"] == before


@pytest.mark.parametrize("field", sorted(GIVEN))
def test_a_given_setup_among_the_creators_own_seats_is_taken_and_every_view_says_what_was_given(api, field):
    ada = personal_token(api, "ada@example.com")  # signed in: her first seat is filed in her account
    body = {"seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}], **GIVEN[field]}
    made = api.post("/games", json=body, token=ada)
    assert made.status_code == 201, made.json
    game, tokens = made.json["game"], [s["token"] for s in made.json["seats"][:2]]
    for token in (*tokens, None):
        view = api.get(f"/games/{game}", token=token).json
        assert HOLDER[field] in view["given"] and view["settings"]["rated"] is False
    drawn = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "open"}]}).json["game"]
    assert api.get(f"/games/{drawn}").json["given"] == []


def test_a_given_setup_is_never_rated():
    from application.games.fair_setup import GivenSetupNeedsOwnSeats, refuse_unfair_setup
    from application.games.game_service import SeatSpec

    seats = [SeatSpec("human", None, None), SeatSpec("human", None, None)]
    refuse_unfair_setup(seats, rated=False, deck=list(CANONICAL_DECK))  # the creator's own seats: taken
    with pytest.raises(GivenSetupNeedsOwnSeats) as refused:
        refuse_unfair_setup(seats, rated=True, deck=list(CANONICAL_DECK))
    assert refused.value.extra["field"] == "rated"


def test_an_open_game_takes_no_setup_at_all(api):
    ada = personal_token(api, "ada@example.com")
    for field, body in GIVEN.items():
        refused = api.post("/open-games", json={"players": 2, **body}, token=ada)
        assert refused.status_code == 422 and field.split(".")[0] in refused.json["errors"], refused.json
    assert api.get("/open-games").json["open_games"] == []


def test_a_rematch_of_a_game_with_a_given_setup_draws_its_own(api):
    made = api.post("/games", json={"seats": [{"kind": "human"}] * 2, **GIVEN["setup.deck"]}).json
    game, tokens = made["game"], [s["token"] for s in made["seats"]]
    service = api.app.extensions["bluemoon"].service
    while not service.state(game).finished:
        state = service.state(game)
        play(service, game, state.turn.seat, state.turn.number, "greedy", "deadline")
    api.post(f"/games/{game}/rematch", token=tokens[0])
    again = api.post(f"/games/{game}/rematch", token=tokens[1]).json
    assert api.get(f"/games/{game}").json["given"] == ["deck"]
    assert api.get(f"/games/{again['game']}", token=again["token"]).json["given"] == []
