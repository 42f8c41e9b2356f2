"""The audit judges every move again: a tampered log is caught and the failing check and event
named; an explicit setup is never reported as drawn."""

from __future__ import annotations

import copy
import json
import random
from unittest import mock

import pytest

from application.background.handoff import CallbackHandoff
from application.games.log_audit import audit_log
from events import keys
from tests.support.games import play_to_the_end


@pytest.fixture(scope="module")
def finished_game():
    """One finished game with a greedy bot (its commands recorded like a human's): the API and the game."""
    import fakeredis

    from service.app import create_app
    from tests.api.client import CheckedClient

    box: list = []
    api = CheckedClient(
        create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(box.append), "RATE_LIMIT": 0})
    )
    api.tickets = box
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]}).json
    play_to_the_end(api, created["game"], {0: created["seats"][0]["token"]}, random.Random(7))
    return api, created["game"]


@pytest.fixture(scope="module")
def finished_log(finished_game):
    """The finished game's log, as published."""
    api, game = finished_game
    return api.get(f"/games/{game}/log").json


def test_a_finished_games_log_and_audit_are_computed_once_then_served_as_they_were(finished_game):
    from service.routes import replay_routes

    api, game = finished_game
    api.app.extensions["bluemoon"].client.delete(
        keys.finished_document(game, "log"), keys.finished_document(game, "audit")
    )
    calls = {"served_events": 0, "audit_log": 0}

    def counted(name, real):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    with (
        mock.patch.object(replay_routes, "served_events", counted("served_events", replay_routes.served_events)),
        mock.patch.object(replay_routes, "audit_log", counted("audit_log", replay_routes.audit_log)),
    ):
        first = [api.get(f"/games/{game}/{part}") for part in ("audit", "log")]
        assert calls == {"served_events": 1, "audit_log": 1}  # the audit's log is the published one, kept
        again = [api.get(f"/games/{game}/{part}") for part in ("audit", "log", "audit")]
        assert calls == {"served_events": 1, "audit_log": 1}  # nothing computed again
    assert first[0].json["verified"] and [a.data for a in again] == [first[0].data, first[1].data, first[0].data]


def failing(result: dict) -> dict[str, str]:
    return {c["name"]: c["detail"] for c in result["checks"] if not c["ok"]}


def test_an_untouched_log_is_verified_with_every_command_judged_again(finished_log):
    result = audit_log(finished_log)
    assert result["verified"] and result["setup"] == "drawn from the seed", failing(result)
    rejudged = next(c for c in result["checks"] if c["name"] == "rejudged")
    assert rejudged["ok"] and "commands judged again" in rejudged["detail"]


@pytest.mark.parametrize("where", ["log", "GameCreated", "GameEnded"])
def test_a_changed_copy_of_the_seed_is_caught(finished_log, where):
    log = copy.deepcopy(finished_log)
    other = "00" * 32
    if where == "log":
        log["seed"] = other
    else:
        next(e for e in log["events"] if e["type"] == where)["data"]["seed"] = other
    result = audit_log(log)
    assert not result["verified"] and "seed_copies" in failing(result)


def test_two_swapped_events_are_caught_and_named(finished_log):
    log = copy.deepcopy(finished_log)
    events = log["events"]
    i = next(i for i in range(20, len(events) - 1) if events[i]["data"] != events[i + 1]["data"])
    events[i]["data"], events[i + 1]["data"] = events[i + 1]["data"], events[i]["data"]
    events[i]["type"], events[i + 1]["type"] = events[i + 1]["type"], events[i]["type"]
    problems = failing(audit_log(log))
    assert "rejudged" in problems and problems["rejudged"].startswith("event ")


def _mutate(log: dict, rnd: random.Random) -> str:
    """One random change to a finished log: a value, a dropped, swapped or inserted event."""
    events = log["events"]
    kind = rnd.choice(["value", "drop", "swap", "insert"])
    i = rnd.randrange(len(events))
    if kind == "drop":
        del events[i]
    elif kind == "swap" and i + 1 < len(events):
        events[i]["type"], events[i + 1]["type"] = events[i + 1]["type"], events[i]["type"]
        events[i]["data"], events[i + 1]["data"] = events[i + 1]["data"], events[i]["data"]
    elif kind == "insert":
        events.insert(i, copy.deepcopy(events[rnd.randrange(len(events))]))
    else:
        data = events[i]["data"]
        fields = [k for k, v in data.items() if isinstance(v, (int, str)) and not isinstance(v, bool)]
        if not fields:
            return "none"
        name = rnd.choice(fields)
        data[name] = data[name] + 1 if isinstance(data[name], int) else data[name][::-1] + "x"
    return kind


def test_the_audit_catches_every_random_mutation_that_changes_the_game(finished_log):
    rnd = random.Random(2026)
    original = json.dumps(finished_log, sort_keys=True)
    caught = 0
    for _ in range(60):
        log = copy.deepcopy(finished_log)
        kind = _mutate(log, rnd)
        if json.dumps(log, sort_keys=True) == original:
            continue  # the mutation changed nothing
        result = audit_log(log)
        assert not result["verified"], (kind, failing(result))
        caught += 1
    assert caught >= 50


def test_an_explicit_setup_is_reported_as_explicit_not_drawn(api):
    grid_game = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    view = api.get(f"/games/{grid_game['game']}").json
    grid = [{"tile": t["tile"], "row": t["row"], "col": t["col"]} for t in view["city"]]
    created = api.post(
        "/games",
        json={
            "seats": [{"kind": "human"}, {"kind": "bot"}],
            "layout": "explicit",
            "setup": {"grid": grid, "first_player": 1},
        },
    ).json
    api.run_workers()
    service = api.app.extensions["bluemoon"].service
    from service.requests import served_events

    state = service.state(created["game"])
    with api.app.test_request_context():
        log = {"seed": state.seed, "events": served_events(service.store.read(created["game"]), None, revealed=True)}
    result = audit_log(log)
    assert result["setup"] == "explicit, not drawn (grid, first_player)"


def test_dropping_any_move_is_caught_even_when_the_log_is_renumbered(finished_log):
    """A dropped figure move can leave a game the rules still accept (the next move reaches
    the same tiles): the recorded version of each command must follow the one before it."""
    moves = [i for i, e in enumerate(finished_log["events"]) if e["type"] == "FigureMoved"]
    assert len(moves) > 20
    for i in moves:
        log = copy.deepcopy(finished_log)
        del log["events"][i]
        assert failing(audit_log(log)).keys() >= {"numbered", "rejudged"}, i
        for seq, event in enumerate(log["events"], 1):
            event["seq"] = seq
        problems = failing(audit_log(log))
        assert "rejudged" in problems and "decided at version" in problems["rejudged"], (i, problems)
