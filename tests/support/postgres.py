"""A real PostgreSQL server for a test (Debian's ``postgresql``, started as ``redis-server`` is):
a new cluster in a temporary folder, reached over a Unix socket there, stopped at the end. As
root (CI) it runs as the ``postgres`` user, since PostgreSQL refuses to run as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from events.embedded import free_port

BIN = Path("/usr/lib/postgresql/15/bin")


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Postgres:
    """``Postgres()`` starts a server in a folder of its own (pytest's are closed to the
    ``postgres`` user); ``create(db)`` makes a database; ``stop()`` ends it and removes the folder."""

    def __init__(self) -> None:
        assert (BIN / "initdb").exists(), "a PostgreSQL test needs Debian's postgresql (apt-get install postgresql)"
        folder = Path(tempfile.mkdtemp(prefix="bluemoon-pg-"))
        self.folder, self.port = folder, free_port()
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres")
        run = {"check": True, "capture_output": True}
        subprocess.run(
            _as_owner([str(BIN / "initdb"), "-D", str(folder / "data"), "-A", "trust", "-U", "bluemoon"]), **run
        )
        options = f"-p {self.port} -k {folder} -c listen_addresses='' -c fsync=off"
        start = [
            str(BIN / "pg_ctl"),
            "-D",
            str(folder / "data"),
            "-l",
            str(folder / "log"),
            "-o",
            options,
            "-w",
            "start",
        ]
        # the server's output to its log, not to a pipe it would hold open after pg_ctl returns
        subprocess.run(_as_owner(start), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)

    def create(self, database: str) -> str:
        """A new database; its SQLAlchemy URL."""
        subprocess.run(
            [str(BIN / "createdb"), "-h", str(self.folder), "-p", str(self.port), "-U", "bluemoon", database],
            check=True,
            capture_output=True,
        )
        return f"postgresql+psycopg://bluemoon@/{database}?host={self.folder}&port={self.port}"

    def stop(self) -> None:
        subprocess.run(_as_owner([str(BIN / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop"]))
        shutil.rmtree(self.folder, ignore_errors=True)
