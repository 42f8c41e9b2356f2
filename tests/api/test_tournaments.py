"""Tournaments over the API (issue 41): made, listed and read by anyone with their entrants, rounds
and standings; joined, left and withdrawn from by the signed-in person alone; refused (changing
nothing) when full, started, joined twice, kept out by a block or by its rules, past the quota, with
a token without the play scope, or not signed in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from application.tournaments import tournaments as module
from tests.support.accounts import OWN, page_of
from tests.support.challenges import components
from tests.support.lobby import account_of, auth, people
from tests.support.tournaments import start_now


def _starts(minutes: int = 60) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _made(api, token: str, **body) -> dict:
    asked = {"name": "Cup", "kind": "swiss", "table_size": 2, "rounds": 2, "starts": _starts(), **body}
    answer = api.post("/tournaments", json=asked, headers=auth(token))
    assert answer.status_code == 201, answer.json
    assert answer.headers["Location"] == f"/tournaments/{answer.json['id']}"
    return answer.json


def _players(api, tournament: str) -> list[str]:
    return [e["player"] for e in api.get(f"/tournaments/{tournament}").json["entrants"]]


def test_a_tournament_is_made_listed_joined_left_and_read_by_anyone(api):
    kim, lou = people(api, "kim.tn", "lou.tn")
    made = _made(api, kim, rated=False, bot_levels=True, clock={"bank_seconds": 259200})
    assert made["status"] == "open" and made["format"] == {"kind": "swiss", "table_size": 2, "rounds": 2}
    assert made["bot_accounts"] is True, "an unrated one lets bot accounts in unless told"
    assert made["clock"] == {"bank_seconds": 259200, "increment_seconds": 0, "cap_seconds": 259200}
    joined = api.post(f"/tournaments/{made['id']}/join", headers=auth(lou))
    assert joined.status_code == 200 and joined.json["players"] == 1
    bot = api.post(f"/tournaments/{made['id']}/bots", json={"level": "greedy"}, headers=auth(kim))
    assert bot.status_code == 200 and bot.json["entrants"][1]["level"] == "greedy"
    listed = api.get("/tournaments?status=open").json["tournaments"]
    assert made["id"] in [t["id"] for t in listed]
    assert api.post(f"/tournaments/{made['id']}/leave", headers=auth(lou)).status_code == 200
    assert _players(api, made["id"]) == ["bot:greedy:1"]
    assert api.get("/tournaments/nope").status_code == 404


def test_nobody_joins_twice_a_full_or_started_one_or_where_an_entrant_blocks_them(api):
    kim, lou, max_, ned = people(api, "kim.j", "lou.j", "max.j", "ned.j")
    made = _made(api, kim, max_players=2)
    assert api.post(f"/tournaments/{made['id']}/join", headers=auth(lou)).status_code == 200
    twice = api.post(f"/tournaments/{made['id']}/join", headers=auth(lou))
    assert twice.status_code == 409 and twice.json["code"] == "already_entered"
    page_of(api, "lou.j@example.com").put(f"/me/blocks/{account_of(api, max_)}", headers=OWN)
    blocked = api.post(f"/tournaments/{made['id']}/join", headers=auth(max_))
    assert blocked.status_code == 403 and blocked.json["code"] == "not_allowed"
    assert "block" not in blocked.json["detail"], "never why"
    assert api.post(f"/tournaments/{made['id']}/join", headers=auth(ned)).status_code == 200
    full = api.post(f"/tournaments/{made['id']}/join", headers=auth(kim))
    assert full.status_code == 409 and full.json["code"] == "tournament_full"
    other = _made(api, kim)
    start_now(components(api), other["id"])
    components(api).rounds.advance(other["id"])  # cancelled: nobody joined
    late = api.post(f"/tournaments/{other['id']}/join", headers=auth(lou))
    assert late.status_code == 409 and late.json["code"] == "tournament_started"
    assert _players(api, made["id"]) == [account_of(api, lou), account_of(api, ned)]


def test_a_person_withdraws_only_themselves(api):
    kim, lou, max_ = people(api, "kim.w", "lou.w", "max.w")
    made = _made(api, kim, turn_deadline=86400)
    for token in (lou, max_):
        api.post(f"/tournaments/{made['id']}/join", headers=auth(token))
    start_now(components(api), made["id"])
    components(api).rounds.advance(made["id"])
    running = api.get(f"/tournaments/{made['id']}").json
    assert running["status"] == "running" and len(running["rounds"][0]["tables"]) == 1
    stranger = api.post(f"/tournaments/{made['id']}/withdraw", headers=auth(kim))
    assert stranger.status_code == 409 and stranger.json["code"] == "not_entered"
    leaving = api.post(f"/tournaments/{made['id']}/leave", headers=auth(lou))
    assert leaving.status_code == 409 and leaving.json["code"] == "tournament_started"
    assert not any(e["withdrawn"] for e in api.get(f"/tournaments/{made['id']}").json["entrants"])
    withdrawn = api.post(f"/tournaments/{made['id']}/withdraw", headers=auth(lou))
    assert withdrawn.status_code == 200
    assert [e["withdrawn"] for e in withdrawn.json["entrants"]] == [True, False]
    again = api.post(f"/tournaments/{made['id']}/withdraw", headers=auth(lou))
    assert again.status_code == 409 and again.json["code"] == "not_entered"


def test_only_its_maker_enters_the_services_bots_and_only_where_allowed(api):
    kim, lou = people(api, "kim.b", "lou.b")
    made = _made(api, kim)
    other = api.post(f"/tournaments/{made['id']}/bots", json={"level": "random"}, headers=auth(lou))
    assert other.status_code == 403
    kept = api.post(f"/tournaments/{made['id']}/bots", json={"level": "random"}, headers=auth(kim))
    assert kept.status_code == 409 and kept.json["code"] == "kept_out"
    assert _players(api, made["id"]) == []


def test_refusals_name_the_field_and_the_quota_answers_429_with_retry_after(api, monkeypatch):
    (kim,) = people(api, "kim.q")
    for body, field in (
        ({"kind": "round_robin"}, "rounds"),
        ({"table_size": 4, "min_players": 2}, "min_players"),
        ({"starts": _starts(-5)}, "starts"),
        ({"name": "Cup\u202e"}, "name"),
        ({"max_players": 4096}, "max_players"),
    ):
        asked = {"name": "Cup", "kind": "swiss", "table_size": 2, "rounds": 2, "starts": _starts(), **body}
        refused = api.post("/tournaments", json=asked, headers=auth(kim))
        assert refused.status_code == 422, (body, refused.json)
        assert field in (refused.json.get("field"), *refused.json.get("errors", {})), (body, refused.json)
    monkeypatch.setattr(module, "TOURNAMENTS_PER_ACCOUNT", 1)
    _made(api, kim)
    over = api.post(
        "/tournaments",
        json={"name": "More", "kind": "swiss", "table_size": 2, "rounds": 1, "starts": _starts()},
        headers=auth(kim),
    )
    assert over.status_code == 429 and over.json["code"] == "too_many_tournaments"
    assert 0 < int(over.headers["Retry-After"]) <= 3600
    assert len(api.get("/tournaments").json["tournaments"]) == 1


@pytest.mark.parametrize("path", ["/tournaments/{t}/join", "/tournaments/{t}/leave", "/tournaments/{t}/withdraw"])
def test_a_read_only_token_or_nobody_changes_nothing(api, path):
    (kim,) = people(api, "kim.s")
    made = _made(api, kim)
    page = page_of(api, "kim.s@example.com")
    reader = page.post("/me/tokens", json={"name": "reader", "scopes": ["read"]}, headers=OWN).json["token"]
    assert api.post(path.format(t=made["id"]), headers=auth(reader)).status_code == 403
    assert api.post(path.format(t=made["id"])).status_code == 401
    assert _players(api, made["id"]) == []
