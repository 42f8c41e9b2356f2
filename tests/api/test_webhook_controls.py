"""What a seat asks of its own webhook (a test delivery, a redelivery, enabling it again), and
that nobody else may: another seat, another game's seat and nobody at all are refused and change
nothing. The deliveries themselves, to a real receiver: tests/integration/test_webhooks.py."""

from __future__ import annotations

import json

import pytest

from events import keys
from tests.support.games import game_and_tokens


@pytest.fixture
def hook(api, monkeypatch):
    """A webhook of seat 1 of a game of two, and the game's tokens."""
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "receiver.example")  # resolves nowhere, and is not checked
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("192.0.2.1", port))])
    game, tokens = game_and_tokens(api)
    body = {"url": "https://receiver.example/in", "events": ["game.ended"]}
    made = api.post(f"/games/{game}/webhooks", token=tokens[1], json=body).json
    return game, tokens, made


def outbox_entries(api, game: str) -> dict[str, dict]:
    client = api.app.extensions["bluemoon"].service.client
    payloads = client.hgetall(keys.outbox(keys.shard(game))[0])
    found = {k.decode(): json.loads(v) for k, v in payloads.items()}
    return {name: payload for name, payload in found.items() if name.startswith(f"wh:{game}:")}


def test_a_test_delivery_is_an_outbox_delivery_due_now(api, hook):
    game, tokens, made = hook
    sent = api.post(f"/games/{game}/webhooks/{made['id']}/test", token=tokens[1])
    assert sent.status_code == 202 and sent.json["webhook"] == made["id"] and sent.json["kind"] == "webhook.test"
    (entry,) = outbox_entries(api, game).values()
    assert entry["id"] == sent.json["delivery"] and entry["webhook"] == made["id"]
    body = json.loads(entry["body"])
    assert body == {
        "type": "webhook.test",
        "game": game,
        "version": body["version"],
        "seat": 1,
        "data": {"webhook": made["id"]},
    }
    name = next(iter(outbox_entries(api, game)))
    assert api.app.extensions["bluemoon"].service.store.outbox_entry(name) is not None


@pytest.mark.parametrize("who", ["other seat", "other game", "nobody"])
def test_nobody_but_the_webhooks_seat_may_test_redeliver_or_enable_it(api, hook, who):
    game, tokens, made = hook
    stranger = {"other seat": tokens[0], "other game": game_and_tokens(api)[1][0], "nobody": None}[who]
    status = {"other seat": 404, "other game": 403, "nobody": 401}[who]
    path = f"/games/{game}/webhooks/{made['id']}"
    client = api.app.extensions["bluemoon"].service.client
    client.hset(
        keys.webhooks(game),
        made["id"],
        json.dumps(
            {
                **json.loads(client.hget(keys.webhooks(game), made["id"])),
                "enabled": False,
                "failures": 5,
                "disabled_reason": "failures",
            }
        ),
    )
    for asked in (f"{path}/test", f"{path}/deliveries/msg_x/redeliver", f"{path}/enable"):
        refused = api.post(asked, token=stranger)
        assert refused.status_code == status, (asked, refused.json)
    assert outbox_entries(api, game) == {}
    shown = api.get(path, token=tokens[1]).json
    assert (shown["enabled"], shown["failures"], shown["disabled_reason"]) == (False, 5, "failures")


def test_a_disabled_webhook_is_tested_only_once_enabled_again(api, hook):
    game, tokens, made = hook
    path = f"/games/{game}/webhooks/{made['id']}"
    client = api.app.extensions["bluemoon"].service.client
    kept = json.loads(client.hget(keys.webhooks(game), made["id"]))
    disabled = {**kept, "enabled": False, "failures": 0, "timeouts": 3, "disabled_reason": "timeouts"}
    client.hset(keys.webhooks(game), made["id"], json.dumps(disabled))
    refused = api.post(f"{path}/test", token=tokens[1])
    assert refused.status_code == 409 and refused.json["code"] == "webhook_disabled"
    assert outbox_entries(api, game) == {}
    enabled = api.post(f"{path}/enable", token=tokens[1])
    assert enabled.status_code == 200 and "secret" not in enabled.json
    assert (enabled.json["enabled"], enabled.json["timeouts"], enabled.json["disabled_reason"]) == (True, 0, None)
    assert api.post(f"{path}/enable", token=tokens[1]).json == enabled.json  # again: nothing changes
    assert api.post(f"{path}/test", token=tokens[1]).status_code == 202
    assert json.loads(client.hget(keys.webhooks(game), made["id"]))["secret"] == kept["secret"]


def test_a_delivery_not_in_the_log_is_not_found(api, hook):
    game, tokens, made = hook
    missing = api.post(f"/games/{game}/webhooks/{made['id']}/deliveries/msg_none/redeliver", token=tokens[1])
    assert missing.status_code == 404 and outbox_entries(api, game) == {}
