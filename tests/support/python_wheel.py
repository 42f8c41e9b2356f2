"""The Python client package (clients/python) built and installed as its README says: a wheel
(``pip wheel``, whose build generates ``bluemoon_client`` from openapi.yaml) installed into a
folder of its own (tests/e2e/test_client_packages.py imports it; tests/e2e/test_example_bot.py
runs examples/bot.py on it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.shared_folders import held

ROOT = Path(__file__).resolve().parents[2]


def built_and_installed(out: Path) -> tuple[Path, Path]:
    """The wheel built into ``out`` and the folder (``out/site``) it is installed into, without
    its dependencies (the dev environment has httpx, attrs and python-dateutil)."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    with held(ROOT / "clients" / "python"):  # its build writes src/bluemoon_client in place
        built = subprocess.run(
            [*pip, "wheel", "--no-deps", "--no-build-isolation", str(ROOT / "clients" / "python"), "-w", str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
    assert built.returncode == 0, built.stdout + built.stderr
    [made] = out.glob("*.whl")
    site = out / "site"
    installed = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(made)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return made, site
