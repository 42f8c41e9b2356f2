"""The whole service as processes (``python -m cli.bluemoon``: gunicorn, a turn worker, a
delivery worker, the embedded Redis), reached over real HTTP.

Every test that starts the service runs twice: on the embedded Redis, and with its games on a
Redis Cluster of three primaries with a replica each (``STORE_URL``, ``STORE_REPLICAS=1``) and
its jobs on a Redis of their own (``QUEUE_URL``), as a service that outgrew one machine runs. A
test that picks its own Redis is marked ``own_store`` and runs once. After each cluster run the
cluster holds no RQ key and the queue Redis nothing but RQ's."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from events.embedded import EmbeddedRedis, free_port
from tests.conftest import start_cluster
from tests.support.shared_folders import held

CHROMIUM = "/usr/bin/chromium"  #: Debian's package (.ci/run installs it): Playwright cannot download browsers here


def wait_until(page, expression: str, timeout: float = 30_000) -> None:
    """Wait until ``expression`` is true in ``page`` (Playwright's ``wait_for_function``, polled
    from the test): Playwright builds a string predicate with eval inside the page, which the
    pages' Content-Security-Policy refuses (no 'unsafe-eval'), while ``page.evaluate`` goes
    through DevTools, which the policy does not govern."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true within {timeout:.0f} ms: {expression}"
        page.wait_for_timeout(50)


