"""Does openapi.yaml's version say what changed since the last released document?
``python -m cli.api_changes`` lists the changes and the version they need; exit status 1 when
``info.version`` says less (``python -m cli.api_changes BEFORE AFTER`` compares any two documents).

The changes are classified by api-smart-diff (openapi/diff/, pinned by its lockfile and run by
node: it reads the two files only, with no network and no telemetry). The rule is semantic
versioning's (docs/versioning.md): a breaking change needs a new major version; anything added,
deprecated or unclassified a new minor one; annotations (descriptions, examples) a new patch;
the released document itself keeps its version.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi.yaml"
RELEASED = ROOT / "openapi" / "released"  #: the released documents, each named <version>.yaml
TOOL = ROOT / "openapi" / "diff"
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
#: The least version step each kind of change needs: 0 major, 1 minor, 2 patch.
STEP = {"breaking": 0, "non-breaking": 1, "deprecated": 1, "unclassified": 1, "annotation": 2}
PARTS = ("major", "minor", "patch")


@dataclass(frozen=True)
class Change:
    """One change as the tool classifies it (``type``: a key of ``STEP``)."""

    type: str
    action: str
    path: str
    description: str


def version(text: str) -> tuple[int, int, int]:
    """``"2.1.0"`` as (2, 1, 0); a version that is not MAJOR.MINOR.PATCH is a ValueError."""
    found = SEMVER.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a semantic version MAJOR.MINOR.PATCH")
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def released() -> Path:
    """The last released document: the highest version under openapi/released/."""
    return max(RELEASED.glob("*.yaml"), key=lambda path: version(path.stem))


def changes(before: Path, after: Path) -> list[Change]:
    """What changed from ``before`` to ``after``, classified by the tool (installed by ``npm ci``
    from its lockfile when it is not yet)."""
    assert shutil.which("node") and shutil.which("npm"), "node and npm are needed (.ci/run installs them)"
    if not (TOOL / "node_modules" / "api-smart-diff").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=TOOL, check=True, capture_output=True)
    found = subprocess.run(
        ["node", "--no-warnings", "changes.mjs", str(before.resolve()), str(after.resolve())],
        cwd=TOOL,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0 or found.stderr.strip():  # the tool prints its rule errors and goes on: not here
        raise RuntimeError(f"the diff tool failed: {found.stderr}")
    return [Change(**change) for change in json.loads(found.stdout)]


def needed(found: list[Change]) -> str | None:
    """The least step ``found`` needs: "major", "minor", "patch", or None when nothing changed."""
    steps = [STEP[change.type] for change in found]
    return PARTS[min(steps)] if steps else None


def refusals(before: str, after: str, found: list[Change]) -> list[str]:
    """Why ``after`` is not a right version for a document that changed by ``found`` from the one
    released as ``before`` (empty when it is)."""
    old, new = version(before), version(after)
    step = needed(found)
    if step is None:
        return [] if new >= old else [f"{after} is older than the released {before}"]
    least = {
        "major": (old[0] + 1, 0, 0),
        "minor": (old[0], old[1] + 1, 0),
        "patch": (old[0], old[1], old[2] + 1),
    }[step]
    if new >= least:
        return []
    kinds = sorted({change.type for change in found if PARTS[STEP[change.type]] == step})
    return [
        f"{', '.join(kinds)} changes since {before} need a new {step} version (at least {'.'.join(map(str, least))}), "
        f"but the document says {after}"
    ]


def document_version(path: Path) -> str:
    """The ``info.version`` a document states (read by libyaml where it is installed: a second faster)."""
    loaded: dict[str, Any] = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return str(loaded["info"]["version"])


def main(argv: list[str]) -> int:
    before, after = (Path(argv[0]), Path(argv[1])) if len(argv) == 2 else (released(), DOCUMENT)
    found = changes(before, after)
    for change in found:
        print(f"{change.type:13} {change.action:8} {change.description or change.path}")
    old, new = document_version(before), document_version(after)
    step = needed(found)
    print(
        f"{before} ({old}) -> {after} ({new}): {len(found)} changes"
        + (f", needing a new {step} version" if step else "")
    )
    problems = refusals(old, new, found)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
