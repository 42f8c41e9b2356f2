"""The archive of finished games (events/archive.py) keeps what it is given, once, and reads it back
as it was: on SQLite (the default) and on a real PostgreSQL (production's), the same tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import fakeredis
import pytest
import sqlalchemy as sa

from events.archive import GAMES, Archive, ArchivedGame, ArchiveUnavailable
from service.app import create_app
from tests.support.postgres import database, free_port


@pytest.fixture(params=["sqlite", "postgresql"])
def archive(request, tmp_path):
    """An empty archive: an SQLite file of the test's own, or the session's PostgreSQL emptied."""
    url = (
        f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    found = Archive(url)
    _emptied(found)
    yield found
    _emptied(found)
    found.close()


def _emptied(archive: Archive) -> None:
    with archive.engine.begin() as connection:
        for table in reversed(GAMES.metadata.sorted_tables):
            connection.execute(table.delete())


def _game(game: str, created_ms: int, events: int = 3) -> ArchivedGame:
    return ArchivedGame(
        game,
        f"{created_ms:013d}:{game}",
        events,
        json.dumps({"game": game, "status": "finished", "version": events}),
        {"meta": {"seats": "[]"}, "commands": {"0:k": "h|1|2"}, "ratings": None, "tokens": [f"t-{game}"]},
        [{"type": "E", "seq": str(seq), "data": "{ü}"} for seq in range(1, events + 1)],
        {f"t-{game}": f"{game}:0"},
    )


def test_a_game_is_kept_once_and_read_back_as_it_was_given(archive):
    given = _game("g1", 1_700_000_000_000)
    assert archive.put(given, at_ms=1) is True
    assert archive.put(_game("g1", 1_700_000_000_000, events=5), at_ms=2) is False  # a move run again writes nothing
    assert archive.count() == 1 and archive.version("g1") == 3
    assert archive.parts("g1") == given.parts
    assert archive.events("g1") == given.events
    assert [e["seq"] for e in archive.events("g1", after=1, until=2)] == ["2"]
    assert archive.owners(["t-g1", "t-other"]) == {"t-g1": "g1:0"}
    assert archive.summaries(["g1", "g2"]) == {"g1": given.summary}
    assert archive.parts("g2") is None and archive.version("g2") == 0 and archive.events("g2") == []


def test_the_listing_pages_newest_first_from_a_cursor(archive):
    for n, game in enumerate(["a", "b", "c"]):
        archive.put(_game(game, 1_700_000_000_000 + n), at_ms=0)
    newest = archive.listing(None, 2)
    assert [entry.split(":")[1] for entry in newest] == ["c", "b"]
    assert [entry.split(":")[1] for entry in archive.listing(newest[-1], 2)] == ["a"]


def test_a_put_is_all_or_nothing_and_a_failed_one_says_so(archive):
    """A game whose last row cannot be written (its seat token is someone else's already) leaves
    nothing behind and raises: the move stops there, and Redis keeps the game."""
    with archive.engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO archived_tokens (token, owner) VALUES ('t-g3', 'x:0')"))
    with pytest.raises(sa.exc.IntegrityError):
        archive.put(_game("g3", 1_700_000_000_000), at_ms=0)
    assert archive.parts("g3") is None and archive.events("g3") == [] and archive.count() == 0


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("nonsense", "not a database URL"),
        ("mysql+nosuchdriver://x@localhost/db", "not a database URL"),
        ("sqlite:////no/such/folder/archive.sqlite3", "cannot be reached or written"),
    ],
)
def test_a_wrong_archive_url_is_refused_saying_what_is_wrong(url, said):
    with pytest.raises(ArchiveUnavailable, match=said) as refused:
        Archive(url)
    assert "ARCHIVE_URL" in str(refused.value)


def test_an_unreachable_postgresql_is_refused_without_showing_its_password():
    url = f"postgresql+psycopg://bluemoon:secret@127.0.0.1:{free_port()}/postgres"
    with pytest.raises(ArchiveUnavailable, match="cannot be reached or written") as refused:
        Archive(url)
    assert "secret" not in str(refused.value) and "127.0.0.1" in str(refused.value)


def test_the_service_does_not_start_on_an_archive_it_cannot_use(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCHIVE_URL", f"sqlite:///{tmp_path}/missing/folder/archive.sqlite3")
    with pytest.raises(ArchiveUnavailable, match="ARCHIVE_URL"):
        create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "RATE_LIMIT": 0})


@pytest.mark.slow
@pytest.mark.parametrize("program", ["cli.bluemoon", "cli.bluemoon_worker"])
def test_the_supervisor_and_the_worker_refuse_to_start_on_a_wrong_archive(program, tmp_path):
    """Before Redis or any job starts: exit 2, and a message naming the setting and what failed.
    Slow (about 2 s each): each program is started as a process of its own."""
    env = {**os.environ, "ARCHIVE_URL": "postgres://bluemoon@/nowhere-but-not-a-driver", "BLUEMOON_DATA": str(tmp_path)}
    ran = subprocess.run([sys.executable, "-m", program], env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2, ran.stderr
    assert "ARCHIVE_URL" in ran.stderr and "not a database URL" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_processes_starting_together_on_a_new_database_all_open_the_archive(dialect, request, tmp_path):
    """The web workers and the job workers start at once on a new database (compose up, CI
    2026-11-29): each created the tables it did not find, and two CREATE TABLEs of one name at
    once failed ("already exists"; on PostgreSQL a duplicate ``pg_type`` key), which stopped a web
    worker from booting and gunicorn with it. Eight openers at once on five new databases: all
    open it (with ``create_all``, 126 of 160 SQLite openers and 7 of the first 8 PostgreSQL ones
    failed)."""
    for round_ in range(5):
        if dialect == "sqlite":
            url = f"sqlite:///{tmp_path / f'archive-{round_}.sqlite3'}"
        else:
            url = database(request.getfixturevalue("postgres_url"), f"archive_race_{round_}")
        failures = _open_together(url, 8)
        assert failures == [], failures


def _open_together(url: str, openers: int) -> list[str]:
    """Open the archive at ``url`` from ``openers`` threads at the same moment: what failed."""
    start, failures, opened = threading.Barrier(openers), [], []

    def open_it() -> None:
        start.wait()
        try:
            opened.append(Archive(url))
        except ArchiveUnavailable as error:
            failures.append(str(error))

    threads = [threading.Thread(target=open_it) for _ in range(openers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for archive in opened:
        archive.close()
    assert len(opened) + len(failures) == openers
    return failures
