"""Run the whole service on one machine: ``bluemoon`` (or ``python -m cli.bluemoon``).

Starts an embedded redis-server unless REDIS_URL (or both STORE_URL and QUEUE_URL) is set, the web process (gunicorn, the
Procfile's ``web`` line) and the worker processes (the ``worker`` line: turns and the outbox
dispatcher; the ``deliveries`` line: webhooks and turn alerts; the ``reviews`` line: games'
reviews, seconds of CPU each, at a lower priority), and supervises them:
a child that exits is started again after a back-off that doubles from 0.5 s to 10 s (and
resets once it has run 30 s), with a log line each time. The embedded redis-server restarts
on the same port and data folder, so its append-only file replays every acknowledged write.
``bluemoon`` gives up, stopping the rest and exiting 1, only when one child fails to stay up
more than ``--give-up`` times in a row; Ctrl-C or SIGTERM stops everything and exits 0.
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from application import settings

log = logging.getLogger("bluemoon.run")
STEADY = 30.0  #: seconds a child must run for its failures to be forgotten
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 10.0


@dataclass
class Child:
    """One supervised process and its restart bookkeeping."""

    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    failures: int = 0  #: exits in a row, each before it had run STEADY seconds
    restart_at: float = 0.0

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(self.argv, env=env)
        self.started = time.monotonic()
        log.info("started %s (pid %d)", self.name, self.process.pid)

    def exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def stop(self) -> None:
        stop_together([self])


#: seconds the children get, together, to finish after SIGTERM before they are killed: a web
#: worker's open requests, a bot turn under way; a review (CPU for tens of seconds) is abandoned
#: and taken again later (REVIEW_ATTEMPTS)
STOP_SECONDS = 15.0


def stop_together(children: list[Child]) -> None:
    """SIGTERM to every child at once, then wait for all of them within one STOP_SECONDS,
    killing whoever is left. One at a time, each child's wait added up: a busy reviews worker
    (RQ's warm shutdown waits for its job) and the turn worker took over 30 s to stop."""
    running = [c.process for c in children if c.process is not None and c.process.poll() is None]
    for process in running:
        process.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for process in running:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def commands(
    port: int, web_workers: int, bot_workers: int, delivery_workers: int = 1, review_workers: int = 1
) -> list[Child]:
    web = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "python:service.gunicorn_conf",
        "--workers",
        str(web_workers),
        "--bind",
        f"127.0.0.1:{port}",
    ]
    worker = [sys.executable, "-m", "cli.bluemoon_worker", "--queues"]
    return (
        [Child("web", web)]
        + [Child(f"worker-{i + 1}", [*worker, "turns"]) for i in range(bot_workers)]
        + [Child(f"deliveries-{i + 1}", [*worker, "deliveries"]) for i in range(delivery_workers)]
        + [Child(f"reviews-{i + 1}", [*worker, "reviews"]) for i in range(review_workers)]
    )


def embedded_redis() -> tuple[Child, str]:
    """The embedded redis-server as a supervised child, on a fixed port in its data folder
    (written beside the data so other local processes find it)."""
    from events.embedded import free_port, server_argv

    folder = Path(settings.BLUEMOON_DATA.read()).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    (folder / "embedded.port").write_text(str(port))
    return Child("redis", server_argv(folder, port, binary=settings.REDIS_SERVER.read())), f"redis://127.0.0.1:{port}/0"


def metrics_folder() -> str:
    """The folder the children keep their metrics in (application/telemetry/metrics.py):
    PROMETHEUS_MULTIPROC_DIR, emptied of an earlier run's files as prometheus-client requires,
    else a new temporary one, removed when ``bluemoon`` exits."""
    given = settings.PROMETHEUS_MULTIPROC_DIR.read()
    if not given:
        made = tempfile.mkdtemp(prefix="bluemoon-metrics-")
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        return made
    Path(given).mkdir(parents=True, exist_ok=True)
    for old in Path(given).glob("*.db"):
        old.unlink()
    return given


def supervise(children: list[Child], env: dict[str, str], give_up: int, stopping: list[bool]) -> int:
    """Keep every child running until asked to stop (0) or one keeps failing (1)."""
    while not stopping:
        now = time.monotonic()
        for child in children:
            status = child.exited()
            if status is not None:
                ran = now - child.started
                child.failures = 1 if ran >= STEADY else child.failures + 1
                if child.failures > give_up:
                    log.error(
                        "%s exited with status %s %d times in a row; giving up", child.name, status, child.failures
                    )
                    return 1
                pause = min(FIRST_PAUSE * 2 ** (child.failures - 1), LONGEST_PAUSE)
                log.warning(
                    "%s exited with status %s after %.1f s; restarting in %.1f s", child.name, status, ran, pause
                )
                child.process, child.restart_at = None, now + pause
            if child.process is None and now >= child.restart_at:
                child.start(env)
        time.sleep(0.1)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=settings.PORT.read())
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--bot-workers", type=int, default=1, help="processes playing bot and deadline turns")
    parser.add_argument("--delivery-workers", type=int, default=1, help="processes sending webhooks and turn alerts")
    parser.add_argument("--review-workers", type=int, default=1, help="processes reviewing finished games")
    parser.add_argument("--give-up", type=int, default=8, help="failures in a row after which bluemoon stops")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s bluemoon %(levelname)s %(message)s")
    from application.archive.opening import opened
    from events.archive import ArchiveUnavailable

    try:  # before anything starts: a game must never move to an archive that cannot take it
        opened()
    except ArchiveUnavailable as error:
        print(f"bluemoon: {error}", file=sys.stderr, flush=True)
        return 2
    children = commands(args.port, args.web_workers, args.bot_workers, args.delivery_workers, args.review_workers)
    url = settings.REDIS_URL.read()
    if not url and not (settings.STORE_URL.read() and settings.QUEUE_URL.read()):
        from events.embedded import wait_for

        redis_child, url = embedded_redis()
        redis_child.start(dict(os.environ))
        assert redis_child.process is not None
        wait_for(int(url.rsplit(":", 1)[1].split("/")[0]), redis_child.process)
        children.insert(0, redis_child)
    env = {**os.environ, "REDIS_URL": url} if url else dict(os.environ)
    env["PROMETHEUS_MULTIPROC_DIR"] = metrics_folder()
    from application.redis_checks import UnsafeRedis, refuse_unsafe_redis

    try:
        refuse_unsafe_redis(settings.STORE_URL.read() or url)
    except UnsafeRedis as error:
        print(f"bluemoon: {error}", file=sys.stderr, flush=True)
        for child in children:
            child.stop()
        return 2
    stopping: list[bool] = []

    def stop(*_: object) -> None:
        stopping.append(True)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(
        f"Blue Moon City on http://127.0.0.1:{args.port}/ (play in the browser there; the API's docs at /docs), "
        f"Redis at {url}",
        flush=True,
    )
    try:
        return supervise(children, env, args.give_up, stopping)
    finally:  # Redis last, so the others can finish their writes
        stop_together([c for c in children if c.name != "redis"])
        stop_together([c for c in children if c.name == "redis"])


if __name__ == "__main__":
    raise SystemExit(main())
