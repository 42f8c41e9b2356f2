"""Conditional reads tell a poller what changed, and every way to be refused is documented:
a game view's ETag covers what the view shows beside its events (a vacation moves a deadline
without an event), the lobby's ETag covers open games that ran out of time, and an unknown or
revoked personal access token gets the documented 401 wherever one may be sent."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest

from application.lobby import open_games as tables
from tests.support.lobby import auth, open_game, people


def _clocked_game(api, ada: str, bo: str) -> tuple[str, str]:
    """A game of Ada's and Bo's with time banks; the game and who is to move."""
    clock = {"bank_seconds": 3600, "increment_seconds": 60}
    table = open_game(api, ada, clock=clock, rated=False)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    view = api.get(f"/games/{game}", headers=auth(ada)).json
    return game, ada if view["players"][view["turn"]["seat"]]["hand"] is not None else bo


def test_a_vacation_changes_the_views_etag_so_a_poll_hears_of_the_moved_deadline(api):
    ada, bo = people(api, "ada", "bo")
    game, mover = _clocked_game(api, ada, bo)
    seen = api.get(f"/games/{game}", headers=auth(ada))
    assert api.get(f"/games/{game}", headers={**auth(ada), "If-None-Match": seen.headers["ETag"]}).status_code == 304
    back = datetime.now(UTC) + timedelta(days=2)
    assert api.put("/me/vacation", json={"until": back.isoformat()}, headers=auth(mover)).status_code == 200
    polled = api.get(f"/games/{game}", headers={**auth(ada), "If-None-Match": seen.headers["ETag"]})
    assert polled.status_code == 200 and polled.json["version"] == seen.json["version"]  # no event, yet news
    assert polled.headers["ETag"] != seen.headers["ETag"] and polled.json["turn"] != seen.json["turn"]
    assert any(c["away_until"] for c in polled.json["clocks"])
    again = api.get(f"/games/{game}", headers={**auth(ada), "If-None-Match": polled.headers["ETag"]})
    assert again.status_code == 304 and again.headers["ETag"] == polled.headers["ETag"]
    # If-Match takes the view's ETag as its version
    end = api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn"},
        headers={**auth(mover), "If-Match": polled.headers["ETag"]},
    )
    assert end.status_code == 200 and end.json["version"] > seen.json["version"]


def test_a_lobby_poll_hears_of_an_open_game_that_ran_out_of_time(api):
    (ada,) = people(api, "ada")
    open_game(api, ada)
    listed = api.get("/open-games")
    assert len(listed.json["open_games"]) == 1
    later = time.time() + 8 * 86_400  # past the open game's seven days
    with mock.patch.object(tables.time, "time", lambda: later):
        polled = api.get("/open-games", headers={"If-None-Match": listed.headers["ETag"]})
    assert polled.status_code == 200 and polled.json["open_games"] == []


@pytest.mark.parametrize(
    "path",
    ["/games/{game}", "/games/{game}/events?after=0", "/games/{game}/versions/1", "/games/{game}/rematch"],
)
def test_an_unknown_personal_token_gets_the_documented_401(api, path):
    ada, bo = people(api, "ada", "bo")
    table = open_game(api, ada, rated=False)
    game = api.post(f"/open-games/{table['id']}/join", headers=auth(bo)).json["game"]
    refused = api.get(path.format(game=game), headers=auth("bmp_revoked-or-never-made"))  # checked against openapi.yaml
    assert refused.status_code == 401 and refused.json["code"] == "unauthorized"


def test_a_views_etag_is_its_viewers_and_a_view_is_private_to_its_caller(api):
    """Each seat sees its own hand: another seat, or a spectator, holding the first seat's ETag
    must not be told its view is unchanged, and no cache may keep a seat's view for others."""
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    game, tokens = created["game"], [s["token"] for s in created["seats"]]
    first = api.get(f"/games/{game}", token=tokens[0])
    assert first.headers["Cache-Control"] == "private" and {"Authorization", "Cookie"} <= set(first.vary)
    tags = {api.get(f"/games/{game}", token=t).headers["ETag"] for t in tokens} | {
        api.get(f"/games/{game}").headers["ETag"]
    }
    assert len(tags) == 3
    for token in (tokens[1], None):
        other = api.get(f"/games/{game}", token=token, headers={"If-None-Match": first.headers["ETag"]})
        assert other.status_code == 200 and other.json["players"][0]["hand"] is None


def test_listing_games_with_a_seat_token_that_is_no_seat_is_refused_not_answered_with_every_game(api):
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    refused = api.get("/games", headers=auth("mistyped-seat-token"))
    assert refused.status_code == 401 and "no seat token" in refused.json["detail"]
    mine = api.get("/games", headers=auth(f"{created['seats'][0]['token']},mistyped-seat-token")).json["games"]
    assert [g["game"] for g in mine] == [created["game"]] and mine[0]["my_seat"] == 0  # the known one counts
