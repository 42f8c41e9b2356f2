"""A game's clock record is written by the append that ends or starts a turn, not after it: a
process that dies once the append is acknowledged leaves the clock as the turn left it (the
seat that ended its turn charged, the next turn's start noted)."""

from __future__ import annotations

from application.games import clocks
from events import keys


class Died(Exception):
    """The web process, gone between the append and whatever it meant to do next."""


def test_a_process_that_dies_after_the_append_leaves_the_clock_recorded(api, monkeypatch):
    made = api.post(
        "/games",
        json={
            "seats": [{"kind": "human"}, {"kind": "human"}],
            "setup": {"first_player": 0},
            "clock": {"bank_seconds": 3600, "increment_seconds": 0},
        },
    ).json
    game, tokens = made["game"], [s["token"] for s in made["seats"]]
    service = api.app.extensions["bluemoon"].service
    client = service.store.client
    started = clocks.read(client.hgetall(keys.clock(game)))["turn"]
    assert started["seat"] == 0  # the creation's append noted the first turn
    append = service.store.append

    def append_then_die(*args, **kwargs):
        append(*args, **kwargs)
        raise Died

    monkeypatch.setattr(service.store, "append", append_then_die)
    version = api.get(f"/games/{game}", token=tokens[0]).json["version"]
    died = api.app.test_client().post(
        f"/games/{game}/commands",
        json={"type": "end_turn", "expected_version": version},
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    assert died.status_code == 500  # the request's process, as good as gone
    assert service.store.version(game) > version  # the fault happened after the turn was stored
    clock = clocks.read(client.hgetall(keys.clock(game)))
    assert clock["turn"]["seat"] == 1 and clock["turn"]["started"] >= started["started"]
    assert 0 < clock["banks"][0] <= 3_600_000  # seat 0's bank charged for its turn
