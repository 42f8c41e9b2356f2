"""The containers built and run for real: containers/smoke.py builds the images (Dockerfile, on a
Debian base by debootstrap), starts compose.yaml with podman-compose, checks the containers, plays
a turn against the worker's bot through the API and removes everything it made.

Slow: about 5 minutes the first time on a machine (the base by debootstrap, the images), about
half a minute after that (the base and the build's layers are kept in podman's store, outside the
repository; docs/operations.md "Running in containers"). Needs root, podman, podman-compose, runc
and debootstrap, which .ci/run installs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.support.host_network import host_network

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "containers" / "smoke.py"
#: from nothing the run took 276 s on the 2-core machine under load; this bounds a hung build or start
LIMIT_SECONDS = 1200


def smoke(run: str, *arguments: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """containers/smoke.py as its own process group (a timeout stops podman's children too)."""
    environment = {**os.environ, "BLUEMOON_SMOKE_RUN": run}
    process = subprocess.Popen(
        [sys.executable, str(SMOKE), *arguments], cwd=ROOT, env=environment, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += f"\n... killed after {timeout:.0f} s"
    return subprocess.CompletedProcess(process.args, process.returncode, output, "")


@pytest.mark.slow
def test_the_images_build_start_and_play_a_turn_and_leave_nothing_behind():
    """Slow (minutes the first time, ~30 s cached): builds and runs five containers."""
    missing = [tool for tool in ("podman", "podman-compose", "runc", "debootstrap") if shutil.which(tool) is None]
    assert not missing, (
        f"install {missing} (Debian: apt-get install podman podman-compose runc debootstrap; .ci/run does)"
    )
    assert os.geteuid() == 0, "the containers' test runs as root (debootstrap, podman's networks)"
    run = f"t{uuid.uuid4().hex[:9]}"
    with host_network(alone=True):  # its interfaces would fail the browser tests' requests in flight
        _smoke_and_clean(run)
    left = subprocess.run(
        ["podman", "ps", "-a", "--filter", f"label=io.podman.compose.project=bluemoon_smoke_{run}", "--format", "{{.Names}}"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert not left, f"containers left behind: {left}"


def _smoke_and_clean(run: str) -> None:
    """The smoke run, then its clean-up, even after a kill (the timeout: the script's own never ran)."""
    try:
        done = smoke(run, timeout=LIMIT_SECONDS)
        assert done.returncode == 0, f"containers/smoke.py failed ({done.returncode}):\n{done.stdout[-12000:]}"
        assert "smoke test passed" in done.stdout, done.stdout[-4000:]
        print(done.stdout)  # the times of each step (pytest -s, or -rP)
    finally:
        cleaned = smoke(run, "--clean", timeout=300)  # the names are the run's
        assert cleaned.returncode == 0, cleaned.stdout
