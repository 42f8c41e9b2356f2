"""``bluemoon-admin`` run in this process as an operator runs it, with ``--json``: its exit code
and what it printed (parsed), for the admin tests and the backup drill."""

from __future__ import annotations

import json
from typing import Any

from cli.admin import main


def admin(capsys: Any, *argv: str) -> tuple[int, Any]:
    """Run ``bluemoon-admin ARGV --json``: (exit code, its JSON answer, or on a refusal the
    reason it gave)."""
    capsys.readouterr()
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    if code == 0:
        return code, json.loads(out)
    return code, json.loads(err)["error"] if err.startswith("{") else err
