"""Whole games over HTTP, every response checked against openapi.yaml."""

from __future__ import annotations

import random

import pytest

from tests.support.games import play_to_the_end


@pytest.mark.slow
@pytest.mark.parametrize(
    "seats",
    [
        [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}],
        [{"kind": "human", "name": "Bo"}, {"kind": "open"}, {"kind": "bot", "level": "greedy"}],
        [
            {"kind": "open"},
            {"kind": "bot", "level": "greedy"},
            {"kind": "bot", "level": "random"},
            {"kind": "human", "name": "Dee"},
        ],
    ],
    ids=["2-seats", "3-seats", "4-seats"],
)
def test_a_whole_game_over_http(api_real, seats):
    """Slow: a whole game through the API on the real Redis, bots included."""
    api = api_real
    created = api.post("/games", json={"seats": seats, "edition": "cmon"})
    assert created.status_code == 201
    game = created.json["game"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"] if "token" in s}
    for s in created.json["seats"]:
        if s["kind"] == "open":
            joined = api.post(s["invite_url"], json={"invite": s["invite"], "name": "Ünïcødé 名前"})
            assert joined.status_code == 201
            tokens[s["seat"]] = joined.json["token"]
    final = play_to_the_end(api, game, tokens, random.Random(len(seats)))
    # any ending the rules know: random play sometimes stalls for ten rounds (P16, about 1 game in 75)
    assert final["result"]["reason"] in ("offerings", "rebuilt", "draw", "stalemate")
    assert final["seed"] and all(p["hand"] is not None for p in final["players"])
    audit = api.get(f"/games/{game}/audit").json
    assert audit["verified"], audit
    log = api.get(f"/games/{game}/log").json
    assert log["events"][-1]["type"] == "GameEnded" and log["seed"] == final["seed"]
    # after the end every feed hides nothing, as the spec says, and agrees with the log
    feed = api.get(f"/games/{game}/events?after=0").json["events"]
    assert feed[: len(log["events"][:200])] == log["events"][:200]
    assert feed[0]["data"]["seed"] == final["seed"] and all(
        e["data"]["cards"] is not None for e in feed if e["type"] == "CardsDealt"
    )
    api.app.config["SSE_SECONDS"] = 0.2
    streamed = api.get(f"/games/{game}/stream", headers={"Last-Event-ID": "0"}).get_data(as_text=True)
    assert final["seed"] in streamed.split("\n\n")[1]  # the first event, GameCreated, with its seed
    assert api.checked > 50
