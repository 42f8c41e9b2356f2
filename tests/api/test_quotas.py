"""Quotas from the abuser's side (service/quotas.py, application/lobby/open_games.py): games created an
hour per address and per account, open games per account, event streams open at once per address
and per token. Each refusal is a 429 problem naming its setting, with Retry-After, and changes
nothing; a stream's slot comes back when it ends, also when its client goes away."""

from __future__ import annotations

import fakeredis
import pytest

from application.background.handoff import CallbackHandoff
from events import keys
from service import live
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.accounts import personal_token

NEW_GAME = {"seats": [{"kind": "human"}, {"kind": "open"}]}
ONE, OTHER = {"REMOTE_ADDR": "198.51.100.7"}, {"REMOTE_ADDR": "203.0.113.9"}


def _api(**settings) -> CheckedClient:
    """The service with its quotas on, and rate limits too loose to interfere."""
    loose = {"RATE_LIMIT_WRITES": "1000 per minute", "RATE_LIMIT_READS": "1000 per minute"}
    config = {"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": CallbackHandoff(lambda t: None), **loose}
    return CheckedClient(create_app({**config, **settings}))


def _refused_by(answer, code: str, limit: str) -> None:
    assert answer.status_code == 429 and answer.mimetype == "application/problem+json", answer.json
    assert answer.json["code"] == code and answer.json["limit"] == limit and limit in answer.json["detail"]
    assert int(answer.headers["Retry-After"]) > 0


def _games(api: CheckedClient) -> int:
    return len(api.app.extensions["bluemoon"].client.keys(keys.stream("*").replace(keys.tag("*"), "*")))


def test_an_address_creates_at_most_its_quota_of_games_an_hour_an_ipv6_client_per_64():
    api = _api(QUOTA_GAMES_PER_ADDRESS="3 per hour")
    made = [api.post("/games", json=NEW_GAME, environ_base={"REMOTE_ADDR": f"2001:db8:7:7::{i}"}) for i in range(4)]
    assert [a.status_code for a in made] == [201] * 3 + [429]
    _refused_by(made[-1], "too_many_games", "QUOTA_GAMES_PER_ADDRESS")
    assert 3500 < int(made[-1].headers["Retry-After"]) <= 3600 and _games(api) == 3  # nothing made
    assert api.post("/games", json=NEW_GAME, environ_base=OTHER).status_code == 201  # another client


def test_an_account_creates_at_most_its_quota_of_games_and_open_games_an_hour_from_any_address():
    api = _api(QUOTA_GAMES_PER_ACCOUNT="3 per hour")
    token = personal_token(api, "ada@example.com")
    me = {"Authorization": f"Bearer {token}"}
    assert api.post("/games", json=NEW_GAME, headers=me, environ_base=ONE).status_code == 201
    assert api.post("/open-games", json={"players": 2}, headers=me, environ_base=OTHER).status_code == 201
    assert api.post("/games", json=NEW_GAME, headers=me, environ_base={"REMOTE_ADDR": "192.0.2.1"}).status_code == 201
    _refused_by(api.post("/games", json=NEW_GAME, headers=me), "too_many_games", "QUOTA_GAMES_PER_ACCOUNT")
    refused = api.post("/open-games", json={"players": 2}, headers=me, environ_base={"REMOTE_ADDR": "192.0.2.2"})
    _refused_by(refused, "too_many_games", "QUOTA_GAMES_PER_ACCOUNT")
    assert len(api.get("/open-games").json["open_games"]) == 1  # nothing opened
    assert (
        api.post("/games", json=NEW_GAME, environ_base={"REMOTE_ADDR": "192.0.2.3"}).status_code == 201
    )  # anyone else


