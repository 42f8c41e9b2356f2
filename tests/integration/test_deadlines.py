"""Turn deadlines are visible: the view carries the game's settings and when the current
turn's deadline passes; a real worker plays the overdue turn when it does."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
import redis

from application.background.rq_handoff import RQHandoff
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.workers import Workers, wait_until


@pytest.mark.slow
def test_a_short_deadline_is_shown_as_a_utc_time_passes_and_the_next_turn_shows_its_own(redis_url):
    """Slow: real deadlines must pass, played by a real worker."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    api = CheckedClient(
        create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    )
    workers = Workers(redis_url, queue)
    try:
        created_at = datetime.now(UTC)
        created = api.post(
            "/games",
            json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}, "turn_deadline": 10},
        ).json
        game, token = created["game"], created["seats"][1]["token"]
        view = api.get(f"/games/{game}", token=token).json
        assert view["settings"] == {"turn_deadline": 10, "deadline_level": "pass", "rated": False, "clock": None}
        first = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00"))
        assert view["turn"]["deadline"].endswith("Z") and 9 <= (first - created_at).total_seconds() <= 11
        mover = created["seats"][0]["token"]
        step = next(c for c in api.get(f"/games/{game}/legal", token=mover).json["commands"] if c["type"] == "move")
        moved = api.post(
            f"/games/{game}/commands", token=mover, json=step, headers={"If-Match": f'"{view["version"]}"'}
        ).json
        assert moved["view"]["turn"]["deadline"] == view["turn"]["deadline"]  # the turn goes on: its deadline stands
        workers.start()
        view = wait_until(
            lambda: (v := api.get(f"/games/{game}", token=token).json)["turn"]["seat"] == 1 and v,
            20,
            "the deadline to pass and the turn to end",
        )
        assert datetime.now(UTC) >= first  # it passed before the turn ended
        second = datetime.fromisoformat(view["turn"]["deadline"].replace("Z", "+00:00"))
        assert 9 <= (second - first).total_seconds() <= 12
        ended = [
            e for e in api.get(f"/games/{game}/events?after=0", token=token).json["events"] if e["type"] == "TurnEnded"
        ]
        assert [e["actor"] for e in ended] == ["deadline:pass"]
        untimed = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
        plain = api.get(f"/games/{untimed['game']}").json
        assert (
            plain["settings"] == {"turn_deadline": None, "deadline_level": None, "rated": False, "clock": None}
            and plain["turn"]["deadline"] is None
        )
    finally:
        workers.stop_all()
        client.close()
