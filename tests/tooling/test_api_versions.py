"""The API's version is declared once and says what changed (docs/versioning.md): openapi.yaml,
the client packages and CHANGELOG.md agree with service/api_version.py, and the diff tool
(api-smart-diff, run by cli/api_changes.py) finds every change since the last released document
covered by the version: a breaking one only by a new major version."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli.api_changes import DOCUMENT, RELEASED, TOOL, Change, changes, needed, refusals, released, version
from service.api_version import API_VERSION
from tests.support.shared_folders import node_tools

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
HEADING = re.compile(r"^## \[?(Unreleased|\d+\.\d+\.\d+)\]?(?: - (\d{4}-\d{2}-\d{2}))?$", re.M)


def _load(path: Path) -> Any:
    """A YAML document, read by libyaml (the pure-Python reader takes a second for openapi.yaml)."""
    return yaml.load(path.read_text(), Loader=yaml.CSafeLoader)


def _sections() -> dict[str, str]:
    """CHANGELOG.md's sections by their heading's version ("Unreleased" first), in order."""
    found = list(HEADING.finditer(CHANGELOG))
    ends = [m.start() for m in found[1:]] + [len(CHANGELOG)]
    return {m.group(1): CHANGELOG[m.end() : end] for m, end in zip(found, ends, strict=True)}


def _manifests() -> list[tuple[Path, str | None]]:
    """Every client package's manifest under clients/ and the version it states (None: none)."""
    found: list[tuple[Path, str | None]] = []
    for path in (ROOT / "clients").rglob("package.json"):
        if "node_modules" not in path.parts:
            found.append((path, json.loads(path.read_text()).get("version")))
    for path in (ROOT / "clients").rglob("pyproject.toml"):
        project = tomllib.loads(path.read_text()).get("project", {})
        found.append((path, None if "version" in project.get("dynamic", []) else project.get("version")))
    return found


def test_the_document_the_clients_and_the_changelog_say_the_version_declared_once():
    document = _load(DOCUMENT)
    assert document["info"]["version"] == API_VERSION, "regenerate: python -m cli.write_openapi"
    manifests = _manifests()
    assert manifests, "the TypeScript client's package.json at least"
    assert {str(path.relative_to(ROOT)): stated for path, stated in manifests if stated != API_VERSION} == {}
    # the generated Python client takes info.version unless its settings override it
    assert "package_version_override" not in (ROOT / "clients" / "python" / "config.yaml").read_text()
    sections = _sections()
    versions = [name for name in sections if name != "Unreleased"]
    assert next(iter(sections)) == "Unreleased" and versions == sorted(versions, key=version, reverse=True)
    last = released()
    assert versions[0] == last.stem, "the newest release in CHANGELOG.md is the newest kept document"
    for kept in RELEASED.glob("*.yaml"):
        assert kept.stem in sections and _load(kept)["info"]["version"] == kept.stem
    assert version(API_VERSION) >= version(last.stem)
    if last.stem == API_VERSION:  # how far a changed document must move is the slow test's to say
        assert document == _load(last), f"openapi.yaml differs from the {last.stem} released: python -m cli.api_changes"
    else:  # a version not yet released lists what it changes
        assert re.search(r"^- ", sections["Unreleased"], re.M), (
            f"CHANGELOG.md's Unreleased says nothing of {API_VERSION}"
        )


def _changed(kind: str) -> list[Change]:
    return [Change(kind, "add", "paths//x", "")]


@pytest.mark.parametrize(
    ("kind", "refused", "allowed"),
    [
        ("breaking", ["2.0.1", "2.1.0", "2.9.9"], ["3.0.0"]),
        ("non-breaking", ["2.0.0", "2.0.1"], ["2.1.0", "3.0.0"]),
        ("deprecated", ["2.0.0", "2.0.1"], ["2.1.0"]),
        ("unclassified", ["2.0.1"], ["2.1.0"]),
        ("annotation", ["2.0.0"], ["2.0.1", "2.1.0"]),
    ],
)
def test_each_kind_of_change_needs_its_step_of_the_version(kind, refused, allowed):
    for after in refused:
        assert refusals("2.0.0", after, _changed(kind)), (kind, after)
    for after in allowed:
        assert refusals("2.0.0", after, _changed(kind)) == [], (kind, after)


