"""``bluemoon`` stops its children together: SIGTERM to all at once, one shared allowance,
then SIGKILL for whoever is left. Stopped one at a time, each child's allowance added up: a
reviews worker busy with a review (RQ's warm shutdown waits for the job) and the others kept a
stopped service up past 30 s, and a test's teardown timed out."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cli import bluemoon
from cli.bluemoon import Child, stop_together

#: a child that notes when SIGTERM reached it, then goes on as a busy worker would
STUBBORN = """
import signal, sys, time
def heard(*_):
    open(sys.argv[1], "w").write(repr(time.monotonic()))
signal.signal(signal.SIGTERM, heard)
open(sys.argv[1] + ".up", "w").close()
while True:
    time.sleep(0.05)
"""


def test_every_child_hears_sigterm_at_once_and_the_stubborn_are_killed_after_one_allowance(tmp_path, monkeypatch):
    monkeypatch.setattr(bluemoon, "STOP_SECONDS", 1.0)
    marks = [tmp_path / f"child-{i}" for i in range(3)]
    children = [Child(f"busy-{i}", [sys.executable, "-c", STUBBORN, str(mark)]) for i, mark in enumerate(marks)]
    for child in children:
        child.start({})
    for mark in marks:  # each has set its handler
        deadline = time.monotonic() + 30
        while not Path(f"{mark}.up").exists():
            assert time.monotonic() < deadline
            time.sleep(0.02)
    stop_together(children)
    assert [c.process.returncode for c in children if c.process] == [-9, -9, -9]  # killed: they ignored SIGTERM
    heard = sorted(float(mark.read_text()) for mark in marks)
    # the last heard SIGTERM before the first one's allowance was over (one at a time: 1 s apart, then 2 s)
    assert heard[-1] - heard[0] < 1.0, heard


def test_a_child_that_stops_on_sigterm_is_not_killed(tmp_path):
    child = Child("polite", [sys.executable, "-c", "import time; time.sleep(60)"])
    child.start({})
    stop_together([child, Child("never-started", ["true"])])
    assert child.process is not None and child.process.returncode == -15
