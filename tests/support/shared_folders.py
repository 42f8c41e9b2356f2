"""Folders of the repository that tests write into (node_modules by ``npm ci``, the client
packages' generated code), held by one test at a time: the suite runs in several pytest-xdist
workers at once, and ``npm ci`` deletes node_modules before it installs, so a test that looked
while another installed would find half a tree (and a build would copy another's half-written
client)."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held(folder: Path) -> Iterator[Path]:
    """``folder``, held for the with-block against every other process that holds it (a lock file
    in the temporary folder, so nothing is written into the tree for it). Not reentrant."""
    name = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"bluemoon-tests-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield folder


def install_node_tools(project: Path, tool: str) -> None:
    """``npm ci`` in ``project`` (from its lockfile) unless ``node_modules/<tool>`` is there; the
    caller holds the project (``held``)."""
    assert shutil.which("npm"), "node and npm are needed (.ci/run installs them)"
    if not (project / "node_modules" / tool).exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=project, check=True, capture_output=True)


def node_tools(project: Path, tool: str) -> Path:
    """``project`` with its node tools installed (``install_node_tools``, holding it meanwhile)."""
    with held(project):
        install_node_tools(project, tool)
    return project
