"""bench/peer_speed.py measures boardgame.io as issue 42 set it up, so its figures compare with the
issue's only while bench/peer's lock file (what ``npm ci`` installs) holds those versions: with a
later koa-compose, boardgame.io's lobby API answers 404 to everything, and its FlatFile storage
is node-persist 3.1.3's behaviour."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PINNED = {"boardgame.io": "0.50.2", "koa-compose": "4.1.0", "node-persist": "3.1.3"}


def _installed(name: str) -> list[str]:
    """The versions of every copy of ``name`` that bench/peer's lock file installs."""
    packages = json.loads((ROOT / "bench" / "peer" / "package-lock.json").read_text())["packages"]
    return [entry["version"] for path, entry in packages.items() if path.rpartition("node_modules/")[2] == name]


def test_the_peer_bench_installs_the_versions_it_was_set_up_with():
    for name, version in PINNED.items():
        assert _installed(name) == [version], name
    assert [v.rpartition(".")[0] for v in _installed("socket.io") + _installed("socket.io-client")] == ["4.8", "4.8"]