def test_an_unchanged_document_keeps_its_version_and_a_version_is_never_older():
    assert refusals("2.0.0", "2.0.0", []) == []
    assert refusals("2.1.0", "2.0.9", [])
    assert needed(_changed("annotation") + _changed("breaking")) == "major"
    with pytest.raises(ValueError):
        version("2.0")


MAJOR, MINOR, PATCH = version(API_VERSION)


def _copy_with(tmp_path: Path, change: Any) -> Path:
    """openapi.yaml as it is but for ``change``, in a file of its own."""
    document = _load(DOCUMENT)
    change(document)
    path = tmp_path / "changed.yaml"
    path.write_text(yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False))
    return path


def _remove_an_operation(document):
    del document["paths"]["/catalogue"]


def _require_an_optional_request_field(document):
    schema = document["components"]["schemas"]["EmailLinkRequest"]
    assert "language" in schema["properties"] and "language" not in schema["required"]
    schema["required"].append("language")


def _remove_a_response_field(document):
    schema = document["components"]["schemas"]["Created"]
    del schema["properties"]["game"]
    schema["required"].remove("game")


def _add_a_field_and_an_operation(document):
    document["components"]["schemas"]["Created"]["properties"]["rematch_of"] = {"type": ["string", "null"]}
    document["paths"]["/catalogue/{building}"] = {"get": dict(document["paths"]["/catalogue"]["get"])}
    document["paths"]["/catalogue/{building}"]["get"]["operationId"] = "building"


def _changes(before: Path, after: Path) -> list[Change]:
    """cli/api_changes.py's ``changes``, its tool installed first while no other test installs it."""
    node_tools(TOOL, "api-smart-diff")
    return changes(before, after)


@pytest.mark.slow
def test_the_document_says_what_changed_since_the_last_released_one():
    """Slow: node runs the diff tool (about a second, and npm installs it on the first run). Fails
    when openapi.yaml changed since the kept release without info.version moving as far as the
    change needs: see `python -m cli.api_changes`."""
    last = released()
    found = _changes(last, DOCUMENT)
    refused = refusals(last.stem, API_VERSION, found)
    assert refused == [], "\n".join([*refused, *(f"{c.type}: {c.description or c.path}" for c in found[:30])])


@pytest.mark.slow
@pytest.mark.parametrize(
    "breaking", [_remove_an_operation, _require_an_optional_request_field, _remove_a_response_field]
)
def test_a_deliberate_break_fails_without_a_new_major_version(tmp_path, breaking):
    """Slow: node runs the diff tool on the whole document (about a second)."""
    broken = _changes(DOCUMENT, _copy_with(tmp_path, breaking))
    assert needed(broken) == "major", broken
    for unchanged_major in (API_VERSION, f"{MAJOR}.{MINOR}.{PATCH + 1}", f"{MAJOR}.{MINOR + 1}.0"):
        assert refusals(API_VERSION, unchanged_major, broken), unchanged_major
    assert refusals(API_VERSION, f"{MAJOR + 1}.0.0", broken) == []


@pytest.mark.slow
def test_an_additive_change_passes_with_a_new_minor_version_and_only_with_one(tmp_path):
    """Slow: node runs the diff tool on the whole document (about a second)."""
    added = _changes(DOCUMENT, _copy_with(tmp_path, _add_a_field_and_an_operation))
    assert needed(added) == "minor", added
    assert refusals(API_VERSION, f"{MAJOR}.{MINOR + 1}.0", added) == []
    assert refusals(API_VERSION, API_VERSION, added) and refusals(API_VERSION, f"{MAJOR}.{MINOR}.{PATCH + 1}", added)
