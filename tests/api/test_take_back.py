"""A take-back (P17) over HTTP: listed by /legal when allowed, applied once, seen by the
other seats, refused with a problem when nothing can be taken back."""

from __future__ import annotations

import random

from application.games.log_audit import audit_log
from tests.api.client import pick
from tests.support.games import play_to_the_end


def _two_humans(api):
    created = api.post(
        "/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    ).json
    return created["game"], created["seats"][0]["token"], created["seats"][1]["token"]


def _post(api, game, token, command, version):
    return api.post(f"/games/{game}/commands", token=token, json=command, headers={"If-Match": f'"{version}"'})


def test_a_step_taken_back_is_undone_for_everyone_and_cannot_be_taken_back_twice(api):
    game, mine, theirs = _two_humans(api)
    before = api.get(f"/games/{game}", token=mine).json
    legal = api.get(f"/games/{game}/legal", token=mine).json
    assert {"type": "take_back"} not in legal["commands"]  # nothing done yet
    move = next(c for c in legal["commands"] if c["type"] == "move")
    assert _post(api, game, mine, move, legal["version"]).status_code == 200

    legal = api.get(f"/games/{game}/legal", token=mine).json
    assert {"type": "take_back"} in legal["commands"]
    taken = _post(api, game, mine, {"type": "take_back"}, legal["version"])
    assert taken.status_code == 200 and taken.json["version"] == legal["version"] + 1

    after = api.get(f"/games/{game}", token=mine).json
    assert after["players"][0]["position"] == before["players"][0]["position"]
    assert after["turn"] == before["turn"] and after["players"][0]["hand"] == before["players"][0]["hand"]
    seen = api.get(f"/games/{game}/events?after={before['version']}", token=theirs).json["events"]
    assert [e["type"] for e in seen] == ["FigureMoved", "TurnTakenBack"]
    assert seen[-1]["data"] == {"seat": 0, "to": before["version"]}

    again = _post(api, game, mine, {"type": "take_back"}, taken.json["version"])
    assert again.status_code == 409 and again.json["code"] == "nothing_to_take_back"
    stale = _post(api, game, mine, move, legal["version"])  # the version the take-back replaced
    assert stale.status_code == 412
    assert api.get(f"/games/{game}", token=mine).json["version"] == taken.json["version"]  # nothing changed


def test_the_other_seat_cannot_take_back_and_a_drawn_card_closes_the_turn(api):
    game, mine, theirs = _two_humans(api)
    legal = api.get(f"/games/{game}/legal", token=mine).json
    move = next(c for c in legal["commands"] if c["type"] == "move")
    version = _post(api, game, mine, move, legal["version"]).json["version"]
    other = _post(api, game, theirs, {"type": "take_back"}, version)
    assert other.status_code == 409 and other.json["code"] == "not_your_turn"
    version = _post(api, game, mine, {"type": "end_turn"}, version).json["version"]  # the Reset draws
    assert {"type": "take_back"} not in api.get(f"/games/{game}/legal", token=theirs).json["commands"]
    refused = _post(api, game, mine, {"type": "take_back"}, version)
    assert refused.status_code == 409 and refused.json["code"] == "not_your_turn"


def test_a_whole_game_with_a_take_back_in_many_turns_is_audited_as_verified(api):
    """Slow-ish (a whole game, about 2 s): the audit judges every take-back again."""
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]}).json
    game = created["game"]
    taken_in: set[int] = set()

    def once_a_turn(commands, rnd, state):
        turn = state["turn"]["number"]
        if {"type": "take_back"} in commands and turn not in taken_in:
            taken_in.add(turn)
            return {"type": "take_back"}
        return pick([c for c in commands if c["type"] != "take_back"], rnd)

    play_to_the_end(api, game, {0: created["seats"][0]["token"]}, random.Random(5), once_a_turn)
    log = api.get(f"/games/{game}/log").json
    assert sum(e["type"] == "TurnTakenBack" for e in log["events"]) == len(taken_in) > 5
    result = audit_log(log)
    assert result["verified"], [c for c in result["checks"] if not c["ok"]]
    assert api.get(f"/games/{game}/audit").json["verified"]


def test_a_turn_is_taken_back_at_most_three_times_then_stands_as_played(api):
    from domain.decide import TAKE_BACKS_PER_TURN

    game, mine, _ = _two_humans(api)
    version = api.get(f"/games/{game}", token=mine).json["version"]
    for _ in range(TAKE_BACKS_PER_TURN):
        legal = api.get(f"/games/{game}/legal", token=mine).json
        move = next(c for c in legal["commands"] if c["type"] == "move")
        version = _post(api, game, mine, move, version).json["version"]
        version = _post(api, game, mine, {"type": "take_back"}, version).json["version"]
    legal = api.get(f"/games/{game}/legal", token=mine).json
    move = next(c for c in legal["commands"] if c["type"] == "move")
    version = _post(api, game, mine, move, version).json["version"]
    assert {"type": "take_back"} not in api.get(f"/games/{game}/legal", token=mine).json["commands"]
    refused = _post(api, game, mine, {"type": "take_back"}, version)
    assert refused.status_code == 409 and refused.json["code"] == "take_back_limit"
    assert "TAKE_BACKS_PER_TURN" in refused.json["detail"] and str(TAKE_BACKS_PER_TURN) in refused.json["detail"]
    assert api.get(f"/games/{game}", token=mine).json["version"] == version  # nothing changed
    ended = _post(api, game, mine, {"type": "end_turn"}, version)  # the next turn has its own take-backs
    assert ended.status_code == 200 and api.get(f"/games/{game}", token=mine).json["turn"]["seat"] == 1


def test_a_game_created_under_older_rules_plays_on_without_the_limit():
    """Its audit judges it by its own rules (GameCreated.rules): the limit must not refuse there."""
    from dataclasses import replace

    from domain import Options, commands, fold, new_game
    from domain.decide import TAKE_BACKS_PER_TURN, decide_and_apply
    from domain.legal import legal_commands

    events = new_game(Options(2), b"older rules", first_player=0)
    for rules, allowed in ((2, True), (3, False)):
        state = fold([replace(events[0], rules=rules), *events[1:]])
        for _ in range(TAKE_BACKS_PER_TURN):
            move = next(c for c in legal_commands(state, 0) if isinstance(c, commands.Move))
            state = decide_and_apply(decide_and_apply(state, move)[1], commands.TakeBack(0))[1]
        move = next(c for c in legal_commands(state, 0) if isinstance(c, commands.Move))
        state = decide_and_apply(state, move)[1]
        assert (commands.TakeBack(0) in legal_commands(state, 0, take_back=True)) is allowed, rules
