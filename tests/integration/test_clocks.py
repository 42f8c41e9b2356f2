"""Clocks for async play, on short settings with a real worker: a time bank that runs out (the
turn is played for the seat, as at a fixed deadline, and the audit shows it), a bank that refills
by its increment up to its cap, and a vacation that pauses a turn's clock, is shown to the other
seats, and resumes it when the person comes back early."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import redis

from application.background.rq_handoff import RQHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.accounts import personal_token
from tests.support.games import made_with_first_turn
from tests.support.workers import Workers, wait_until

pytestmark = pytest.mark.slow  # real clocks must run out, played by a real worker


@pytest.fixture
def api(redis_url, tmp_path):
    queue = f"clocks-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    app = create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    workers = Workers(redis_url, queue, logs=tmp_path)
    workers.start()
    yield CheckedClient(app)
    workers.stop_all()
    client.close()


def _clock_of(view: dict, seat: int) -> dict:
    return next(c for c in view["clocks"] if c["seat"] == seat)


def _end_turn(api, game: str, token: str) -> None:
    version = api.get(f"/games/{game}", token=token).json["version"]
    answer = api.post(f"/games/{game}/commands", json={"type": "end_turn", "expected_version": version}, token=token)
    assert answer.status_code == 200, answer.json


def test_a_bank_that_runs_out_is_played_for_the_seat_and_a_quick_turn_refills_it(api):
    clock = {"bank_seconds": 3, "increment_seconds": 2, "cap_seconds": 5}
    made = api.post(
        "/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}, "clock": clock}
    ).json
    game, first, second = made["game"], made["seats"][0]["token"], made["seats"][1]["token"]
    view = api.get(f"/games/{game}", token=second).json
    assert view["settings"]["clock"] == clock and view["settings"]["turn_deadline"] is None
    assert _clock_of(view, 1)["bank_ms"] == 3000 and _clock_of(view, 0)["bank_ms"] <= 3000
    started = time.monotonic()
    view = wait_until(
        lambda: (v := api.get(f"/games/{game}", token=second).json)["turn"]["seat"] == 1 and v,
        30,
        "seat 0's bank to run out",
    )
    assert time.monotonic() - started >= 2.5  # not before its bank was spent
    ended = [
        e for e in api.get(f"/games/{game}/events?after=0", token=second).json["events"] if e["type"] == "TurnEnded"
    ]
    assert [e["actor"] for e in ended] == ["deadline:pass"]  # the audit shows who played it
    assert _clock_of(view, 0)["bank_ms"] == 2000  # spent, then the increment
    time.sleep(0.3)
    _end_turn(api, game, second)  # a quick turn: 3 s - 0.3 s + 2 s, but no more than the 5 s cap
    view = api.get(f"/games/{game}", token=second).json
    assert 3500 <= _clock_of(view, 1)["bank_ms"] <= 4800  # more than it started with: the credit came
    deadline = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00"))
    # seat 0 has its 2 s; the view gives the deadline in whole seconds (cut, not rounded)
    assert 0 < (deadline - datetime.now(UTC)).total_seconds() <= 2
    _end_turn(api, game, first)
    view = api.get(f"/games/{game}", token=second).json
    assert _clock_of(view, 0)["bank_ms"] <= 5000 and _clock_of(view, 1)["bank_ms"] <= 4800


def test_a_vacation_pauses_the_persons_clock_is_shown_to_the_others_and_resumes_when_they_come_back(api):
    ada = personal_token(api, f"ada-{uuid.uuid4().hex[:8]}@example.com")
    clock = {"bank_seconds": 4, "increment_seconds": 1}
    made = made_with_first_turn(api, {"seats": [{"kind": "human"}, {"kind": "open"}], "clock": clock}, token=ada)
    game = made["game"]
    bo = api.post(f"/games/{game}/seats/1/join", json={"invite": made["seats"][1]["invite"]}).json["token"]
    started = time.monotonic()
    back = datetime.now(UTC) + timedelta(seconds=6)
    away = api.put("/me/vacation", json={"until": back.isoformat()}, token=ada)
    assert away.status_code == 200 and away.json["days_left"] == 13 and away.json["away_until"]
    seen = api.get(f"/games/{game}", token=bo).json  # Bo sees that Ada is away, and until when
    assert _clock_of(seen, 0)["away_until"] == away.json["away_until"]
    time.sleep(max(0.0, 5.0 - (time.monotonic() - started)))  # past Ada's 4 s bank
    assert api.get(f"/games/{game}", token=bo).json["turn"]["seat"] == 0  # paused: still her turn
    returned = api.delete("/me/vacation", token=ada).json
    assert returned["away_until"] is None and returned["days_left"] == 13  # the day begun stays spent
    assert _clock_of(api.get(f"/games/{game}", token=bo).json, 0)["away_until"] is None
    wait_until(lambda: api.get(f"/games/{game}", token=bo).json["turn"]["seat"] == 1, 30, "Ada's clock to run out")
    assert time.monotonic() - started >= 5.0
    refused = api.put("/me/vacation", json={"until": (datetime.now(UTC) + timedelta(days=20)).isoformat()}, token=ada)
    assert (
        refused.status_code == 422 and refused.json["code"] == "vacation_refused" and "until" in refused.json["errors"]
    )
    past = api.put("/me/vacation", json={"until": "2020-01-01T00:00:00Z"}, token=ada)
    assert past.status_code == 422 and api.get("/me/vacation", token=ada).json["away_until"] is None
