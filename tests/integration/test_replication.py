"""No acknowledged command is lost to a failover: with STORE_REPLICAS=1 each append is followed
by WAIT for a replica on the same connection, so a 2xx answer means a replica holds the events.
When no replica confirms in time the client gets 503 with Retry-After, and a retry with the same
Idempotency-Key applies the command once."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis

from application.background.handoff import CallbackHandoff
from events import keys, redis_store
from events.embedded import EmbeddedRedis
from events.store import Appended
from service.app import create_app
from tests.api.client import CheckedClient
from tests.support.stopped import stop


@pytest.fixture
def primary_and_replica(tmp_path):
    primary = EmbeddedRedis(tmp_path / "primary", persist=False)
    replica = EmbeddedRedis(tmp_path / "replica", persist=False, extra=("--replicaof", "127.0.0.1", str(primary.port)))
    client = redis.Redis.from_url(primary.url)
    deadline = time.monotonic() + 30
    while client.info("replication").get("slave0", {}).get("state") != "online":  # the replica has synced
        assert time.monotonic() < deadline, "the replica did not sync"
        time.sleep(0.05)
    client.close()
    yield primary, replica
    os.kill(replica.process.pid, signal.SIGCONT)  # in case the test stopped it
    replica.stop()
    primary.stop()


@pytest.fixture
def api(primary_and_replica, monkeypatch):
    primary, _ = primary_and_replica
    monkeypatch.setenv("STORE_REPLICAS", "1")
    monkeypatch.setenv("STORE_WAIT_MS", "500")
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")  # the test servers keep nothing on disk
    return CheckedClient(
        create_app({"REDIS_URL": primary.url, "RATE_LIMIT": 0, "HANDOFF": CallbackHandoff(lambda t: None)})
    )


def _move(api, game: str, token: str, version: int, key: str):
    """End the turn, as a client would send it (and send it again on a retry)."""
    return api.post(
        f"/games/{game}/commands",
        json={"type": "end_turn", "discards": []},
        headers={"Authorization": f"Bearer {token}", "If-Match": f'"{version}"', "Idempotency-Key": key},
    )


def _retried_until_confirmed(api, game, token, version):
    """The same command retried (same key) until the replica, resumed, confirms it (15 s at most)."""
    deadline = time.monotonic() + 15
    while (retried := _move(api, game, token, version, "one")).status_code == 503:
        assert time.monotonic() < deadline, "the replica did not come back"
        time.sleep(0.2)
    return retried


def test_an_acknowledged_command_is_on_the_replica_and_an_unconfirmed_one_is_retried_once(api, primary_and_replica):
    primary, replica = primary_and_replica
    on_replica = redis.Redis.from_url(replica.url)
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}})
    game, tokens = created.get_json()["game"], [s["token"] for s in created.get_json()["seats"]]
    first = _move(api, game, tokens[0], created.get_json()["version"], "one")
    assert first.status_code == 200
    version = first.get_json()["version"]
    assert on_replica.xlen(keys.stream(game)) == version  # acknowledged: the replica has it already

    stop([replica.process.pid])  # the replica stops answering
    refused = _move(api, game, tokens[1], version, "two")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "not yet confirmed by a replica" in refused.get_json()["detail"]
    assert redis.Redis.from_url(primary.url).xlen(keys.stream(game)) > version  # recorded on the primary only

    os.kill(replica.process.pid, signal.SIGCONT)
    retried = _move(api, game, tokens[1], version, "two")
    assert retried.status_code == 200 and retried.get_json()["duplicate"] is True
    events = api.get(f"/games/{game}/events?after={version}").get_json()["events"]
    assert [e["seq"] for e in events] == list(range(version + 1, retried.get_json()["version"] + 1))
    assert sum(e["type"] == "TurnEnded" for e in events) == 1  # applied once
    assert on_replica.xlen(keys.stream(game)) == retried.get_json()["version"]
    on_replica.close()


def test_a_primary_whose_replica_is_cut_off_takes_no_write_until_it_is_back(api, primary_and_replica, monkeypatch):
    """Issue 35: a replica cut off (stopped, its link dropped) can still be elected, so a write its
    primary alone holds may be lost. The primary with no replica connected refuses the command
    before writing it (503), and takes its retry once the replica is back."""
    primary, replica = primary_and_replica
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}})
    game, tokens, version = (
        created.get_json()["game"],
        [s["token"] for s in created.get_json()["seats"]],
        created.get_json()["version"],
    )
    on_primary = redis.Redis.from_url(primary.url)
    stop([replica.process.pid])
    on_primary.execute_command("CLIENT KILL TYPE replica")  # its link dropped, as a network reset drops it
    monkeypatch.setattr(redis_store, "REPLICAS_RECHECK", 0.0)  # it looks at them at every write, not once a second
    refused = _move(api, game, tokens[0], version, "one")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "0 of 1 replicas connected" in refused.get_json()["detail"]
    assert on_primary.xlen(keys.stream(game)) == version  # nothing written

    os.kill(replica.process.pid, signal.SIGCONT)
    retried = _retried_until_confirmed(api, game, tokens[0], version)
    assert retried.status_code == 200 and retried.get_json()["duplicate"] is False
    on_replica = redis.Redis.from_url(replica.url)
    assert on_replica.xlen(keys.stream(game)) == retried.get_json()["version"]  # acknowledged: on the replica
    on_replica.close()
    on_primary.close()


def test_the_retry_of_an_unconfirmed_command_is_not_acknowledged_while_no_replica_has_it(api, primary_and_replica):
    """The failover test's one lost command (a cut-off replica, then its primary killed): the
    append was made on the primary and refused 503 (WAIT timed out), and its retry, found in the
    request's read of the key's record, was answered 200 as the original without any WAIT, though
    still no replica had it. A replay acknowledges its command as much as an append does."""
    primary, replica = primary_and_replica
    created = api.post("/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}})
    game, tokens, version = (
        created.get_json()["game"],
        [s["token"] for s in created.get_json()["seats"]],
        created.get_json()["version"],
    )
    stop([replica.process.pid])  # still connected (ROLE lists it), but confirms nothing
    refused = _move(api, game, tokens[0], version, "one")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    on_primary = redis.Redis.from_url(primary.url)
    assert on_primary.xlen(keys.stream(game)) > version  # the primary alone has it

    retried = _move(api, game, tokens[0], version, "one")  # the replica is still stopped
    assert retried.status_code == 503 and retried.headers["Retry-After"]

    os.kill(replica.process.pid, signal.SIGCONT)
    retried = _retried_until_confirmed(api, game, tokens[0], version)
    assert retried.status_code == 200 and retried.get_json()["duplicate"] is True
    on_replica = redis.Redis.from_url(replica.url)
    assert on_replica.xlen(keys.stream(game)) == retried.get_json()["version"]  # acknowledged: on the replica
    assert on_primary.xlen(keys.stream(game)) == retried.get_json()["version"]  # applied once
    on_replica.close()
    on_primary.close()


def test_a_record_is_confirmed_as_the_primary_has_it_now_and_a_gone_one_is_not_written_back(primary_and_replica):
    """RedisStore.confirmed reads the record again on the primary before the WAIT: one that a
    failover lost is not written back from a caller's earlier read (it names events that are gone)."""
    primary, replica = primary_and_replica
    client = redis.Redis.from_url(primary.url)
    store = redis_store.RedisStore(client, replicas=1, wait_ms=500)
    earlier = ("digest", Appended(3, 4, duplicate=True))  # what a read found before the loss
    assert store.confirmed("g1", "0:gone", earlier) is None
    assert not client.hexists(keys.commands("g1"), "0:gone")
    client.hset(keys.commands("g1"), "0:kept", "digest|1|2")
    assert store.confirmed("g1", "0:kept", earlier) == ("digest", Appended(1, 2, duplicate=True))
    client.close()
