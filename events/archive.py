"""The archive of finished games: what Redis held of a game, kept in SQL once the game is over.

A finished game's log never changes again, and memory is the dearest place to keep it. The
archive holds, per game, its events (each stream entry's fields, as Redis had them), its
settings and records (meta, webhooks, seats' accounts, clock, commands, ratings, rematch,
webhook logs: each as Redis had it), its index summary and listing entry, and the owners of
its seat tokens. Nothing in it changes once written but the index summary (a projection, which
the index's rebuild completes): a game is put once, in one transaction, and a second put of the
same game writes nothing (application/archive/ moves games here).

SQLAlchemy Core on any URL it takes: an SQLite file by default (``ARCHIVE_URL``), PostgreSQL
through psycopg 3 in production (``postgresql+psycopg://...``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, SQLAlchemyError

METADATA = sa.MetaData()

GAMES = sa.Table(
    "archived_games",
    METADATA,
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("listing", sa.String(96), nullable=False, index=True),  #: ``<creation ms>:<game>`` (events/projection.py)
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),  #: the index summary, JSON, as Redis had it
    sa.Column("parts", sa.Text, nullable=False),  #: JSON: each of the game's records by its key's last part
    sa.Column("archived_ms", sa.BigInteger, nullable=False),
)
EVENTS = sa.Table(
    "archived_events",
    METADATA,
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("fields", sa.Text, nullable=False),  #: the stream entry's fields, JSON
)
TOKENS = sa.Table(
    "archived_tokens",
    METADATA,
    sa.Column("token", sa.String(64), primary_key=True),  #: the seat token's SHA-256
    sa.Column("owner", sa.String(96), nullable=False),  #: ``game:seat``
)


class ArchiveUnavailable(Exception):
    """The archive's URL is wrong, or the archive does not answer: said in words an operator acts on."""


@dataclass(frozen=True)
class ArchivedGame:
    """Everything of one game the archive keeps."""

    game: str
    listing: str
    version: int
    summary: str
    parts: dict[str, Any]
    events: list[dict[str, str]]  #: each stream entry's fields, in order from seq 1
    tokens: dict[str, str] = field(default_factory=dict)  #: token digest -> ``game:seat``


