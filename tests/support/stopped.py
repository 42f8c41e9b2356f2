"""Stopping a process for a test (SIGSTOP) and knowing it is stopped.

``kill`` returns before the process stops: the kernel hands SIGSTOP to one thread, which
stops every other when it is next scheduled. A low-priority process on a busy machine (the
delivery worker runs at nice 10) can meanwhile run a thread that was already awake, such as
its dispatcher waking from its 0.2 s wait, and claim work the test means to find waiting."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path


def stop(pids: Iterable[int], seconds: float = 10.0) -> None:
    """SIGSTOP each process, then wait until every thread of each is stopped."""
    pids = list(pids)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + seconds
    while running := [pid for pid in pids if not all_threads_stopped(pid)]:
        assert time.monotonic() < deadline, f"processes {running} did not stop within {seconds} s"
        time.sleep(0.005)


def all_threads_stopped(pid: int) -> bool:
    """Whether every thread of ``pid`` is in state T (stopped by a signal)."""
    states = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:  # "pid (comm) S ...": the state follows the last ')' (comm may hold one)
            states.append((task / "stat").read_text().rpartition(")")[2].split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile
    return bool(states) and all(state == "T" for state in states)
