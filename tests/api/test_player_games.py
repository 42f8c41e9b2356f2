"""A player's games searched and exported (application/search/): games in Redis and archived
alike, others' games in play never shown, bad filters refused naming the field."""

from __future__ import annotations

import json

import fakeredis

from application.admin import game_ending
from application.background.handoff import CallbackHandoff
from cli.bluemoon_audit import main as audit_main
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.archive import moved
from tests.support.lobby import account_of, auth, people
from tests.support.scenarios import scenario_body
from workers.turn_jobs import play

#: Seat 0 can pay the last obelisk space at once: one offering ends the game, seat 0 winning.
WON_AT_ONCE = {
    "figures": ["courtyard", "courtyard"],
    "obelisk": [0, 0, 0, 0, 0],
    "crystals": [20, 0],
    "dragons": [],
    "markers": [],
}


def finished_against(api, token: str, opponent: str | None = None) -> str:
    """A game made by ``token``'s person at seat 0 (``opponent``, an account, at seat 1), ended by seat 0's win.
    A scenario's seats are all its maker's (no open seat to join), so seat 1 is given to the
    opponent's account as a join gives it."""
    made = api.post("/games", json=scenario_body(**WON_AT_ONCE), headers=auth(token)).json
    game, mine = made["game"], made["seats"][0]["token"]
    if opponent:
        api.app.extensions["bluemoon"].accounts.add_seat(opponent, game, 1)
    legal = api.get(f"/games/{game}/legal", token=mine).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    api.post(f"/games/{game}/commands", token=mine, json=offer, headers={"If-Match": f'"{legal["version"]}"'})
    assert api.get(f"/games/{game}").json["status"] == "finished"
    return game


def listed(api, player: str, token: str | None = None, **query) -> set[str]:
    answer = api.get(f"/players/{player}/games", query_string=query, headers=auth(token) if token else {})
    assert answer.status_code == 200, answer.json
    return {g["game"] for g in answer.json["games"]}


def test_a_players_games_filtered_alike_in_redis_and_in_the_archive(api):
    ada, bob, cy = people(api, "search-ada", "search-bob", "search-cy")
    ada_id, bob_id = account_of(api, ada), account_of(api, bob)
    against_bob = finished_against(api, ada, opponent=bob_id)
    alone = finished_against(api, ada)
    archived = finished_against(api, ada, opponent=bob_id)
    moved(api.app.extensions["bluemoon"], archived)
    in_play = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, headers=auth(ada)).json["game"]

    assert listed(api, ada_id, ada) == {in_play, archived, alone, against_bob}  # her own, in any state
    assert listed(api, ada_id) == {archived, alone, against_bob}  # anyone: the finished ones only
    assert listed(api, ada_id, cy, opponent=bob_id) == {archived, against_bob}
    assert listed(api, bob_id, opponent=ada_id, result="lost") == {archived, against_bob}
    assert listed(api, bob_id, result="won") == set()
    assert listed(api, ada_id, ada, status="active") == {in_play}
    assert listed(api, ada_id, players=2, edition="cmon") == {archived, alone, against_bob}
    assert listed(api, ada_id, players=3) == listed(api, ada_id, edition="classic") == set()
    assert listed(api, ada_id, ended_to="2000-01-01T00:00:00Z") == set()
    assert listed(api, ada_id, ended_from="2000-01-01T00:00:00") == {archived, alone, against_bob}
    first = api.get(f"/players/{ada_id}/games", query_string={"limit": 2}).json
    rest = api.get(f"/players/{ada_id}/games", query_string={"limit": 2, "after": first["next"]}).json
    whole = api.get(f"/players/{ada_id}/games").json["games"]  # newest first (creation ms, then id)
    assert first["games"] + rest["games"] == whole and len(whole) == 3
    assert rest["next"] is None and first["games"][0]["my_seat"] == 0


def ended_by(api, token: str, opponent: str, reason: str) -> str:
    """A game of ``token``'s person (seat 0) against ``opponent`` (seat 1), played to its end by the
    turn jobs: ``deadline`` as the clock plays a seat whose time ran out, ``admin`` as
    ``bluemoon-admin games end`` does."""
    components = api.app.extensions["bluemoon"]
    made = api.post("/games", json=scenario_body(**WON_AT_ONCE), headers=auth(token)).json
    game = made["game"]
    components.accounts.add_seat(opponent, game, 1)
    if reason == "admin":
        game_ending.end(components.service, game, play, "greedy")
    while not (state := components.service.state(game)).finished:
        play(components.service, game, state.turn.seat, state.turn.number, "greedy", reason)
    return game