def call(base: str, method: str, path: str, body=None, token=None, headers=None, timeout: float = 30):
    """One request over real HTTP: (status, JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def against_greedy(base: str) -> dict[str, Any]:
    """A new game of a human (seat 0, who begins) against a greedy bot: ``POST /games``'s body."""
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    status, created = call(base, "POST", "/games", {"seats": seats, "setup": {"first_player": 0}})
    assert status == 201, created
    return created


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_backend" in metafunc.fixturenames and not metafunc.definition.get_closest_marker("own_store"):
        metafunc.parametrize("store_backend", ["embedded", "cluster"], indirect=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The cluster runs belong to the whole suite, not to the quick subset."""
    for item in items:
        if getattr(item, "callspec", None) and item.callspec.params.get("store_backend") == "cluster":
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Under pytest-xdist the browser tests run one at a time, and so do the two fuzzing runs: several
    Chromiums or schemathesis runs at once on two cores made timings a player never sees (30 s
    waits for a page) and failed tests that pass alone. A lock file of this run's (xdist's run id),
    as xdist's own ``xdist_group`` does not group under pytest 9 (it sets a node id pytest 9 no
    longer reads). Held for the test's call alone: its service starts (setup) and stops (teardown,
    up to 15 s) outside it, beside another test's browser, instead of lengthening the one line
    every browser test waits in."""
    name = item.path.name
    kind = "browsers" if name.endswith("_browser.py") else "fuzzing" if name == "test_fuzz.py" else None
    if kind is None:
        return (yield)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
    with held(Path(tempfile.gettempdir()) / f"bluemoon-{kind}-{run}"):
        return (yield)


@pytest.fixture(scope="session")
def cluster_store(tmp_path_factory) -> Iterator[tuple[dict[str, str], list[EmbeddedRedis], EmbeddedRedis]]:
    """A cluster of three primaries with a replica each, and a queue Redis: the settings that put
    the service on them, and the servers."""
    nodes = start_cluster(tmp_path_factory.mktemp("e2e-cluster"), replicas=1)
    queue = EmbeddedRedis(tmp_path_factory.mktemp("e2e-queue"), persist=False)
    settings = {
        "STORE_URL": ",".join(n.url for n in nodes[:3]),  # seed nodes, as an operator lists them
        "QUEUE_URL": queue.url,
        "STORE_REPLICAS": "1",
        # each append still waits for its replica; a loaded test machine's replica may take longer
        # than the default 1 s (then the create was a 503 and a browser test waited for nothing)
        "STORE_WAIT_MS": "5000",
        "BLUEMOON_UNSAFE_REDIS": "1",  # the test nodes keep nothing on disk
    }
    yield settings, nodes, queue
    for server in [*nodes, queue]:
        server.stop()


@pytest.fixture(scope="module")
def _chromium():
    """One Chromium for a module's tests (a launch costs about half a second); each test gets
    contexts of its own (``browser``), which share no cookie, storage, cache, permission or
    service worker with any other context."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = [p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])]

        def running():
            if not launched[0].is_connected():  # a test that crashed it does not fail the next ones
                launched[0] = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            return launched[0]

        yield running
        launched[0].close()


@pytest.fixture
def store_backend(request) -> Iterator[dict[str, str]]:
    """The settings of the test's store: none (the embedded Redis) or the cluster's."""
    if getattr(request, "param", "embedded") == "embedded":
        yield {}
        return
    settings, nodes, queue = request.getfixturevalue("cluster_store")
    yield settings
    for node in nodes[:3]:  # (a replica copies its primary)
        with redis.Redis(port=node.port) as primary:
            assert not list(primary.scan_iter(match="rq:*", count=1000)), "RQ keys in the game store"
    with redis.Redis(port=queue.port) as jobs:
        assert all(k.startswith(b"rq:") for k in jobs.scan_iter(count=1000)), "game data in the queue Redis"
        jobs.flushall()
    for node in nodes[:3]:  # the next test starts from an empty store, as on a fresh embedded Redis
        with redis.Redis(port=node.port) as primary:  # (sign-in limits per address would carry over)
            primary.flushall()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Mark a test whose call failed, for its service's teardown to show the service's logs."""
    outcome = yield
    if call.when == "call" and outcome.get_result().failed:
        item.call_failed = True


@pytest.fixture
def start_service(request, tmp_path, store_backend) -> Iterator[Callable[..., str]]:
    """Start the whole service as the README says (``python -m cli.bluemoon``: gunicorn with
    the Procfile's settings, a turn worker and a delivery worker, the embedded Redis); ``env`` adds variables.
    ``review_workers``: none unless asked (``reviewing_server``): a review is seconds of CPU for each
    game that ends, which the suite's other tests would pay for without looking at it.
    Returns its base URL; everything is stopped at the end of the test. ``start.started``
    holds the processes and ``start.logs`` their output files (both streams), in order."""
    started: list[subprocess.Popen] = []
    logs: list[Path] = []

    def start(review_workers: int = 0, **env: str) -> str:
        port = free_port()
        environ = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        environ.update(BLUEMOON_DATA=str(tmp_path / f"redis-{len(started)}"), **{**store_backend, **env})
        logs.append(tmp_path / f"service-{len(started)}.log")
        with logs[-1].open("wb") as output:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cli.bluemoon", "--port", str(port), "--review-workers", str(review_workers)],
                env=environ,
                start_new_session=True,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        started.append(proc)
        base = f"http://127.0.0.1:{port}"
        # it starts in about a second; two minutes, because a CI run once saw an embedded Redis stall
        # for over one (suspected: its AOF fsync behind the container test's image build on the disk)
        deadline = time.monotonic() + 120
        while True:
            try:  # (gunicorn accepts before its workers answer: a probe that times out is not ready yet)
                if call(base, "GET", "/readyz", timeout=5)[0] == 200:
                    return base
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            assert proc.poll() is None and time.monotonic() < deadline, (
                "the service did not start: " + logs[-1].read_text(errors="replace")[-3000:]
            )
            time.sleep(0.05)  # it is ready about a second after the start: no need to wait longer

    start.started = started  # type: ignore[attr-defined]
    start.logs = logs  # type: ignore[attr-defined]
    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(60)  # bluemoon: up to 15 s for its children, then up to 15 s for Redis
    if getattr(request.node, "call_failed", False):  # a failure seen in CI is read from its report
        for log in logs:
            print(f"--- {log.name}, its last 6000 characters ---\n{log.read_text(errors='replace')[-6000:]}")


@pytest.fixture
def server(start_service) -> str:
    """The service with its default settings (no reviews worker)."""
    return start_service()


@pytest.fixture
def reviewing_server(start_service) -> str:
    """The service with its default settings and a reviews worker, as the Procfile runs it."""
    return start_service(review_workers=1)


def signed_in_session(base: str, log: Path, email: str) -> str:
    """Sign in as a person would on a service without SMTP (the link is in its log); returns
    the page's session cookie's value."""
    status, _ = call(base, "POST", "/auth/email-link", {"email": email})
    assert status == 202
    deadline = time.monotonic() + 10
    while not (found := re.findall(r"/signin\?token=(bml_[\w-]+)", log.read_text(errors="replace"))):
        assert time.monotonic() < deadline, "the sign-in link was not logged"
        time.sleep(0.1)
    request = urllib.request.Request(
        base + "/auth/email-link/use",
        data=json.dumps({"token": found[-1]}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return re.search(r"bm_session=([^;]+)", response.headers["Set-Cookie"]).group(1)  # type: ignore[union-attr]


def personal_token(base: str, log: Path, email: str) -> str:
    """Sign in (signed_in_session), then make a personal access token from the page's session;
    returns the token."""
    session = signed_in_session(base, log, email)
    status, made = call(
        base, "POST", "/me/tokens", {"name": "e2e"}, headers={"Cookie": f"bm_session={session}", "Origin": base}
    )
    assert status == 201, made
    return made["token"]
