"""Keeping seats in an account (POST /me/seats): an account keeps one seat a game, so a second
seat of a game is answered as kept elsewhere, neither claimed nor counted as unmatched."""

from __future__ import annotations

from events import keys
from tests.support.accounts import OWN, personal_token


def test_two_seats_of_one_game_claim_the_first_and_name_the_second(api):
    ada = personal_token(api, "ada@example.com")
    made = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    game, (first, second) = made["game"], [s["token"] for s in made["seats"]]
    account = api.get("/me", token=ada).json["account"]
    answer = api.post(
        "/me/seats", json={"tokens": [first, second, "made-up"], "account": account}, token=ada, headers=OWN
    ).json
    assert answer == {
        "claimed": [{"game": game, "seat": 0}],
        "unmatched": 1,
        "kept_elsewhere": [{"game": game, "seat": 1}],
    }
    again = api.post("/me/seats", json={"tokens": [second], "account": account}, token=ada, headers=OWN).json
    assert again["claimed"] == [] and again["kept_elsewhere"] == [{"game": game, "seat": 1}]
    holders = api.app.extensions["bluemoon"].client.hgetall(keys.seat_accounts(game))
    assert list(holders) == [b"0"]  # the game's alerts know one seat of hers
    assert api.get(f"/games/{game}", token=second).status_code == 200  # the token still plays its seat
