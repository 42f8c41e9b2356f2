"""The archive's part of a backup: the database of finished games (ARCHIVE_URL), whatever it is.

SQLite (the default, a file under ``var/``): the sqlite3 backup API copies a consistent snapshot
of the file while the service may be writing to it (a plain file copy could catch half a
transaction), and puts it back the same way, in one transaction of the target.

PostgreSQL (production): ``pg_dump --format=custom`` and ``pg_restore --single-transaction``.
Why not COPY through SQLAlchemy: pg_dump reads every table in one repeatable-read transaction (a
consistent snapshot), and carries the schema, indexes, constraints and sequences as PostgreSQL
itself describes them, so nothing here has to know the archive's tables; pg_restore in one
transaction either restores all of it or nothing, and ``pg_restore --list`` checks a dump's
table of contents without a database.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy.engine import URL, make_url

from application.admin.redis_snapshots import sha256_of

SQLITE_FILE, POSTGRES_FILE = "archive.sqlite3", "archive.pgdump"
#: all of it or nothing; the archive's tables owned by whoever restores (no roles carried over)
RESTORE_OPTIONS = ("pg_restore", "--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges")


class ArchiveBackupError(Exception):
    """The archive could not be copied, checked or put back: the message says why."""


def _url(text: str) -> URL:
    try:
        return make_url(text)
    except sqlalchemy.exc.ArgumentError as error:
        raise ArchiveBackupError(f"the archive's URL {text!r} is not a database URL: {error}") from error


def _libpq(url: URL) -> str:
    """The URL as pg_dump and pg_restore take it (no SQLAlchemy driver name)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def _tables(connection: sqlite3.Connection) -> dict[str, int]:
    names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {name: connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def _run(argv: list[str], what: str) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    except FileNotFoundError as error:
        raise ArchiveBackupError(f"{what} needs {argv[0]} (Debian's postgresql-client)") from error
    if done.returncode != 0:
        raise ArchiveBackupError(f"{what} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done


class ArchivePart:
    """The archive at ``url`` (an SQLAlchemy URL: ``sqlite:///var/archive.sqlite3``,
    ``postgresql+psycopg://...``)."""

    name = "archive"

    def __init__(self, url: str) -> None:
        self.url = _url(url)
        self.dialect = self.url.get_backend_name()
        if self.dialect not in ("sqlite", "postgresql"):
            raise ArchiveBackupError(f"backups know SQLite and PostgreSQL archives, not {self.dialect!r}")

    def backup(self, folder: Path) -> dict[str, Any]:
        if self.dialect == "sqlite":
            source = Path(self.url.database or "")
            if not source.is_file():
                raise ArchiveBackupError(f"the archive {source} does not exist")
            with (
                sqlite3.connect(f"file:{source}?mode=ro", uri=True) as reading,
                sqlite3.connect(folder / SQLITE_FILE) as copy,
            ):
                reading.backup(copy)
                tables = _tables(copy)
            reading.close()
            copy.close()
            file = folder / SQLITE_FILE
            return {"dialect": "sqlite", "file": SQLITE_FILE, "sha256": sha256_of(file), "tables": tables}
        file = folder / POSTGRES_FILE
        _run(["pg_dump", "--format=custom", "--file", str(file), "--dbname", _libpq(self.url)], "pg_dump")
        return {"dialect": "postgresql", "file": POSTGRES_FILE, "sha256": sha256_of(file)}

    @staticmethod
    def problems(folder: Path, entry: dict[str, Any]) -> list[str]:
        """What is wrong with the archive's copy in ``folder`` (nothing: an empty list)."""
        file = folder / entry["file"]
        if not file.is_file():
            return [f"{entry['file']} is missing"]
        if sha256_of(file) != entry["sha256"]:
            return [f"{entry['file']} is not the file the backup wrote (its SHA-256 differs): it is damaged"]
        if entry["dialect"] == "postgresql":
            try:
                _run(["pg_restore", "--list", str(file)], "pg_restore --list")
            except ArchiveBackupError as error:
                return [f"{entry['file']}: {error}"]
            return []
        try:
            with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as copy:
                checked = copy.execute("PRAGMA integrity_check").fetchone()[0]
                tables = _tables(copy)
            copy.close()
        except sqlite3.DatabaseError as error:
            return [f"{entry['file']} is not a readable SQLite database: {error}"]
        if checked != "ok":
            return [f"{entry['file']} fails SQLite's integrity check: {checked}"]
        if tables != entry["tables"]:
            return [f"{entry['file']} holds {tables}, the backup wrote {entry['tables']}"]
        return []

    def target_problems(self, entry: dict[str, Any] | None) -> list[str]:
        """Why the archive may not be restored into now: another kind of database than the
        backup's, or one that holds tables already (a restore never mixes two archives)."""
        if entry is not None and entry["dialect"] != self.dialect:
            return [f"the backup holds a {entry['dialect']} archive, ARCHIVE_URL is {self.dialect}"]
        if self.dialect == "sqlite" and not Path(self.url.database or "").exists():
            return []  # a new file, made by the restore (asking SQLAlchemy would make it now)
        engine = sqlalchemy.create_engine(self.url)
        try:
            held = sqlalchemy.inspect(engine).get_table_names()
        except sqlalchemy.exc.SQLAlchemyError as error:
            return [f"cannot reach the archive: {error}"]
        finally:
            engine.dispose()
        return [f"the archive already holds tables ({', '.join(held)}): restore into an empty one"] if held else []

    def restore(self, folder: Path, entry: dict[str, Any]) -> dict[str, Any]:
        file = folder / entry["file"]
        if self.dialect == "postgresql":
            _run(
                [*RESTORE_OPTIONS, "--dbname", _libpq(self.url), str(file)],
                "pg_restore",
            )
            return {"dialect": "postgresql"}
        target = Path(self.url.database or "")
        target.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(f"file:{file}?mode=ro", uri=True) as copy, sqlite3.connect(target) as restored:
            copy.backup(restored)
            tables = _tables(restored)
        copy.close()
        restored.close()
        if tables != entry["tables"]:
            raise ArchiveBackupError(f"the restored archive holds {tables}, the backup {entry['tables']}")
        return {"dialect": "sqlite", "tables": tables}
