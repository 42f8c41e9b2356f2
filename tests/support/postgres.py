"""A throwaway PostgreSQL for the archive's tests: Debian's ``postgresql`` (``.ci/run`` installs it),
a cluster made by ``initdb`` in a temporary folder and started by ``pg_ctl`` on a free port, as
``redis-server`` is started for the run; as the ``postgres`` user when the tests run as root
(PostgreSQL refuses to run as root). Started once a session; a PostgreSQL that cannot be started
fails the tests that need it, saying why: nothing is skipped."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def _program(name: str) -> str:
    """``name`` from PATH, else from Debian's versioned folder."""
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.fail(f"PostgreSQL's {name} is not installed: apt-get install postgresql (.ci/run does)")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_owner(command: list[str]) -> list[str]:
    """``command`` as the ``postgres`` user when this process is root."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A SQLAlchemy URL of a fresh PostgreSQL database, stopped and removed after the session."""
    folder = Path(tempfile.mkdtemp(prefix="bluemoon-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
    made = subprocess.run(
        _as_owner([initdb, "-D", str(data), "-A", "trust", "-U", "bluemoon", "--no-sync"]),
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.fail(f"initdb could not make a PostgreSQL cluster: {made.stderr.strip()}")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    started = subprocess.run(
        _as_owner([pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "-t", "30", "start"]),
        capture_output=True,
        text=True,
    )
    if started.returncode != 0:
        log = (folder / "log").read_text() if (folder / "log").exists() else ""
        pytest.fail(f"PostgreSQL did not start: {started.stderr.strip()} {log[-2000:]}")
    try:
        yield f"postgresql+psycopg://bluemoon@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_owner([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def database(postgres_url: str, name: str) -> str:
    """A new, empty database ``name`` on the session's PostgreSQL (dropped first if a test made it
    before); its SQLAlchemy URL."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as db:
        db.execute(sqlalchemy.text(f'DROP DATABASE IF EXISTS "{name}"'))
        db.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return postgres_url.rsplit("/", 1)[0] + "/" + name
