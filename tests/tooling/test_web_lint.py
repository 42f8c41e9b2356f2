"""The play page's JavaScript passes ESLint (pinned in package.json, installed from npm by its
lockfile): the files in service/web are served as they are, with no build step to catch errors."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_pages_scripts_pass_eslint():
    assert shutil.which("npm"), "node and npm are needed (.ci/run installs them)"
    if not (ROOT / "node_modules" / ".bin" / "eslint").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True, capture_output=True)
    result = subprocess.run(
        ["npx", "--no-install", "eslint", "--max-warnings", "0", "service/web"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
