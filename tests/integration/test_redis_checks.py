"""REDIS_URL mode checks at start that Redis keeps games (an append-only file, no eviction)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys

import pytest
import redis

from application.background.handoff import CallbackHandoff
from application.redis_checks import LiveCheck, UnsafeRedis, refuse_unsafe_redis
from events.embedded import EmbeddedRedis
from service.app import create_app
from tests.conftest import start_cluster, until
from tests.support.stopped import stop


@pytest.fixture
def stock_redis(tmp_path):
    """A Redis as it comes: no append-only file."""
    server = EmbeddedRedis(tmp_path / "stock", persist=False)
    yield server
    server.stop()


def test_bluemoon_refuses_a_redis_without_an_append_only_file_naming_the_setting(stock_redis, tmp_path):
    env = {**os.environ, "REDIS_URL": stock_redis.url, "BLUEMOON_DATA": str(tmp_path / "unused")}
    env.pop("BLUEMOON_UNSAFE_REDIS", None)
    done = subprocess.run(
        [sys.executable, "-m", "cli.bluemoon", "--port", "0"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "appendonly is 'no', must be 'yes'" in done.stderr and "BLUEMOON_UNSAFE_REDIS=1" in done.stderr


def test_the_web_process_refuses_it_too_unless_told_to_run_anyway(stock_redis, monkeypatch, caplog):
    monkeypatch.delenv("BLUEMOON_UNSAFE_REDIS", raising=False)
    with pytest.raises(UnsafeRedis, match="appendonly"):
        create_app({"REDIS_URL": stock_redis.url})
    monkeypatch.setenv("BLUEMOON_UNSAFE_REDIS", "1")
    with caplog.at_level(logging.WARNING, logger="bluemoon.checks"):
        app = create_app({"REDIS_URL": stock_redis.url})
    assert "Running anyway" in caplog.text
    ready = app.test_client().get("/readyz").get_json()
    assert ready["redis"] == {"status": "unsafe", "detail": "appendonly is 'no', must be 'yes'"}


def test_a_redis_that_keeps_games_is_reported_ready_and_ok(tmp_path):
    server = EmbeddedRedis(tmp_path / "safe")
    try:
        ready = create_app({"REDIS_URL": server.url}).test_client().get("/readyz").get_json()
        assert ready["status"] == "ready" and ready["redis"]["status"] == "ok"
    finally:
        server.stop()


def test_an_append_only_file_left_to_the_os_to_flush_is_refused_like_the_other_settings(tmp_path, monkeypatch):
    """``appendfsync no`` lets the OS flush the file when it likes (up to ~30 s of acknowledged
    commands lost on a power cut): checked with appendonly and the eviction policy."""
    monkeypatch.delenv("BLUEMOON_UNSAFE_REDIS", raising=False)
    server = EmbeddedRedis(tmp_path / "lazy", extra=("--appendfsync", "no"))
    try:
        with pytest.raises(UnsafeRedis, match="appendfsync is 'no', must be 'everysec' or 'always'"):
            refuse_unsafe_redis(server.url)
        with redis.Redis.from_url(server.url) as client:
            client.config_set("appendfsync", "always")
        assert refuse_unsafe_redis(server.url) == {
            "status": "ok",
            "detail": "appendonly yes, appendfsync always, maxmemory-policy noeviction",
        }
    finally:
        server.stop()


def test_where_config_is_disabled_it_warns_and_runs(tmp_path, caplog):
    server = EmbeddedRedis(tmp_path / "managed", extra=("--rename-command", "CONFIG", ""))
    try:
        with caplog.at_level(logging.WARNING, logger="bluemoon.checks"):
            result = refuse_unsafe_redis(server.url)
        assert result["status"] == "unchecked" and "CONFIG is not available" in caplog.text
    finally:
        server.stop()


def test_on_a_cluster_every_node_is_checked_and_each_unsafe_one_named(cluster_urls, monkeypatch):
    """The test cluster's nodes keep no append-only file: the start-up check names each of
    them, then passes once every node has one and never evicts."""
    monkeypatch.delenv("BLUEMOON_UNSAFE_REDIS", raising=False)
    with pytest.raises(UnsafeRedis) as refused:
        refuse_unsafe_redis(cluster_urls[0])
    ports = [url.rsplit(":", 1)[1].split("/")[0] for url in cluster_urls]
    assert all(f"127.0.0.1:{port}: appendonly is 'no'" in str(refused.value) for port in ports)
    nodes = [redis.Redis.from_url(url) for url in cluster_urls]
    try:
        for node in nodes:
            node.config_set("appendonly", "yes")
            node.config_set("maxmemory-policy", "noeviction")
        assert refuse_unsafe_redis(cluster_urls[0]) == {
            "status": "ok",
            "detail": "appendonly yes, appendfsync everysec or always, maxmemory-policy noeviction on all 3 nodes",
        }
    finally:
        for node in nodes:
            node.config_set("appendonly", "no")
            node.close()


@pytest.mark.slow
def test_a_fresh_clusters_replicas_are_all_checked_and_readyz_names_a_primary_that_lost_its_replica(
    tmp_path, monkeypatch
):
    """Slow: a cluster of its own, with a replica per primary (3 s to start). Checked at once, its
    replicas are still at replication offset 0, which CLUSTER SLOTS leaves out on Redis 7.0: the
    check names all 6 nodes. /readyz then follows the cluster as it is: a replica stopped and its
    link dropped makes its primary's shard degraded, and its return makes it ok again."""
    nodes = start_cluster(tmp_path, replicas=1)
    clients = [redis.Redis(port=n.port) for n in nodes]
    try:
        monkeypatch.delenv("BLUEMOON_UNSAFE_REDIS", raising=False)
        with pytest.raises(UnsafeRedis) as refused:
            refuse_unsafe_redis(nodes[0].url)
        named = [n.port for n in nodes if f"127.0.0.1:{n.port}: appendonly is 'no'" in str(refused.value)]
        assert named == [n.port for n in nodes]
        for client in clients:
            client.config_set("appendonly", "yes")
        monkeypatch.setenv("STORE_REPLICAS", "1")
        monkeypatch.setattr(LiveCheck, "RECHECK_SECONDS", 0)
        probe = create_app({"REDIS_URL": nodes[0].url, "HANDOFF": CallbackHandoff(lambda t: None)}).test_client()
        assert probe.get("/readyz").get_json()["redis"] == {
            "status": "ok",
            "detail": "appendonly yes, appendfsync everysec or always, maxmemory-policy noeviction on all 6 nodes",
        }
        replica = nodes[4]  # node 1's
        stop([replica.process.pid])
        try:
            clients[1].execute_command("CLIENT KILL TYPE replica")
            ready = probe.get("/readyz")
            assert ready.status_code == 200  # the other shards take writes: the process stays ready
            check = ready.get_json()["redis"]
            assert check["status"] == "degraded"
            assert f"127.0.0.1:{nodes[1].port}: 0 of 1 replicas connected, its writes are refused" in check["detail"]
            assert f"127.0.0.1:{replica.port}: unreachable (TimeoutError), not checked" in check["detail"]
        finally:
            os.kill(replica.process.pid, signal.SIGCONT)
        until(lambda: probe.get("/readyz").get_json()["redis"]["status"] == "ok", "the replica back", 15)
    finally:
        for client in clients:
            client.close()
        for n in nodes:
            n.stop()


def test_readiness_fails_when_the_job_queues_redis_is_gone_naming_it(tmp_path, monkeypatch):
    """The web process needs the queue's Redis too (a bot's turn is enqueued there): /readyz
    asks it, and names it when it does not answer."""
    store, queue = EmbeddedRedis(tmp_path / "store"), EmbeddedRedis(tmp_path / "queue")
    try:
        monkeypatch.setenv("QUEUE_URL", queue.url)
        probe = create_app({"REDIS_URL": store.url}).test_client()
        assert probe.get("/readyz").status_code == 200
        queue.stop()
        unready = probe.get("/readyz")
        assert unready.status_code == 503 and unready.mimetype == "application/problem+json"
        assert unready.get_json()["detail"] == "unreachable: the job queue's Redis (ConnectionError)"
    finally:
        store.stop()
        queue.stop()
