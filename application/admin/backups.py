"""Backups that restore: one folder holding a copy of every data store, and its manifest.

Each data store is a *part* with the same four steps: ``backup`` (copy it into the folder and
say what was written), ``problems`` (is the copy whole and readable? from the folder alone, so a
backup can be checked anywhere), ``target_problems`` (may it be put back here now? the target
must be empty) and ``restore``. Redis is one part (every primary of a cluster: redis_snapshots.py)
and the archive of finished games another (archive_backups.py); a new store is a new part.

``manifest.json`` is written last: a folder without one is a backup that did not finish. A
restore checks every part and every target before it writes anything, and a failure after that
says that the target is partly restored (never silently).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse, urlunparse

from application.admin import redis_snapshots as snapshots
from application.admin.archive_backups import ArchiveBackupError, ArchivePart
from application.wiring import connect
from events import keys

MANIFEST = "manifest.json"
FORMAT = 1  #: the manifest's format; a restore refuses another


class BackupError(Exception):
    """A backup cannot be made, read or restored; ``problems`` lists every reason."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class Part(Protocol):
    name: str

    def backup(self, folder: Path) -> dict[str, Any]: ...

    def target_problems(self, entry: dict[str, Any] | None) -> list[str]: ...

    def restore(self, folder: Path, entry: dict[str, Any]) -> dict[str, Any]: ...


def _node_url(url: str, host: str, port: int) -> str:
    """``url`` (with its password) pointed at another node."""
    parsed = urlparse(url)
    auth = parsed.netloc.rpartition("@")[0]
    return urlunparse(parsed._replace(netloc=f"{auth + '@' if auth else ''}{host}:{port}"))


def _counted(folder: Path, node: dict[str, Any], scratch_server: str) -> dict[str, int]:
    """The keys and games of a primary's snapshot, loaded into a scratch server (which proves it readable)."""
    binary = snapshots.scratch_binary(node["redis_version"], scratch_server)
    with snapshots.loaded(folder / node["file"], binary) as scratch:
        games = sum(1 for _ in scratch.scan_iter(match=keys.STREAMS, count=1000))
        return {"keys": int(scratch.dbsize()), "games": games}


class RedisPart:
    """The store's Redis (STORE_URL): a single Redis, or every primary of a cluster."""

    name = "redis"

    def __init__(self, url: str, client: Any = None, scratch_server: str = "") -> None:
        """``client``: the store's (by default one connected to ``url``, once it is a plain redis:// URL)."""
        if client is None and url:
            snapshots.plain(url)
            client = connect(url)
        self.url, self.client = url, client
        self.scratch_server = scratch_server  #: REDIS_SERVER: the redis-server that loads snapshots

    def backup(self, folder: Path) -> dict[str, Any]:
        nodes = []
        for i, primary in enumerate(snapshots.primaries(self.client)):
            address = primary.connection_pool.connection_kwargs
            file = f"redis-{i}.rdb"
            fetched = snapshots.fetch(_node_url(self.url, address["host"], address["port"]), folder / file)
            nodes.append({"file": file, "node": f"{address['host']}:{address['port']}", **fetched})
        entry = {"cluster": hasattr(self.client, "get_primaries"), "layout": keys.LAYOUT, "nodes": nodes}
        for node in nodes:  # load each snapshot once now: a backup proven readable, and its counts
            node.update(_counted(folder, node, self.scratch_server))
        return entry

    @staticmethod
    def problems(folder: Path, entry: dict[str, Any], scratch_server: str = "") -> list[str]:
        found = []
        if entry.get("layout") != keys.LAYOUT:
            found.append(f"the backup's key layout is {entry.get('layout')}, this release's is {keys.LAYOUT}")
        for node in entry["nodes"]:
            file = folder / node["file"]
            if not file.is_file():
                found.append(f"{node['file']} (of {node['node']}) is missing")
            elif file.stat().st_size != node["bytes"] or snapshots.sha256_of(file) != node["sha256"]:
                found.append(f"{node['file']} (of {node['node']}) is not the file the backup wrote: it is damaged")
            else:
                try:
                    counted = _counted(folder, node, scratch_server)
                except snapshots.SnapshotError as error:
                    found.append(str(error))
                    continue
                if counted != {"keys": node["keys"], "games": node["games"]}:
                    found.append(f"{node['file']} loads {counted}, the backup counted {node['keys']} keys")
        return found

    def target_problems(self, entry: dict[str, Any] | None) -> list[str]:
        held = snapshots.key_count(self.client)
        if held:
            return [f"the Redis at {self.url} holds {held} keys: restore into an empty one (a new server, or FLUSHALL)"]
        running = snapshots.server_version(self.client)
        problems = []
        for node in (entry or {}).get("nodes", []):
            try:
                snapshots.scratch_binary(node["redis_version"], self.scratch_server, at_most=running)
            except snapshots.SnapshotError as error:
                problems.append(f"{node['file']}: {error}")
        return problems

    def restore(self, folder: Path, entry: dict[str, Any]) -> dict[str, Any]:
        restored = 0
        for node in entry["nodes"]:
            running = snapshots.server_version(self.client)
            binary = snapshots.scratch_binary(node["redis_version"], self.scratch_server, at_most=running)
            with snapshots.loaded(folder / node["file"], binary) as scratch:
                restored += snapshots.copy_keys(scratch, self.client)
        expected = sum(node["keys"] for node in entry["nodes"])
        if restored != expected:
            raise snapshots.SnapshotError(f"restored {restored} keys, the backup holds {expected}")
        return {"keys": restored, "games": sum(node["games"] for node in entry["nodes"])}


