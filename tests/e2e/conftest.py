"""The whole service as processes (``python -m cli.bluemoon``: gunicorn, a worker, the embedded
Redis), reached over real HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from events.embedded import free_port


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


@pytest.fixture
def start_service(tmp_path) -> Iterator[Callable[..., str]]:
    """Start the whole service as the README says (``python -m cli.bluemoon``: gunicorn with
    the Procfile's settings, an RQ worker, the embedded Redis); ``env`` adds variables.
    Returns its base URL; everything is stopped at the end of the test. ``start.started``
    holds the processes and ``start.logs`` their output files (both streams), in order."""
    started: list[subprocess.Popen] = []
    logs: list[Path] = []

    def start(**env: str) -> str:
        port = free_port()
        environ = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        environ.update(BLUEMOON_DATA=str(tmp_path / f"redis-{len(started)}"), **env)
        logs.append(tmp_path / f"service-{len(started)}.log")
        with logs[-1].open("wb") as output:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cli.bluemoon", "--port", str(port)],
                env=environ,
                start_new_session=True,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        started.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if call(base, "GET", "/readyz")[0] == 200:
                    return base
            except (urllib.error.URLError, ConnectionError):
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the service did not start"
            time.sleep(0.2)

    start.started = started  # type: ignore[attr-defined]
    start.logs = logs  # type: ignore[attr-defined]
    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)


@pytest.fixture
def server(start_service) -> str:
    """The service with its default settings."""
    return start_service()
