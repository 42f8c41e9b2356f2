"""Real worker processes (`bluemoon-worker`) started and killed as an operator would, waiting
for what they do, and the check that each bot command was applied once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def gone(pid: int) -> bool:
    """No such process any more (or only its zombie, waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


class Workers:
    """Start and kill worker processes as an operator (or bluemoon's supervisor) would."""

    def __init__(self, url: str, queue: str, logs: Path | None = None) -> None:
        self.url, self.queue, self.procs = url, queue, []
        self.logs = logs  #: a folder for the workers' output (worker-<n>.log), kept to tell why a test failed

    def start(self, queues: str = "turns,deliveries", **env: str) -> subprocess.Popen:
        """One ``bluemoon-worker`` taking ``queues`` (turns, deliveries, or both: the default)."""
        output = (self.logs / f"worker-{len(self.procs)}.log").open("wb") if self.logs else subprocess.DEVNULL
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.bluemoon_worker", "--queue", self.queue, "--queues", queues],
            env={**os.environ, "REDIS_URL": self.url, "BLUEMOON_QUEUE": self.queue, **env},
            start_new_session=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        self.procs.append(proc)
        return proc

    def kill_with_horse(self, proc: subprocess.Popen) -> int:
        """SIGKILL the worker and the work-horse it forked (RQ puts the horse in a process
        group of its own, so killing the worker's group alone would spare it); returns the
        horse's pid once both are gone."""
        horses = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(horses) == 1, f"expected one work-horse busy with the turn, found {horses}"
        horse = int(horses[0])
        os.kill(proc.pid, signal.SIGKILL)
        os.kill(horse, signal.SIGKILL)
        proc.wait()
        wait_until(lambda: gone(horse), 30, "the horse to die")
        return horse

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def wait_until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


#: A worker that may deliver to the tests' receivers on 127.0.0.1, retrying soon.
WORKER_ENV = {"WEBHOOK_ALLOW_HOSTS": "127.0.0.1", "BLUEMOON_WEBHOOK_BACKOFF": "0.4,0.8"}


def assert_each_bot_command_applied_once_at_its_version(service, game):
    """A bot command id names the version it was chosen at; its events must follow it."""
    by_command: dict[str, list[int]] = {}
    for s in service.store.read(game):
        if s.command.startswith("bot:"):
            by_command.setdefault(s.command, []).append(s.seq)
    for command, seqs in by_command.items():
        version = int(command.split(":")[2])
        assert seqs == list(range(version + 1, version + 1 + len(seqs))), command
