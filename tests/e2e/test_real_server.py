"""The service started as the README says (`bluemoon`: gunicorn, an RQ worker and the embedded
Redis), played over real HTTP: create a game with a bot, play a turn, see the bot reply."""
from __future__ import annotations

import time

from tests.e2e.conftest import call


def test_the_readme_quick_start_over_real_http(server):
    status, created = call(server, "POST", "/games", {
        "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
        "setup": {"first_player": 0},
    })
    assert status == 201
    game, token = created["game"], created["seats"][0]["token"]
    status, legal = call(server, "GET", f"/games/{game}/legal", token=token)
    assert status == 200 and legal["commands"]
    end_turn = next(c for c in legal["commands"] if c["type"] == "end_turn")
    status, result = call(server, "POST", f"/games/{game}/commands", end_turn, token=token,
                          headers={"If-Match": f'"{legal["version"]}"', "Idempotency-Key": "first-turn"})
    assert status == 200 and result["view"]["turn"]["seat"] == 1
    # the bot answers from the background worker; wait for it through the long poll
    after = result["version"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, page = call(server, "GET", f"/games/{game}/events?after={after}&wait=5", token=token)
        assert status == 200
        after = page["next_after"]
        if any(e["type"] == "TurnStarted" and e["data"]["seat"] == 0 for e in page["events"]):
            break
    else:
        raise AssertionError("the bot did not reply")
    status, view = call(server, "GET", f"/games/{game}", token=token)
    assert view["turn"]["seat"] == 0 and view["turn"]["number"] == 3


def test_a_10000_character_game_id_gets_a_json_problem_from_the_real_server(server):
    status, body = call(server, "GET", "/games/" + "a" * 10_000)
    assert status == 414 and body["code"] == "uri_too_long"  # JSON, not gunicorn's HTML page
