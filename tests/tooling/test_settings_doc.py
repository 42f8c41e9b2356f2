"""Every setting is declared once (application/settings.py) and documented from the declaration
(docs/settings.md): a module that reads the environment itself, or names a variable nobody
declared, fails here, and so does a reference that is not current. The scan covers the
service's packages; tests and benchmarks set variables for the processes they start."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from application.settings import DECLARED, SECTIONS
from cli.write_settings import TARGET, document

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "events", "application", "service", "workers", "cli")
READER = ROOT / "application" / "settings.py"


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and _is_os(node.value)


def _is_os(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "os"


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def environment_uses(source: str) -> tuple[list[tuple[int, str | None]], set[str]]:
    """(line, name or None) of every read of the environment in ``source`` (``os.environ.get``,
    ``os.environ[...]``, ``... in os.environ``, ``os.getenv``, ``from os import environ``), and
    every variable name it touches at all (reads, writes, ``mock.patch.dict("os.environ", {...})``)."""
    reads: list[tuple[int, str | None]] = []
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func
            environ_get = target.attr == "get" and _is_environ(target.value)
            if environ_get or (target.attr == "getenv" and _is_os(target.value)):
                reads.append((node.lineno, _literal(node.args[0]) if node.args else None))
            elif target.attr == "dict" and node.args and _literal(node.args[0]) == "os.environ":  # mock.patch.dict
                given = node.args[1] if len(node.args) > 1 else None
                names |= {k for k in map(_literal, given.keys if isinstance(given, ast.Dict) else []) if k}
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            name = _literal(node.slice)
            if isinstance(node.ctx, ast.Load):
                reads.append((node.lineno, name))
            elif name:
                names.add(name)
        elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
            reads.append((node.lineno, _literal(node.left)))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            reads += [(node.lineno, None) for alias in node.names if alias.name in ("environ", "getenv")]
    return reads, names | {name for _, name in reads if name}


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_the_scan_sees_every_way_of_reading_the_environment():
    source = """
import os
from unittest import mock
a = os.environ.get("A", "1")
b = os.getenv("B")
c = os.environ["C"]
d = "D" in os.environ
os.environ["E"] = "written"
with mock.patch.dict("os.environ", {"F": "1"}):
    pass
def later():
    from os import environ
    return request.environ.get("SERVER_PORT")  # a WSGI environ, not the process's
"""
    reads, names = environment_uses(source)
    assert sorted(reads, key=lambda read: read[0]) == [(4, "A"), (5, "B"), (6, "C"), (7, "D"), (12, None)]
    assert names == {"A", "B", "C", "D", "E", "F"}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_reads_its_settings_through_application_settings(path):
    reads, names = environment_uses(path.read_text())
    if path != READER:
        assert reads == [], f"read these through application/settings.py (declare them there): {reads}"
    assert sorted(names - set(DECLARED)) == [], "declare each in application/settings.py"


def test_every_declaration_says_what_it_does_in_a_known_section():
    for setting in DECLARED.values():
        assert setting.section in SECTIONS and setting.what and "\n" not in setting.what, setting.name


def test_the_committed_settings_reference_is_current():
    assert TARGET.read_text() == document(), "run: python -m cli.write_settings"


#: Names the documents show in capitals with an underscore that are no setting of the service:
#: what it does NOT read (requests' bundle) and an error OpenSSL reports.
NOT_SETTINGS = {"REQUESTS_CA_BUNDLE", "CERTIFICATE_VERIFY_FAILED"} | {
    # the containers' own knobs (compose.yaml's, the image build's, podman's), never read by the service
    "BLUEMOON_PORT",
    "BLUEMOON_SMOKE_RUN",
    "BLUEMOON_TAG",
    "CONTAINERS_CONF",
    "PIP_CERT",
    "POSTGRES_PASSWORD",
    "RLIMIT_NOFILE",
}


def _constants() -> set[str]:
    """Every module-level capitalised name the service's code assigns (``MAX_TOKEN_DAYS``)."""
    found = set()
    for path in _modules():
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            found |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return found


def test_every_setting_the_documents_name_is_declared():
    """A document that tells the operator of a variable (docs/operations.md, the README) names
    one the reference lists: a setting read by a library (OpenSSL's SSL_CERT_FILE) is declared
    too, so that docs/settings.md lacks none."""
    named = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=[^`]*)?`", doc.read_text()))
    assert sorted(named - set(DECLARED) - _constants() - NOT_SETTINGS) == []
