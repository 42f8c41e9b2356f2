"""``bluemoon-audit --url`` against the real service."""

from __future__ import annotations

import subprocess
import sys

from tests.e2e.conftest import call


def test_the_audit_command_on_an_unfinished_game_says_so_clearly(server):
    _, created = call(server, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "human"}]})
    done = subprocess.run(
        [sys.executable, "-m", "cli.bluemoon_audit", "--url", server, created["game"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot audit" in done.stderr and "published when the game ends" in done.stderr