def test_an_account_holds_at_most_its_quota_of_open_games_and_one_that_closes_frees_its_place(monkeypatch):
    from application.lobby import open_games as tables

    monkeypatch.setattr(tables, "OPEN_GAMES_PER_ACCOUNT", 2)
    api = _api()
    ada, bo = (personal_token(api, f"{name}@example.com") for name in ("ada", "bo"))
    mine = {"Authorization": f"Bearer {ada}"}
    opened = [api.post("/open-games", json={"players": 2}, headers=mine) for _ in range(3)]
    assert [a.status_code for a in opened] == [201, 201, 429]
    _refused_by(opened[-1], "too_many_open_games", "QUOTA_OPEN_GAMES_PER_ACCOUNT")
    assert len(api.get("/open-games").json["open_games"]) == 2  # nothing opened
    assert api.post("/open-games", json={"players": 2}, headers={"Authorization": f"Bearer {bo}"}).status_code == 201
    assert api.delete(f"/open-games/{opened[0].json['id']}", headers=mine).status_code == 200  # cancelled: a place
    joined = api.post(f"/open-games/{opened[1].json['id']}/join", headers={"Authorization": f"Bearer {bo}"})
    assert joined.json["status"] == "started"  # started: another place
    assert [api.post("/open-games", json={"players": 2}, headers=mine).status_code for _ in range(3)] == [201, 201, 429]


def _stream(api: CheckedClient, game: str, token: str | None = None, where: dict[str, str] = ONE):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.http.get(f"/games/{game}/stream", headers=headers, environ_base=where, buffered=False)


@pytest.fixture
def streaming():
    api = _api(QUOTA_STREAMS_PER_ADDRESS="3", QUOTA_STREAMS_PER_TOKEN="2")
    api.app.config["SSE_SECONDS"] = 30
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json
    yield api, created["game"], [s["token"] for s in created["seats"]]
    api.app.extensions["bluemoon"].feed.close()


def test_an_address_holds_at_most_its_quota_of_streams_and_a_closed_one_gives_its_slot_back(streaming):
    api, game, _ = streaming
    held = [_stream(api, game) for _ in range(3)]
    assert [s.status_code for s in held] == [200] * 3
    refused = _stream(api, game)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_streams"
    assert refused.json["limit"] == "QUOTA_STREAMS_PER_ADDRESS" and int(refused.headers["Retry-After"]) > 0
    elsewhere = _stream(api, game, where=OTHER)
    assert elsewhere.status_code == 200  # another address has its own
    elsewhere.close()
    held.pop().close()  # a client gone away (streams are closed last first: this thread holds their contexts)
    again = _stream(api, game)
    assert again.status_code == 200
    for stream in (again, *reversed(held)):
        stream.close()
    client = api.app.extensions["bluemoon"].client
    assert client.zcard("quota:streams:address:198.51.100.7") == 0  # nothing leaked


def test_a_token_holds_at_most_its_quota_of_streams_from_any_address(streaming):
    api, game, (mine, theirs) = streaming
    held = [_stream(api, game, mine, {"REMOTE_ADDR": f"192.0.2.{i}"}) for i in range(2)]
    refused = _stream(api, game, mine, {"REMOTE_ADDR": "192.0.2.99"})
    assert refused.status_code == 429 and refused.json["limit"] == "QUOTA_STREAMS_PER_TOKEN"
    other = _stream(api, game, theirs, {"REMOTE_ADDR": "192.0.2.99"})
    assert other.status_code == 200  # another seat's token
    for stream in (other, *reversed(held)):
        stream.close()


def test_a_slot_lapses_by_itself_unless_its_stream_renews_it(streaming):
    """A process that dies holding streams cannot keep their slots: each slot lapses."""
    api, game, _ = streaming
    stream = _stream(api, game)
    client = api.app.extensions["bluemoon"].client
    ((_, until),) = client.zrange("quota:streams:address:198.51.100.7", 0, -1, withscores=True)
    assert 0 < client.pttl("quota:streams:address:198.51.100.7") <= live.WATCHING_MS
    import time

    assert until <= time.time() * 1000 + live.WATCHING_MS
    stream.close()