def shown(url: str) -> str:
    """``url`` without its password, for messages."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a URL)"


class Archive:
    """One archive (a database): put a finished game once, read it back as Redis had it."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            options: dict[str, Any] = {"pool_pre_ping": True}
            if url.startswith("sqlite"):
                options["connect_args"] = {"timeout": 30}  # several processes write one file
            self.engine = sa.create_engine(url, **options)
        except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as error:
            raise ArchiveUnavailable(
                f"ARCHIVE_URL {shown(url)!r} is not a database URL SQLAlchemy can use ({error}); "
                "give sqlite:///path/archive.sqlite3 or postgresql+psycopg://user:password@host/database"
            ) from error
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            _create_tables(self.engine)
        except SQLAlchemyError as error:
            cause = getattr(error, "orig", None) or error  # the driver's own words, when it has some
            raise ArchiveUnavailable(
                f"the archive at ARCHIVE_URL {shown(url)!r} cannot be reached or written: "
                f"{cause.__class__.__name__}: {str(cause).strip().splitlines()[0]}"
            ) from error
        self._parts: dict[str, dict[str, Any]] = {}  #: a few archived games' parts (they never change)
        self._lock = threading.Lock()

    # -- writing ------------------------------------------------------------------------------

    def put(self, found: ArchivedGame, at_ms: int) -> bool:
        """Keep ``found``, all of it or nothing, committed when this returns; False (and nothing
        written) when the game is in the archive already: a move repeated after a crash. Any other
        failure raises, with nothing written."""
        try:
            with self.engine.begin() as connection:
                if connection.execute(sa.select(GAMES.c.game).where(GAMES.c.game == found.game)).first():
                    return False
                connection.execute(
                    GAMES.insert().values(
                        game=found.game,
                        listing=found.listing,
                        version=found.version,
                        summary=found.summary,
                        parts=json.dumps(found.parts, sort_keys=True),
                        archived_ms=at_ms,
                    )
                )
                if found.events:
                    connection.execute(
                        EVENTS.insert(),
                        [
                            {"game": found.game, "seq": seq, "fields": json.dumps(fields)}
                            for seq, fields in enumerate(found.events, 1)
                        ],
                    )
                for token, owner in found.tokens.items():
                    connection.execute(TOKENS.insert().values(token=token, owner=owner))
        except IntegrityError:
            if self.version(found.game) == found.version:  # another mover put it first, between our look and insert
                return False
            raise  # nothing was written: the move stops, and Redis keeps the game
        return True

    # -- reading ------------------------------------------------------------------------------

    def has(self, game: str) -> bool:
        return self.parts(game) is not None

    def parts(self, game: str) -> dict[str, Any] | None:
        """The game's records by name (``meta``, ``webhooks``, ``accounts``, ``clock``,
        ``commands``, ``ratings``, ``rematch``, ``webhook-log:<id>``), or None when not archived."""
        kept = self._parts.get(game)
        if kept is not None:
            return kept
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(GAMES.c.parts).where(GAMES.c.game == game)).first()
        if row is None:
            return None
        found: dict[str, Any] = json.loads(row[0])
        with self._lock:
            self._parts[game] = found
            while len(self._parts) > 256:
                self._parts.pop(next(iter(self._parts)))
        return found

    def events(self, game: str, after: int = 0, until: int | None = None) -> list[dict[str, str]]:
        """The stream entries' fields with after < seq <= until, in order."""
        query = sa.select(EVENTS.c.fields).where(EVENTS.c.game == game, EVENTS.c.seq > after)
        if until is not None:
            query = query.where(EVENTS.c.seq <= until)
        with self.engine.connect() as connection:
            return [json.loads(row[0]) for row in connection.execute(query.order_by(EVENTS.c.seq))]

    def version(self, game: str) -> int:
        with self.engine.connect() as connection:
            found = connection.execute(sa.select(GAMES.c.version).where(GAMES.c.game == game)).first()
        return 0 if found is None else int(found[0])

    def owners(self, tokens: Iterable[str]) -> dict[str, str]:
        """token digest -> ``game:seat`` for each archived one of ``tokens``."""
        wanted = list(tokens)
        if not wanted:
            return {}
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(TOKENS.c.token, TOKENS.c.owner).where(TOKENS.c.token.in_(wanted)))
            return {str(row[0]): str(row[1]) for row in rows}

    def summaries(self, games: Iterable[str]) -> dict[str, str]:
        """game -> its index summary (JSON) for each archived one of ``games``."""
        wanted = list(games)
        if not wanted:
            return {}
        with self.engine.connect() as connection:
            rows = connection.execute(sa.select(GAMES.c.game, GAMES.c.summary).where(GAMES.c.game.in_(wanted)))
            return {str(row[0]): str(row[1]) for row in rows}

    def summaries_from(self, after: str, limit: int) -> list[tuple[str, str]]:
        """(game, summary JSON) of the ``limit`` archived games named after ``after``, by name: every
        archived game, a page at a time (the index's rebuild looks at each)."""
        query = sa.select(GAMES.c.game, GAMES.c.summary).where(GAMES.c.game > after)
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(GAMES.c.game).limit(limit))
            return [(str(row[0]), str(row[1])) for row in rows]

    def resummarise(self, game: str, summary: str) -> None:
        """Replace a game's index summary: the one thing of an archived game that changes, as the
        index is a projection of the game's events, rebuilt when it gains a field."""
        with self.engine.begin() as connection:
            connection.execute(GAMES.update().where(GAMES.c.game == game).values(summary=summary))

    def listing(self, before: str | None, limit: int) -> list[str]:
        """The ``limit`` newest listing entries older than ``before`` (all archived games are finished)."""
        query = sa.select(GAMES.c.listing)
        if before is not None:
            query = query.where(GAMES.c.listing < before)
        with self.engine.connect() as connection:
            return [row[0] for row in connection.execute(query.order_by(GAMES.c.listing.desc()).limit(limit))]

    def count(self) -> int:
        with self.engine.connect() as connection:
            return int(connection.execute(sa.select(sa.func.count()).select_from(GAMES)).scalar_one())

    def close(self) -> None:
        self.engine.dispose()


WAL_WAIT = 30.0  #: seconds a new SQLite archive may take to be switched to WAL while others open it
#: the advisory lock (a number of this application's choosing) that creating the tables takes on PostgreSQL
SCHEMA_LOCK = 0x626C75656D6F6F6E  # "bluemoon"


def _create_tables(engine: sa.Engine) -> None:
    """The tables and indexes this archive lacks, safe when every web and job worker opens a new
    archive at the same moment (they all do as they start). Checking, then creating, as
    ``create_all`` does, fails there: two processes both find no table and the second CREATE
    fails ("already exists"). ``IF NOT EXISTS`` is one atomic statement in SQLite; PostgreSQL's
    is not safe against a concurrent one of the same name (the second fails on its catalogue's
    unique index), so there the creators also take a lock, held to the transaction's end."""
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
        for table in METADATA.sorted_tables:
            connection.execute(sa.schema.CreateTable(table, if_not_exists=True))
            for index in sorted(table.indexes, key=lambda i: i.name or ""):
                connection.execute(sa.schema.CreateIndex(index, if_not_exists=True))


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    """WAL: readers never wait for the mover's write, and a commit is on disk when it returns.
    The file keeps WAL once set. Setting it needs the file to itself, and SQLite answers "database
    is locked" at once, busy timeout or not, while another process opens the new file too (every
    worker does as it starts): so it is tried again, for up to WAL_WAIT seconds."""
    cursor = connection.cursor()
    deadline = time.monotonic() + WAL_WAIT
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()
