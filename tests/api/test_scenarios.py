"""Scenario games (P15): a game started from a given position in one request, marked as a
scenario in the view, the index and the audit, and played on under the ordinary rules."""

from __future__ import annotations

from application.games.log_audit import audit_log
from tests.support.scenarios import BUILDING, paying, scenario_body, scenario_game


def test_a_scenario_starts_at_its_position_and_is_marked_in_the_view_and_the_index(api):
    game, tokens = scenario_game(api)
    mine = api.get(f"/games/{game}", token=tokens[0]).json
    assert mine["scenario"] is True and mine["turn"]["seat"] == 0
    me, other = mine["players"]
    assert me["position"] == BUILDING and sorted(me["hand"]) == sorted(paying(BUILDING))
    assert (me["crystals"], me["scales"], me["markers"]) == (4, 3, 10)
    assert (other["scales"], other["markers"], other["offerings"]) == (1, 8, 1)  # a marker out, one on the obelisk
    assert mine["scale_supply"] == 1 and mine["dragons"]["red"] == BUILDING
    hospital = next(t for t in mine["city"] if t["tile"] == "hospice")
    assert hospital["spaces"][0]["marker"] == 1
    listed = {g["game"]: g for g in api.get("/games").json["games"]}
    assert listed[game]["scenario"] is True
    plain = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json["game"]
    assert api.get(f"/games/{plain}").json["scenario"] is False
    assert {g["game"]: g for g in api.get("/games").json["games"]}[plain]["scenario"] is False


def test_a_scenario_hides_what_the_rules_hide(api):
    game, tokens = scenario_game(api)
    theirs = api.get(f"/games/{game}", token=tokens[1]).json["players"][0]
    assert theirs["hand"] is None and theirs["crystals"] is None
    for token, seen in ((tokens[1], [[0, None], [1, 9]]), (None, [[0, None], [1, None]])):
        events = api.get(f"/games/{game}/events", token=token).json["events"]
        placed = next(e for e in events if e["type"] == "PositionSet")
        assert placed["data"]["crystals"] == seen
        assert all(e["data"]["cards"] is None for e in events if e["type"] == "CardsDealt" and e["data"]["seat"] == 0)


def test_golden_scales_are_scored_when_a_scenario_contribution_empties_the_supply(api):
    """A dragon on the building pays the first contribution 1 scale: the supply of 1 empties,
    and the scales are scored (R8): seat 0 has most, 3 + 1, so gets 6 crystals and returns them."""
    game, tokens = scenario_game(api)
    legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
    pay = next(c for c in legal["commands"] if c["type"] == "contribute" and c["building"] == BUILDING)
    played = api.post(
        f"/games/{game}/commands", token=tokens[0], json=pay, headers={"If-Match": f'"{legal["version"]}"'}
    ).json
    types = [e["type"] for e in played["events"]]
    assert "ScalesScored" in types and types.index("Rewarded") < types.index("ScalesScored")
    scored = next(e for e in played["events"] if e["type"] == "ScalesScored")
    assert scored["data"]["returned"] == [0] and dict(scored["data"]["crystals"])[0] == 6
    me = played["view"]["players"][0]
    assert me["scales"] == 0 and me["crystals"] == 4 + 6
    assert played["view"]["players"][1]["scales"] == 1  # fewer than 3: kept


def test_a_finished_scenario_is_audited_as_a_scenario_and_a_changed_position_is_caught(api):
    """Seat 0 holds 5 of the 6 obelisk spaces a 2-player game needs and can afford the sixth.
    The audit judges every command from the position; a position changed so that a recorded
    command no longer follows the rules fails it."""
    game, tokens = scenario_game(
        api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[]
    )
    legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    api.post(f"/games/{game}/commands", token=tokens[0], json=offer, headers={"If-Match": f'"{legal["version"]}"'})
    assert api.get(f"/games/{game}").json["status"] == "finished"
    audit = api.get(f"/games/{game}/audit").json
    assert audit["verified"] is True and audit["setup"].startswith("scenario"), audit
    log = api.get(f"/games/{game}/log").json
    placed = next(e for e in log["events"] if e["type"] == "PositionSet")
    placed["data"]["crystals"] = [[0, 3], [1, 0]]  # too poor for the offering that was made
    tampered = audit_log(log)
    assert tampered["verified"] is False
    assert any(c["name"] == "rejudged" and not c["ok"] for c in tampered["checks"])


def test_an_impossible_scenario_is_refused_naming_it_and_creates_nothing(api):
    before = len(api.get("/games").json["games"])
    twice = api.post("/games", json=scenario_body(hands=[["red-1a"], ["red-1a"]]))
    assert twice.status_code == 422 and "once" in twice.json["errors"]["scenario"][0]
    short = api.post("/games", json=scenario_body(crystals=[1, 2, 3]))
    assert short.status_code == 422 and "one entry per seat" in short.json["errors"]["scenario"][0]
    assert len(api.get("/games").json["games"]) == before


def test_a_scenario_states_rebuilt_buildings_as_a_late_game_has_them(api):
    """Issue 24's late-game position: rebuilt tiles bare, every marker in its owner's supply."""
    game, tokens = scenario_game(api, rebuilt=["mill", "hospice"], markers=[])
    view = api.get(f"/games/{game}", token=tokens[0]).json
    tiles = {t["tile"]: t for t in view["city"]}
    for rebuilt in ("mill", "hospice"):
        assert tiles[rebuilt]["reconstructed"] and all(s["marker"] is None for s in tiles[rebuilt]["spaces"])
    assert [p["markers"] for p in view["players"]] == [10, 9]  # seat 1's only marker is on the obelisk
    before = len(api.get("/games").json["games"])
    marked = api.post("/games", json=scenario_body(rebuilt=["hospice"]))  # the default position marks hospice
    assert marked.status_code == 422 and "rebuilt" in marked.json["errors"]["scenario"][0]
    unknown = api.post("/games", json=scenario_body(rebuilt=["atlantis"]))
    assert unknown.status_code == 422 and "rebuilt" in unknown.json["errors"]["scenario"]
    assert len(api.get("/games").json["games"]) == before
