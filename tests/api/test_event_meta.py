"""What the event log tells a client reconciling after a lost answer: each event names the command
that caused it, its seat and the version it was decided against, and a digest of the
Idempotency-Key it came with (never the key), all in the contract; and the view's ``status``
lists its values there. The test client checks every answer against openapi.yaml."""

from __future__ import annotations

import hashlib

from tests.support.games import TWO_HUMANS_SEAT_0_FIRST, game_and_tokens
from tests.support.scenarios import scenario_game


def test_each_event_names_its_command_seat_version_and_a_digest_of_the_key_it_came_with(api):
    game, tokens = game_and_tokens(api, TWO_HUMANS_SEAT_0_FIRST)
    start = api.get(f"/games/{game}", token=tokens[0]).json["version"]
    key = "ada-turn-1-end"
    sent = api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn"},
        token=tokens[0],
        headers={"If-Match": f'"{start}"', "Idempotency-Key": key},
    )
    assert sent.status_code == 200, sent.json
    unkeyed = api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn"},
        token=tokens[1],
        headers={"If-Match": f'"{sent.json["version"]}"'},
    )
    assert unkeyed.status_code == 200, unkeyed.json

    log = api.get(f"/games/{game}/events?after={start}", token=tokens[1]).json["events"]
    ada = [e["meta"] for e in log if e["seq"] <= sent.json["version"]]
    bo = [e["meta"] for e in log if e["seq"] > sent.json["version"]]
    assert ada and bo
    expected = {
        "command": {"type": "end_turn", "discards": []},
        "seat": 0,
        "version": start,
        "key_digest": hashlib.sha256(key.encode()).hexdigest()[:16],  # what Ada's client computes from its key
    }
    assert all(meta == expected for meta in ada), ada
    assert all(meta["seat"] == 1 and meta["version"] == sent.json["version"] for meta in bo)
    assert all("key_digest" not in meta for meta in bo)  # sent without a key: nothing to recognise it by
    assert key not in api.get(f"/games/{game}/log").get_data(as_text=True)  # the key itself is never shown
    assert [e["meta"] for e in sent.json["events"]] == ada  # the answer and the log agree


def test_the_contract_documents_event_meta_and_lists_the_views_status_values(api):
    schemas = api.http.get("/openapi.json").get_json()["components"]["schemas"]
    meta = schemas["EventMeta"]["properties"]
    assert {"command", "seat", "version", "key_digest", "reason", "level", "budget", "seed", "view"} <= set(meta)
    assert all(field.get("description") for field in meta.values())
    assert schemas["GameView"]["properties"]["status"]["enum"] == ["active", "finished"]

    game, tokens = scenario_game(
        api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[]
    )
    assert api.get(f"/games/{game}", token=tokens[0]).json["status"] == "active"
    legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")  # the sixth obelisk space: the game ends
    api.post(f"/games/{game}/commands", token=tokens[0], json=offer, headers={"If-Match": f'"{legal["version"]}"'})
    assert api.get(f"/games/{game}").json["status"] == "finished"  # checked against the enum by the client
