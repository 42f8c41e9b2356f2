"""Schemathesis over the whole API of the real service (gunicorn, the worker, Redis): every
check, every phase, the stateful one included, which follows the document's links (create a
game, then look at it, ask for the legal commands and play the first). 0 failures.

The settings are tests/e2e/schemathesis/schemathesis.toml's: a schema-valid but impossible
setup may get a 422 (why is written there). The hooks (tests/e2e/schemathesis/hooks.py) send a
valid long-poll ``wait`` as at most 0.1 s: the boundary values (the documented 30 s) would
otherwise be waited out, nearly five minutes of each run for nothing; the 30 s maximum itself
is checked in tests/api/test_security_and_input.py. An SSE stream lives 0.1 s here
(``BLUEMOON_SSE_SECONDS``): a stream sends the events so far before it first looks at its
lifetime, and nothing else plays while schemathesis reads it, so a 0.1 s stream is the same
body as a 1 s one (no keep-alive either: those come after 15 s), without the ~25 s that
waiting out each stream cost a run. The seed is fixed so that a failure in CI
can be replayed; change it to explore further.

Slow (about two minutes): several thousand generated requests over real HTTP.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
SEED = "20261126"


@pytest.mark.slow
def test_schemathesis_finds_nothing_with_every_check_and_the_stateful_phase(start_service):
    base = start_service(RATE_LIMIT="0", BLUEMOON_SSE_SECONDS="0.1")
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file",
            str(HERE / "schemathesis" / "schemathesis.toml"),
            "run",
            f"{base}/openapi.json",
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-examples",
            "30",
            "--request-timeout",
            "45",
            "--seed",
            SEED,
            "--no-color",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "SCHEMATHESIS_HOOKS": str(HERE / "schemathesis" / "hooks.py")},
        timeout=900,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, _failures(report)
    assert "✅ Stateful" in report and "✅ Coverage" in report and "✅ Fuzzing" in report, report[-3000:]
    document = yaml.safe_load((HERE.parents[1] / "openapi.yaml").read_text())
    operations = sum(len(item) for item in document["paths"].values())
    selected = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", report)
    assert selected, report[-3000:]
    chosen, total, tested = map(int, selected.groups())
    # every operation schemathesis loads is tested; it loads all but one (the document it was given, /openapi.json)
    assert chosen == total == tested >= operations - 1, report[-3000:]
    # the hook kept every long poll short: none of them waited out a long `wait`
    polls = [
        doc
        for line in start_service.logs[0].read_text().splitlines()
        if line.startswith("{") and (doc := json.loads(line)).get("path", "").endswith("/events")
    ]
    assert polls and max(p["ms"] for p in polls) < 5_000, max(p["ms"] for p in polls)


def _failures(report: str) -> str:
    """The failures' part of a report (each failing check with its request, from the first),
    not only the tail: a long report's tail once held the summary and hid the failing check."""
    start = report.find("FAILURES")
    return (report[start:] if start >= 0 else report)[:12_000]