def _manifest(folder: Path) -> dict[str, Any]:
    file = folder / MANIFEST
    if not file.is_file():
        raise BackupError([f"{folder} has no {MANIFEST}: it is not a backup, or one that did not finish"])
    try:
        manifest = json.loads(file.read_text())
    except (ValueError, UnicodeDecodeError) as error:
        raise BackupError([f"{MANIFEST} is not readable JSON: {error}"]) from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or "parts" not in manifest:
        raise BackupError([f"{MANIFEST} is not a backup manifest of format {FORMAT}"])
    return manifest


def backup(folder: Path, parts: list[Part]) -> dict[str, Any]:
    """Copy every part into ``folder`` (new or empty), then write the manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise BackupError([f"{folder} is not empty: a backup goes into a folder of its own"])
    started = time.time()
    try:
        written = {part.name: part.backup(folder) for part in parts}
    except (snapshots.SnapshotError, ArchiveBackupError, OSError) as error:
        raise BackupError([f"the backup failed: {error}"]) from error
    manifest = {"format": FORMAT, "made": started, "seconds": round(time.time() - started, 3), "parts": written}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def verify(folder: Path, scratch_server: str = "") -> dict[str, Any]:
    """The manifest, once every part of the backup in ``folder`` is whole and readable;
    BackupError with every problem found otherwise."""
    manifest = _manifest(folder)
    problems: list[str] = []
    for name, entry in manifest["parts"].items():
        try:
            if name == "redis":
                problems += RedisPart.problems(folder, entry, scratch_server)
            elif name == "archive":
                problems += ArchivePart.problems(folder, entry)
            else:
                problems.append(f"the backup has a part {name!r} this release does not know")
        except (KeyError, TypeError, AttributeError) as error:
            problems.append(f"{MANIFEST}: its {name} part lacks {error} (it was edited, or is of another release)")
    if problems:
        raise BackupError(problems)
    return manifest


def restore(folder: Path, parts: list[Part], scratch_server: str = "") -> dict[str, Any]:
    """Put the backup in ``folder`` back into ``parts`` (each empty), after checking all of it."""
    manifest = verify(folder, scratch_server)
    held, wanted = set(manifest["parts"]), {part.name for part in parts}
    problems = [f"the backup has no {name} part, and one is configured here" for name in sorted(wanted - held)]
    problems += [f"the backup holds a {name} part, and none is configured here" for name in sorted(held - wanted)]
    for part in parts:
        problems += part.target_problems(manifest["parts"].get(part.name))
    if problems:
        raise BackupError(problems)
    done: dict[str, Any] = {}
    for part in parts:
        try:
            done[part.name] = part.restore(folder, manifest["parts"][part.name])
        except Exception as error:  # whatever it was, the operator must hear that the targets are partly restored
            partly = ", ".join(done) or "nothing"
            raise BackupError(
                [
                    f"restoring {part.name} failed: {error}; restored before it: {partly}. The targets are partly "
                    "restored: empty them and restore again"
                ]
            ) from error
    return done
