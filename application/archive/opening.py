"""The archive this process uses: ``ARCHIVE_URL``, else an SQLite file beside the embedded Redis's
data (``BLUEMOON_DATA``), so that the README's two commands still run everything. Opened once a
process; a wrong URL or an archive that does not answer stops the start with ArchiveUnavailable,
which says what is wrong (no game is moved while the archive cannot confirm a write)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from application.settings import ARCHIVE_URL, BLUEMOON_DATA
from events.archive import Archive

_opened: dict[str, Archive] = {}
_lock = threading.Lock()


def archive_url() -> str:
    """ARCHIVE_URL, else ``sqlite:///<BLUEMOON_DATA>/archive.sqlite3`` (the folder made if need be)."""
    url = ARCHIVE_URL.read()
    if url:
        return url
    folder = Path(BLUEMOON_DATA.read()).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'archive.sqlite3'}"


def opened(url: str | None = None) -> Archive:
    """The archive at ``url`` (by default ``archive_url()``), opened once a process."""
    url = url or archive_url()
    with _lock:
        if url not in _opened:
            _opened[url] = Archive(url)
        return _opened[url]


def _after_fork() -> None:
    """A forked child (an RQ job) opens connections of its own, never the parent's."""
    for archive in _opened.values():
        archive.engine.dispose(close=False)


os.register_at_fork(after_in_child=_after_fork)
