"""What a deleted account leaves behind: nothing that breaks what others read. A rated game it
sat in is rated for the others without bringing it back onto the leaderboard, and a device
code it approved signs no one in."""

from __future__ import annotations

from domain.state import EndReason
from events import keys
from tests.support.accounts import OWN, page_of
from tests.support.lobby import account_of, auth, finished_as, open_game, people


def test_a_rated_game_that_ends_after_a_player_deleted_their_account_leaves_the_leaderboard_readable(api):
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    gone, stays = account_of(api, ada), account_of(api, bo)
    components = api.app.extensions["bluemoon"]
    seats = components.service.seats(game)  # as the rating job reads them
    assert page_of(api, "ada@example.com").delete("/me", headers=OWN).status_code == 204  # only a session may
    state = finished_as(api, game, EndReason.OFFERINGS, (1,), [(3, 9), (6, 2)])
    recorded = components.ratings.rate_game(game, state, seats)
    assert {s["player"] for s in recorded["seats"]} == {gone, stays}  # the game's record keeps both
    board = api.get("/leaderboard")
    assert board.status_code == 200, board.json
    assert [p["player"] for p in board.json["players"]] == [stays]
    assert not components.client.exists(keys.rating(gone), keys.rating_history(gone))
    assert api.get(f"/players/{gone}/rating").status_code == 404


def test_a_leaderboard_entry_whose_account_is_gone_is_dropped_not_answered_with_404(api):
    components = api.app.extensions["bluemoon"]
    components.client.zadd(keys.LEADERBOARD, {"0" * 32: 99.0})  # deleted while its game was rated
    board = api.get("/leaderboard")
    assert board.status_code == 200 and board.json["players"] == []
    assert components.client.zscore(keys.LEADERBOARD, "0" * 32) is None


def test_a_device_code_shown_before_its_account_was_deleted_is_refused_as_documented(api):
    ada = page_of(api, "ada@example.com")
    code = ada.post("/me/device-code", headers=OWN).json["code"]
    assert ada.delete("/me", headers=OWN).status_code == 204
    used = api.post("/auth/device-code", json={"code": code})
    assert used.status_code == 401 and used.json["code"] == "sign_in_refused", used.json
    assert "deleted" in used.json["detail"] and "Set-Cookie" not in used.headers
