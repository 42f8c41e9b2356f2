"""The packages are layers and every import points one way (docs/architecture.md):

    domain  <-  events  <-  application  <-  service | workers  <-  cli

``service`` and ``workers`` are peers: neither imports the other; the command-line tools in
``cli`` start and compose them. Every import counts, those inside functions included, and a
relative import is resolved to the package it names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {
    "domain": {"domain"},
    "events": {"domain", "events"},
    "application": {"domain", "events", "application"},
    "service": {"domain", "events", "application", "service"},
    "workers": {"domain", "events", "application", "workers"},
    "cli": {"domain", "events", "application", "service", "workers", "cli"},
}


def _modules() -> list[Path]:
    return sorted(p for package in LAYERS for p in (ROOT / package).rglob("*.py"))


def _imported(source: str, module: tuple[str, ...]) -> set[tuple[int, str]]:
    """(line, top-level package) of every import in the ``source`` of ``module`` (its dotted
    name as parts), anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {(node.lineno, alias.name.split(".")[0]) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's own package upwards
                base = list(module[: len(module) - node.level])
                found.add((node.lineno, (base + (node.module or "").split("."))[0]))
            elif node.module:
                found.add((node.lineno, node.module.split(".")[0]))
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_imports_only_its_own_layer_and_those_below(path):
    layer = path.relative_to(ROOT).parts[0]
    wrong = sorted(
        f"line {line}: {layer} imports {package}"
        for line, package in _imported(path.read_text(), path.relative_to(ROOT).with_suffix("").parts)
        if package in LAYERS and package not in LAYERS[layer]
    )
    assert wrong == []


def test_the_layer_check_sees_imports_inside_functions():
    """The check would catch the kind of hidden arrow the tree once had: an import inside a
    function, absolute or relative."""
    source = "def build():\n    from workers.turn_jobs import play\n    from ..service import app\n"
    assert _imported(source, ("application", "wiring")) == {(2, "workers"), (3, "service")}


@pytest.mark.parametrize("path", [p for p in _modules() if p.parts[len(ROOT.parts)] != "events"], ids=str)
def test_nothing_outside_events_reaches_into_the_stores_private_parts(path):
    private = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and ast.unparse(node.value).split(".")[-1].endswith("store")
    ]
    assert private == []


SHARED = {"__init__", "wiring", "redis_checks", "counters", "words", "refusals", "settings", "retries"}
"""What every feature of ``application/`` shares; anything else belongs to a feature package."""


def test_every_application_module_is_in_a_feature_package_or_shared():
    loose = sorted(p.stem for p in (ROOT / "application").glob("*.py") if p.stem not in SHARED)
    assert loose == []


def test_the_architecture_doc_shows_where_each_feature_package_lives():
    packages = sorted(p.parent.name for p in (ROOT / "application").glob("*/__init__.py"))
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert packages and [name for name in packages if f"`{name}/`" not in doc] == []
