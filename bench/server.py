"""Start the processes as the Procfile does, for the benchmarks: the web process (gunicorn with
service/gunicorn_conf.py) serving the service, or bench/bare_app.py as a baseline served the
same way, and a ``bluemoon-worker``; and call the web process over one keep-alive connection."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from application.settings import REDIS_SERVER, REDIS_URL
from events.embedded import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def redis_for(purpose: str = "bench", persist: bool = True) -> Iterator[str]:
    """REDIS_URL if set, else a fresh embedded server (REDIS_SERVER's program, if set) in a
    temporary folder, stopped on exit."""
    if REDIS_URL.read():
        yield REDIS_URL.read()
        return
    server = EmbeddedRedis(tempfile.mkdtemp(prefix=f"bluemoon-{purpose}-"), persist=persist, binary=REDIS_SERVER.read())
    try:
        yield server.url
    finally:
        server.stop()


def serve(app: str, env: dict[str, str], root: Path = ROOT) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn serving ``app`` on a free port, once it answers; ``root``: the checkout whose
    code it runs (another one to compare with)."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:service.gunicorn_conf",
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            app,
        ],
        cwd=root,
        env={**env, "PYTHONPATH": str(root)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/healthz" if "service" in app else "/bare")
                c.getresponse().read()
                return proc, port
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{app} did not start")
    except BaseException:  # not started, or interrupted while starting: nobody else will stop it
        proc.terminate()
        proc.wait(10)
        raise


def start_worker(url: str, queue: str, root: Path = ROOT, queues: str = "") -> subprocess.Popen:
    """One ``bluemoon-worker`` on ``queue`` running ``root``'s code (stop it with
    ``os.killpg(worker.pid, SIGTERM)``); ``queues``: only those (``--queues``, e.g. ``deliveries``
    as the Procfile's delivery worker), else all of them."""
    env = {**os.environ, "REDIS_URL": url, "PYTHONPATH": str(root), "BLUEMOON_QUEUE": queue}
    return subprocess.Popen(
        [sys.executable, "-m", "cli.bluemoon_worker", "--queue", queue, *(["--queues", queues] if queues else [])],
        cwd=root,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """One request on a keep-alive connection, reconnecting once if the server closed it
    while idle."""
    for attempt in (1, 2):
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            conn.close()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")
