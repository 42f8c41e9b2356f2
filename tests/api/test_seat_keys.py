"""An Idempotency-Key is the sending seat's: another seat's command under the same key is its
own command, judged on its own, and each seat's retry still answers its own original."""

from __future__ import annotations

from domain.commands import EndTurn
from domain.decide import decide_and_apply


def _end_turn(api, game: str, token: str, version: int, key: str):
    return api.post(
        f"/games/{game}/commands",
        token=token,
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": f'"{version}"', "Idempotency-Key": key},
    )


def test_a_key_one_seat_used_names_nothing_for_the_other_and_each_retry_answers_its_own(api):
    made = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}).json
    game, tokens = made["game"], [s["token"] for s in made["seats"]]
    start = api.get(f"/games/{game}").json["version"]
    first = _end_turn(api, game, tokens[0], start, "same")
    assert first.status_code == 200 and not first.json["duplicate"]
    second = _end_turn(api, game, tokens[1], first.json["version"], "same")
    assert second.status_code == 200, second.json
    assert not second.json["duplicate"] and second.json["version"] > first.json["version"]
    assert second.json["events"][0]["actor"] == "1"
    for seat, original, played_against in ((0, first, start), (1, second, first.json["version"])):
        again = _end_turn(api, game, tokens[seat], played_against, "same")
        assert again.status_code == 200 and again.json["duplicate"]
        assert again.json["events"] == original.json["events"]
    assert api.get(f"/games/{game}").json["version"] == second.json["version"]


def test_a_seat_reusing_its_own_key_for_another_command_is_still_refused_by_the_header(api):
    made = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}).json
    game, token = made["game"], made["seats"][0]["token"]
    version = api.get(f"/games/{game}").json["version"]
    assert _end_turn(api, game, token, version, "mine").status_code == 200
    reused = api.post(
        f"/games/{game}/commands",
        token=token,
        json={"type": "move", "to": "fire_temple"},
        headers={"If-Match": f'"{version}"', "Idempotency-Key": "mine"},
    )
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"
    assert "Idempotency-Key" in reused.json["detail"]


def test_an_opponent_sending_the_bots_next_key_as_theirs_leaves_the_bot_its_turn(api):
    """The reviewer's attack, with the bot's turn played in this process (a real worker does it
    in tests/integration/test_turn_keys.py)."""
    made = api.post(
        "/games",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}], "setup": {"first_player": 0}},
    ).json
    game, token = made["game"], made["seats"][0]["token"]
    service = api.app.extensions["bluemoon"].service
    _, after = decide_and_apply(service.state(game), EndTurn(0))
    played = _end_turn(api, game, token, made["version"], f"bot:{game}:{after.version}:1")
    assert played.status_code == 200 and played.json["version"] == after.version
    assert api.run_workers() == 1
    view = api.get(f"/games/{game}", token=token).json
    assert view["turn"] == {**view["turn"], "seat": 0, "number": 3}
    assert [
        e["actor"] for e in api.get(f"/games/{game}/events", token=token).json["events"] if e["type"] == "TurnEnded"
    ] == [
        "0",
        "bot:greedy",
    ]
