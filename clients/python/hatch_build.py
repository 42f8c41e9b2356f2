"""Generates the client from the repository's openapi.yaml each time the package is built, so the
package can never disagree with the contract it is built beside, and no generated code is kept in
git (it would go stale with every change of the document, and drown reviews in machine output).

An sdist carries the generated code; building a wheel from it (no openapi.yaml two folders up)
takes that code as it is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class GeneratedClient(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        document = root.parent.parent / "openapi.yaml"
        target = root / "src" / "bluemoon_client"
        if not document.exists():
            if not (target / "__init__.py").exists():
                raise RuntimeError(f"no {document} to generate the client from, and no generated client")
            return
        stated = yaml.safe_load(document.read_text())["info"]["version"]
        if stated != self.metadata.version:
            raise RuntimeError(
                f"openapi.yaml is version {stated}, the package {self.metadata.version}: make them agree"
            )
        generate(document, root / "config.yaml", target)


def generate(document: Path, config: Path, target: Path) -> None:
    """openapi-python-client's output for ``document``, in place of ``target``."""
    bin_dir = str(Path(sys.executable).parent)  # the generator runs ruff on its output, from its own env
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "bluemoon_client"
        command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document)]
        result = subprocess.run(
            [*command, "--meta", "none", "--output-path", str(out), "--config", str(config)],
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError("openapi-python-client failed:\n" + result.stdout + result.stderr)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(out, target)
