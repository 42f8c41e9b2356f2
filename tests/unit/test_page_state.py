"""The pages' one state helper (service/web/state.js), run by node as the browsers run it: the
state reads as it is now, only update() changes it (and draws the page once per change), and a
field the page never declared is refused rather than silently kept."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

STATE_JS = Path(__file__).resolve().parents[2] / "service" / "web" / "state.js"

SCRIPT = """
const { pageState } = await import(process.argv[1]);
let drawn = 0;
const [state, update] = pageState({ seat: null, log: [] }, () => { drawn += 1; });
const seen = [state.seat, drawn];
update({ seat: 2, log: ["a"] });
seen.push(state.seat, state.log, drawn);
let written = "no";
try { state.seat = 3; } catch { written = "refused"; }
let unknown = "";
try { update({ sneaky: 1 }); } catch (error) { unknown = error.message; }
console.log(JSON.stringify({ seen, written, unknown, seat: state.seat, drawn, fields: Object.keys(state) }));
"""


def test_a_pages_state_changes_only_through_update_which_draws_it():
    assert shutil.which("node"), "node is needed (.ci/run installs it)"
    out = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT, STATE_JS.as_uri()], capture_output=True, text=True, check=True
    )
    told = json.loads(out.stdout)
    assert told["seen"] == [None, 0, 2, ["a"], 1]
    assert told["written"] == "refused" and told["seat"] == 2
    assert "sneaky" in told["unknown"] and told["drawn"] == 1  # the refused change drew nothing
    assert told["fields"] == ["seat", "log"]
