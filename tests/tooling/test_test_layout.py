"""Tests share their helpers through a conftest.py or tests/support/, never by importing another
test module: importing one runs its module code a second time under another name, re-collects
nothing, and makes a test's helper a silent part of another file's contract. Every import
counts, those inside functions included (as in test_layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def _test_modules_imported(source: str) -> list[str]:
    """The test modules (a ``test_*`` module anywhere under ``tests``) that ``source`` imports,
    as ``line N: module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom):  # relative: ``from . import test_x``, ``from .test_x import y``
            names = [f".{node.module or ''}.{alias.name}" for alias in node.names] + [f".{node.module or ''}"]
        else:
            continue
        for name in names:
            parts = [p for p in name.split(".") if p]
            inside = name.startswith(".") or parts[:1] == ["tests"]
            cut = next((i for i, p in enumerate(parts) if p.startswith("test_")), None)
            if inside and cut is not None:
                found.append(f"line {node.lineno}: {'.'.join(parts[: cut + 1])}")
                break
    return sorted(set(found))


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_module_imports_another(path):
    assert _test_modules_imported(path.read_text()) == []


def test_the_check_sees_every_way_of_importing_a_test_module():
    """The forms the tree once had (and their relatives) are caught; support modules, conftest
    files and the API client are not."""
    caught = [
        "from tests.api.test_accounts import OWN, _personal_token",
        "import tests.integration.test_workers",
        "def helper():\n    from tests.unit.test_jobs import assert_each_bot_command_applied_once_at_its_version",
        "from .test_play_browser import browser",
        "from . import test_play_browser",
        "from tests.e2e import test_play_browser",
    ]
    for source in caught:
        assert _test_modules_imported(source), source
    allowed = [
        "from tests.support.accounts import personal_token",
        "from tests.conftest import start_cluster",
        "from tests.e2e.conftest import call",
        "from tests.api.client import CheckedClient",
        "from tests.situations import arrange",
        "from domain import test_helpers_are_not_tests",
    ]
    for source in allowed:
        assert _test_modules_imported(source) == [], source
