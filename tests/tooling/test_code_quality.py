"""Lint, format and type checks run with the suite, so CI fails on any of them. The settings
are pyproject.toml's ([tool.ruff], [tool.mypy]); the versions are pinned in its dev extra."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint_is_clean():
    result = _run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is():
    result = _run("ruff", "format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_every_package_type_checks():
    """Slow: mypy checks every package."""
    result = _run("mypy")  # the packages and settings are [tool.mypy]'s
    assert result.returncode == 0, result.stdout + result.stderr
