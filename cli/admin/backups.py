"""``bluemoon-admin backup DIR`` (``--verify``) and ``bluemoon-admin restore DIR``: the data
stores as one folder (application/admin/backups.py; docs/operations.md, "Backups")."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from application.admin import backups
from application.admin.archive_backups import ArchiveBackupError, ArchivePart
from application.admin.redis_snapshots import SnapshotError
from application.archive import opening
from application.settings import REDIS_SERVER
from application.wiring import store_url
from cli.admin.common import Answer, Refused, command


def add(groups: Any) -> None:
    backup = command(groups, "backup", backed_up, "copy Redis (every primary) and the archive into a new folder")
    backup.add_argument("folder", type=Path)
    backup.add_argument("--verify", action="store_true", help="check an existing backup instead of making one")
    restore = command(groups, "restore", restored, "put a backup back into an empty Redis and archive")
    restore.add_argument("folder", type=Path)
    for parser in (backup, restore):
        parser.add_argument(
            "--archive", help="the archive's URL (default: the service's, ARCHIVE_URL or its SQLite file)"
        )


def archive_url(given: str | None) -> str:
    """The archive to back up or restore: ``--archive``, else the service's own (ARCHIVE_URL, else
    the SQLite file beside the embedded Redis: application/archive/opening.py)."""
    return given or opening.archive_url()


def parts(args: argparse.Namespace) -> list[backups.Part]:
    try:
        found: list[backups.Part] = [backups.RedisPart(store_url(), scratch_server=REDIS_SERVER.read())]
        archive = archive_url(args.archive)
        return [*found, ArchivePart(archive)] if archive else found
    except (SnapshotError, ArchiveBackupError) as error:
        raise Refused(str(error)) from error


def _said(manifest: dict[str, Any]) -> list[str]:
    lines = []
    for name, entry in manifest["parts"].items():
        if name == "redis":
            for node in entry["nodes"]:
                lines.append(f"redis {node['node']}: {node['file']}, {node['keys']} keys, {node['games']} games")
        else:
            lines.append(f"{name}: {entry['file']} ({entry['dialect']}) {entry.get('tables', '')}".rstrip())
    return lines


def backed_up(args: argparse.Namespace) -> Answer:
    try:
        if args.verify:
            manifest = backups.verify(args.folder, REDIS_SERVER.read())
            return Answer(manifest, [f"{args.folder}: a whole, readable backup", *_said(manifest)])
        manifest = backups.backup(args.folder, parts(args))
    except backups.BackupError as error:
        raise Refused("\n".join(error.problems)) from error
    return Answer(manifest, [f"{args.folder}: backed up in {manifest['seconds']} s", *_said(manifest)])


def restored(args: argparse.Namespace) -> Answer:
    try:
        done = backups.restore(args.folder, parts(args), REDIS_SERVER.read())
    except backups.BackupError as error:
        raise Refused("\n".join(error.problems)) from error
    said = {name: ", ".join(f"{key} {value}" for key, value in what.items()) for name, what in done.items()}
    return Answer(done, [f"{args.folder}: restored", *(f"{name}: {what}" for name, what in said.items())])
