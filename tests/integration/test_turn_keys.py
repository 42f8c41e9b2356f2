"""From the opponent's side, against a real worker on the real Redis: a bot's command ids are
predictable (``bot:<game>:<version>:<seat>``), so an opponent can send one as their own
Idempotency-Key. It names the opponent's own command only: the bot replies as usual."""

from __future__ import annotations

import uuid

import pytest
import redis

from application.background.rq_handoff import RQHandoff
from application.wiring import build
from domain.commands import EndTurn
from domain.decide import decide_and_apply
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.workers import Workers, assert_each_bot_command_applied_once_at_its_version, wait_until


@pytest.fixture
def api_and_worker(redis_url, tmp_path):
    queue = f"keys-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    app = create_app({"REDIS_CLIENT": client, "HANDOFF": RQHandoff(client, queue=queue), "RATE_LIMIT": 0})
    workers = Workers(redis_url, queue, logs=tmp_path)
    workers.start()
    yield CheckedClient(app), build(client=client).service
    workers.stop_all()
    client.close()


@pytest.mark.slow
def test_an_opponent_sending_the_bots_next_key_leaves_the_bot_replying_as_usual(api_and_worker):
    """Slow: a real worker process must start (about 2 s) to play the bot's turn."""
    api, service = api_and_worker
    made = api.post(
        "/games",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}], "setup": {"first_player": 0}},
    ).json
    game, token = made["game"], made["seats"][0]["token"]
    view = api.get(f"/games/{game}", token=token).json
    assert view["turn"]["seat"] == 0
    # the attacker works out the version their end of turn leads to: the bot's first command id
    _, after = decide_and_apply(service.state(game), EndTurn(0))
    bots_key = f"bot:{game}:{after.version}:1"
    played = api.post(
        f"/games/{game}/commands",
        token=token,
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": f'"{view["version"]}"', "Idempotency-Key": bots_key},
    )
    assert played.status_code == 200 and played.json["version"] == after.version
    state = wait_until(lambda: (s := service.state(game)).turn.seat == 0 and s, 30, "the bot's reply")
    assert state.turn.number == 3
    stored = service.store.read(game)
    assert [s.actor for s in stored if s.type == "TurnEnded"] == ["0", "bot:greedy"]
    assert next(s.command for s in stored if s.seq == after.version + 1) == bots_key  # the bot's own key
    assert_each_bot_command_applied_once_at_its_version(service, game)
