"""tests/support/stopped.py: a process the helper stopped runs nothing more, not even a thread
that was awake when the signal came (a bare ``kill`` returned before such a thread stopped in
34 of 200 tries on a busy machine: the race that once let a stopped worker's dispatcher claim
the delivery tests/e2e/test_operating.py looks for)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.stopped import all_threads_stopped, stop
from tests.support.workers import wait_until

#: A low-priority process whose second thread writes a growing count to a file every millisecond.
TICKER = """
import os, sys, threading, time
os.nice(10)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
def tick():
    n = 0
    while True:
        n += 1
        os.pwrite(fd, str(n).ljust(20).encode(), 0)
        time.sleep(0.001)
threading.Thread(target=tick, daemon=True).start()
sys.stdin.read()
"""


def test_a_stopped_process_runs_no_thread_until_it_is_continued(tmp_path: Path):
    count = tmp_path / "count"
    ticker = subprocess.Popen([sys.executable, "-c", TICKER, str(count)], stdin=subprocess.PIPE)
    try:
        for _ in range(20):
            wait_until(lambda: count.exists() and count.read_text().strip(), 30, "the ticker to count")
            stop([ticker.pid])
            assert all_threads_stopped(ticker.pid)
            at_stop = count.read_text()
            time.sleep(0.02)
            assert count.read_text() == at_stop  # nothing ran after stop() returned
            os.kill(ticker.pid, signal.SIGCONT)
            wait_until(lambda was=at_stop: count.read_text() != was, 30, "the ticker to count on")
            assert not all_threads_stopped(ticker.pid)
    finally:
        ticker.kill()
        ticker.wait()