def test_a_players_games_found_by_place_and_by_how_they_ended_in_redis_and_in_the_archive(api):
    ada, bob = people(api, "ending-ada", "ending-bob")
    ada_id, bob_id = account_of(api, ada), account_of(api, bob)
    played = finished_against(api, ada, opponent=bob_id)
    clock = ended_by(api, ada, bob_id, "deadline")
    admin = ended_by(api, ada, bob_id, "admin")
    moved(api.app.extensions["bluemoon"], clock)  # archived: found alike
    in_play = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, headers=auth(ada)).json

    assert listed(api, ada_id, ended="played") == {played}
    assert listed(api, ada_id, ended="clock") == {clock}
    assert listed(api, bob_id, ended="admin") == {admin}
    assert listed(api, ada_id, ada, ended="played", status="active") == set()
    summaries = {g["game"]: g for g in api.get(f"/players/{bob_id}/games").json["games"]}
    assert summaries[played]["places"] == [1, 2] and summaries[played]["ended"] == "played"
    for game in (clock, admin):
        assert sorted(summaries[game]["places"]) in ([1, 1], [1, 2])  # domain/standings.py's places
    for place in (1, 2):
        assert listed(api, bob_id, place=place) == {g for g, doc in summaries.items() if doc["places"][1] == place}
        assert listed(api, ada_id, place=place) == {g for g, doc in summaries.items() if doc["places"][0] == place}
    assert played in listed(api, ada_id, place=1) and played in listed(api, bob_id, place=2)
    assert listed(api, ada_id, place=3) == listed(api, ada_id, place=4) == set()
    assert api.get(f"/games/{in_play['game']}").json["status"] == "active"
    mine = {g["game"]: g for g in api.get(f"/players/{ada_id}/games", headers=auth(ada)).json["games"]}
    assert mine[in_play["game"]]["places"] is None and mine[in_play["game"]]["ended"] is None


def test_an_export_is_the_published_logs_and_bluemoon_audit_verifies_it(api, tmp_path, capsys):
    ada, bob = people(api, "export-ada", "export-bob")
    ada_id = account_of(api, ada)
    kept = finished_against(api, ada, opponent=account_of(api, bob))
    archived = finished_against(api, ada)
    moved(api.app.extensions["bluemoon"], archived)
    api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}, headers=auth(ada))  # in play

    for caller in (None, bob, ada):  # a stranger, an opponent, the player: never a game in play
        answer = api.get(f"/players/{ada_id}/games/export", headers=auth(caller) if caller else {})
        assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
        lines = answer.get_data().splitlines()
        assert {json.loads(line)["game"] for line in lines} == {archived, kept}
        for line in lines:
            assert json.loads(line) == api.get(f"/games/{json.loads(line)['game']}/log").json
    exported = tmp_path / "games.ndjson"
    exported.write_bytes(answer.get_data())
    assert audit_main([str(exported)]) == 0
    assert capsys.readouterr().out.endswith("\nverified\n2 of 2 games verified\n")
    first = api.get(f"/players/{ada_id}/games/export", query_string={"limit": 1})
    assert first.headers["Link"].endswith('>; rel="next"') and "limit=1" in first.headers["Link"]
    cursor = first.headers["Link"].split("after=")[1].split(">")[0]
    rest = api.get(f"/players/{ada_id}/games/export", query_string={"limit": 1, "after": cursor.replace("%3A", ":")})
    assert json.loads(rest.get_data())["game"] == json.loads(lines[1])["game"] and "Link" not in rest.headers

    tampered = json.loads(lines[0])
    tampered["seed"] = "0" * len(tampered["seed"])
    exported.write_bytes(lines[1] + b"\n" + json.dumps(tampered).encode() + b"\n")
    assert audit_main([str(exported)]) == 1


def test_bad_filters_are_refused_naming_them(api):
    ada, bob = people(api, "filters-ada", "filters-bob")
    ada_id = account_of(api, ada)
    for field, value in [
        ("players", "5"),
        ("edition", "deluxe"),
        ("result", "draw"),
        ("place", "5"),
        ("place", "0"),
        ("ended", "resigned"),
        ("ended_from", "yesterday"),
        ("opponent", "nobody-at-all"),
        ("status", "active"),  # another's games in play
        ("limit", "0"),
        ("after", "not-a-cursor"),
    ]:
        for path in ("games", "games/export"):
            answer = api.get(f"/players/{ada_id}/{path}", query_string={field: value}, headers=auth(bob))
            assert answer.status_code == 422, (field, answer.json)
            assert field in json.dumps(answer.json), (field, answer.json)
    assert api.get(f"/players/{ada_id}/games/export", query_string={"limit": 1001}).status_code == 422
    assert api.get("/players/nobody-at-all/games").status_code == 404


def test_an_address_exports_at_most_its_quota_an_hour():
    """The export quota (QUOTA_EXPORTS_PER_ADDRESS), from the abuser's side: past it a 429 naming it."""
    loose = {"RATE_LIMIT_WRITES": "1000 per minute", "RATE_LIMIT_READS": "1000 per minute"}
    api = CheckedClient(
        create_app(
            {"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(lambda t: None), **loose}
            | {"QUOTA_EXPORTS_PER_ADDRESS": "2 per hour"}
        )
    )
    (ada,) = people(api, "quota-ada")
    ada_id = account_of(api, ada)
    finished_against(api, ada)
    answers = [api.get(f"/players/{ada_id}/games/export") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    refused = answers[-1].json
    assert refused["code"] == "too_many_exports" and refused["limit"] == "QUOTA_EXPORTS_PER_ADDRESS"
    assert 3500 < int(answers[-1].headers["Retry-After"]) <= 3600
    assert api.get(f"/players/{ada_id}/games/export", environ_base={"REMOTE_ADDR": "203.0.113.9"}).status_code == 200
