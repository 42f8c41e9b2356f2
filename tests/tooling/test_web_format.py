"""The page's JavaScript and CSS (service/web, not its vendored files) are as Prettier writes them
at 120 columns (.prettierrc.json; Prettier pinned in package.json, installed from npm by its
lockfile). `npm run format` writes them so."""

import subprocess
from pathlib import Path

import pytest

from tests.support.shared_folders import node_tools

ROOT = Path(__file__).resolve().parents[2]
FILES = "service/web/*.{js,css}"


def _prettier(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    node_tools(ROOT, ".bin/prettier")
    return subprocess.run(
        ["npx", "--no-install", "prettier", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, check=False
    )


@pytest.mark.slow
def test_the_pages_scripts_and_styles_are_formatted():
    """Slow: npm installs Prettier on a fresh clone, and node starts it."""
    result = _prettier("--check", FILES)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_check_fails_on_a_page_script_written_otherwise():
    """Slow, as above. A line past 120 columns, as a page script in service/web would be checked
    (given on stdin under such a name, so nothing is written where files are served)."""
    names = ", ".join(f"name{i}" for i in range(30))
    code = f'import {{ {names} }} from "/web/names.js";\nexport const all = [{names}];\n'
    result = _prettier("--check", "--stdin-filepath", "service/web/sample.js", stdin=code)
    assert result.returncode != 0
    fixed = _prettier("--stdin-filepath", "service/web/sample.js", stdin=code).stdout
    assert max(len(line) for line in fixed.splitlines()) <= 120
