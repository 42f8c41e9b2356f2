"""A vacation as a span (application/games/vacations.py): asked for again while away, it moves the
end of the same span and is charged its days once; refused, it changes nothing; ended early in
a new year, it gives the days back to the year that paid for them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest import mock

import application.games.vacations as vacations
from application.background.turns import TurnTicket, job_arguments
from tests.support.accounts import personal_token
from workers.turn_jobs import play


def _days_from_now(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def _game_with_deadline(api, ada: str, bo: str) -> tuple[str, str]:
    """A two-person game with a turn deadline of an hour; the game and who is to move."""
    table = api.post("/open-games", json={"players": 2, "turn_deadline": 3600, "rated": False}, token=ada).json["id"]
    game = api.post(f"/open-games/{table}/join", token=bo).json["game"]
    seat = api.get(f"/games/{game}", token=ada).json["turn"]["seat"]
    mine = api.get(f"/games/{game}", token=ada).json["players"][seat]["hand"] is not None
    return game, ada if mine else bo


def _shown(api, game: str, token: str) -> tuple:
    view = api.get(f"/games/{game}", token=token).json
    return view["turn"]["deadline"], [c["away_until"] for c in view["clocks"]]


def test_asking_for_the_same_vacation_again_charges_its_days_once(api):
    ada = personal_token(api, "ada@example.com")
    until = _days_from_now(2)
    answers = [api.put("/me/vacation", json={"until": until}, token=ada).json for _ in range(3)]
    assert [a["days_left"] for a in answers] == [12, 12, 12]  # today and tomorrow, once
    longer = api.put("/me/vacation", json={"until": _days_from_now(3.9)}, token=ada).json
    shorter = api.put("/me/vacation", json={"until": _days_from_now(0.5)}, token=ada).json
    assert longer["days_left"] == 10 and shorter["days_left"] == 13  # the same span, moved


def test_a_refused_vacation_leaves_the_one_under_way_and_every_deadline_as_they_were(api):
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    game, mover = _game_with_deadline(api, ada, bo)
    away = api.put("/me/vacation", json={"until": _days_from_now(3)}, token=mover).json
    before = _shown(api, game, mover)
    refused = api.put("/me/vacation", json={"until": _days_from_now(30)}, token=mover)
    assert refused.status_code == 422 and refused.json["code"] == "vacation_refused"
    assert "until" in refused.json["errors"]
    assert api.get("/me/vacation", token=mover).json == away
    assert _shown(api, game, mover) == before


def test_days_given_back_in_a_new_year_go_back_to_the_year_that_paid_them(api):
    ada = personal_token(api, "ada@example.com")

    def at(moment: str):  # the service's clock at ``moment``
        ms = int(datetime.fromisoformat(moment).timestamp() * 1000)
        return mock.patch.object(vacations, "now_ms", lambda: ms)

    with at("2026-12-30T12:00:00+00:00"):
        away = api.put("/me/vacation", json={"until": "2027-01-10T12:00:00Z"}, token=ada).json
        assert away["days_left"] == 3  # 11 days out of 2026's 14
    with at("2027-01-02T12:00:00+00:00"):
        back = api.delete("/me/vacation", token=ada).json
        assert back["days_left"] == 14 and back["days_per_year"] == 14  # 2027 paid nothing
    with at("2026-12-31T12:00:00+00:00"):
        assert api.get("/me/vacation", token=ada).json["days_left"] == 11  # 2026 paid the 3 days taken


def test_a_deadline_job_claimed_before_a_vacation_moved_its_deadline_plays_nothing(api):
    """The deadline passed and its job was handed on; the person asks for a vacation (answered
    200) before the job starts: the job finds its ticket replaced and leaves the turn. Checked
    to fail when the job plays whatever its ticket says."""
    ada, bo = personal_token(api, "ada@example.com"), personal_token(api, "bo@example.com")
    game, mover = _game_with_deadline(api, ada, bo)
    service = api.app.extensions["bluemoon"].service
    claimed, _ = service.store.outbox_entry(game)
    ticket = TurnTicket.from_payload(claimed)
    assert api.put("/me/vacation", json={"until": _days_from_now(2)}, token=mover).status_code == 200
    assert service.store.outbox_entry(game)[0] != claimed  # its deadline moved
    version = service.store.version(game)
    args, kwargs = job_arguments(ticket)
    assert play(service, *args, **{**kwargs, "payload": claimed}) == "moved"
    assert service.store.version(game) == version
