"""A review's mistakes name the command played and the better one in words, in each language of
the page (issue 40, item 3): service/web/review_words.js run by node as the browser runs it,
with the page's catalogues. A contribution and the Reset, which the play page's buttons do not
word, are among the commands a review names most often."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "service" / "web"

#: "/web/x.js", as the pages import their modules, read from service/web/
HOOKS = """
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("/web/")) return { url: new URL(specifier.slice(5), process.env.WEB).href, shortCircuit: true };
  return next(specifier, context);
}
"""

#: the browser's globals the page's words need, then the words of four commands a review names
SCRIPT = """
import { register } from "node:module";
import { readFile } from "node:fs/promises";
register(process.argv[1]);
const language = process.argv[2];
globalThis.localStorage = { getItem: () => language, setItem: () => {} };
globalThis.document = { documentElement: {}, querySelectorAll: () => [], getElementById: () => null };
globalThis.fetch = async (path) => ({
  json: async () => JSON.parse(await readFile(new URL(path.slice(5), process.env.WEB), "utf8")),
});
const { decisionWords } = await import("/web/review_words.js");
const view = { city: [{ tile: "fire_temple", spaces: [{ colour: "red" }] }], obelisk: [], players: [{ position: "courtyard" }] };
const commands = [
  { type: "contribute", building: "fire_temple", space: 0, cards: ["red-3a", "red-2b"], colour: null, hoax: [] },
  { type: "end_turn", discards: ["green-1c", "blue-1a"] },
  { type: "end_turn", discards: [] },
  { type: "move", to: "fire_temple" },
];
console.log(JSON.stringify(commands.map((c) => decisionWords(c, view, 0))));
"""


def words_in(language: str, tmp_path: Path) -> list[str]:
    hooks = tmp_path / "hooks.mjs"
    hooks.write_text(HOOKS)
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT, hooks.as_uri(), language],
        capture_output=True,
        text=True,
        env={"WEB": WEB.as_uri() + "/", "PATH": "/usr/bin:/bin:/usr/local/bin"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("language", ["en", "de", "pt", "ru"])
def test_a_reviews_commands_are_worded_in_each_language_with_their_cards(language, tmp_path):
    assert shutil.which("node"), "node is needed (.ci/run installs it)"
    catalogue = json.loads((WEB / "i18n" / f"{language}.json").read_text())
    contribute, discarding, keeping, move = words_in(language, tmp_path)
    fire_temple = catalogue["tile.fire_temple"]
    assert fire_temple in contribute and "red-3a" in contribute and "red-2b" in contribute and "1" in contribute
    assert "green-1c" in discarding and "blue-1a" in discarding
    assert keeping == catalogue["review.endTurn"]
    assert fire_temple in move
    for said in (contribute, discarding, keeping, move):
        assert "{" not in said and not {"contribute", "end_turn", "move"} & set(said.split())
