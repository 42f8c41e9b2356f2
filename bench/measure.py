"""What every benchmark measures the same way: a latency's median and 99th percentile, and the
CPU time the processes under test used (from /proc)."""

from __future__ import annotations

import math
import os
import statistics


def percentiles(values: list[float]) -> tuple[float, float]:
    """The median and the nearest-rank 99th percentile (the slowest, for fewer than 100)."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[math.ceil(len(ordered) * 0.99) - 1]


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used, from /proc (0 where there is none)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (gunicorn's workers, RQ's work-horse), from /proc."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if entry.isdigit() and int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found