def test_games_never_started_are_removed_when_due_keys_and_all_and_started_ones_are_kept(api, monkeypatch):
    from application.games import sweeps

    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "receiver.example")  # resolves nowhere, and is not checked
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("192.0.2.1", port))])
    client = api.app.extensions["bluemoon"].client
    me = personal_token(api, "ada@example.com")
    open_seat = api.post("/games", json=NEW_GAME, token=me).json  # its invite never used
    unplayed = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}).json  # nobody played
    played = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}})
    played = played.json
    move = next(
        c for c in api.get(f"/games/{played['game']}/legal", token=played["seats"][0]["token"]).json["commands"]
    )
    moved = api.post(
        f"/games/{played['game']}/commands", token=played["seats"][0]["token"], json=move, headers={"If-Match": '"5"'}
    )
    assert moved.status_code == 200
    hooked = api.post(
        f"/games/{unplayed['game']}/webhooks",
        token=unplayed["seats"][0]["token"],
        json={"url": "https://receiver.example/hook", "events": ["event"]},
    )
    assert hooked.status_code == 201, hooked.json
    gone, kept = [open_seat["game"], unplayed["game"]], played["game"]
    assert all(client.keys(f"*{game}*") for game in gone)

    assert sweeps.Sweeper(client).sweep() == []  # none due yet
    monkeypatch.setattr(sweeps, "UNSTARTED_GAME_SECONDS", -1)  # every note made from now on is due
    made = api.post("/games", json=NEW_GAME).json["game"]  # this one's own sweep removes it at once
    assert sorted(sweeps.Sweeper(client).sweep()) == []  # the earlier notes are not due for 7 days
    for shard in range(48):  # make them due, as 7 days would
        for game, _ in client.zrange(keys.unstarted(shard), 0, -1, withscores=True):
            client.zadd(keys.unstarted(shard), {game: 0})
    assert sorted(sweeps.Sweeper(client).sweep(limit=50)) == sorted(gone)
    for game in [*gone, made]:
        assert client.keys(f"*{game}*") == [] and api.get(f"/games/{game}").status_code == 404
        assert not any(
            game.encode() in v for k in client.keys("*") if client.type(k) == b"hash" for v in client.hkeys(k)
        )
    assert [t for t in client.keys("token:*") if client.get(t).startswith(tuple(g.encode() for g in gone))] == []
    assert api.get("/me/games", token=me).json["games"] == []
    assert [g["game"] for g in api.get("/games").json["games"]] == [kept]
    assert api.get(f"/games/{kept}", token=played["seats"][0]["token"]).status_code == 200  # started: kept
    assert client.zcard(keys.unstarted(keys.shard(kept))) == 0  # and no longer looked at


def test_open_games_never_started_are_removed_when_due_and_started_ones_are_kept(api, monkeypatch):
    from application.games import sweeps

    client = api.app.extensions["bluemoon"].client
    ada, bo = (personal_token(api, f"{name}@example.com") for name in ("ada", "bo"))
    mine, theirs = {"Authorization": f"Bearer {ada}"}, {"Authorization": f"Bearer {bo}"}
    waiting, cancelled, started = (api.post("/open-games", json={"players": 2}, headers=mine).json for _ in range(3))
    api.delete(f"/open-games/{cancelled['id']}", headers=mine)
    api.post(f"/open-games/{started['id']}/join", headers=theirs)
    assert api.app.extensions["bluemoon"].tables.sweep() == []  # none due for 7 days
    client.zadd(keys.LOBBY_UNSTARTED, {t["id"]: 0 for t in (waiting, cancelled, started)})  # as 7 days would
    monkeypatch.setattr(sweeps, "UNSTARTED_GAME_SECONDS", 3600)
    assert api.post("/open-games", json={"players": 2}, headers=theirs).status_code == 201  # its sweep removes them
    for gone in (waiting, cancelled):
        assert api.get(f"/open-games/{gone['id']}").status_code == 404 and client.keys(f"*{gone['id']}*") == []
    assert [t["id"] for t in api.get("/open-games").json["open_games"]] not in ([], [waiting["id"]])
    assert waiting["id"] not in str(api.get("/open-games").json)  # closed and unlisted first
    assert api.get(f"/open-games/{started['id']}").json["status"] == "started"  # kept: it names its game
    assert client.zcard(keys.LOBBY_UNSTARTED) == 1  # the one just opened, not due
