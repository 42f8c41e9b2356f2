"""The engine plays exactly as it did: 200 recorded games replay to the same hashes.

Each game starts from its seed with options that vary by seed (2-4 players, both editions,
with and without the expansion, standard and variant layouts) and plays random legal commands
for a few dozen turns, the take-back included. The random pick is made from the legal set in
a canonical order, so the hash changes if any event, any legal set or the folded state
changes, but not if ``legal_commands`` merely lists the same commands in another order.

The fixture (engine_replay.json next to this file) was recorded from the engine before it was
made faster; record it again only for a deliberate rules change:

    python -m tests.unit.test_engine_replay --record
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from domain import Edition, Layout, Options, decide, evolve, fold, legal_commands, new_game

FIXTURE = Path(__file__).with_name("engine_replay.json")
GAMES = 200
QUICK_GAMES = 20  #: the quick subset replays this many; the slow test replays them all
#: (edition, expansion, layout) in turn by seed; the player count cycles 2, 3, 4 alongside.
VARIANTS = (
    (Edition.CLASSIC, False, Layout.STANDARD),
    (Edition.CLASSIC, False, Layout.VARIANT),
    (Edition.CMON, False, Layout.STANDARD),
    (Edition.CMON, False, Layout.VARIANT),
    (Edition.CMON, True, Layout.STANDARD),
    (Edition.CMON, True, Layout.VARIANT),
)


#: Player fields when the fixture was recorded; ``counted`` (added later) is a sum of the
#: other fields' changes and has tests of its own (tests/unit/test_counted_crystals.py).
RECORDED_PLAYER_FIELDS = 8


def options_for(seed: int) -> Options:
    edition, expansion, layout = VARIANTS[(seed // 3) % len(VARIANTS)]
    return Options(2 + seed % 3, edition, expansion, layout)


def turns_for(seed: int) -> int:
    """Most games stop early; one in twenty plays on long enough to reach the end."""
    return 400 if seed % 20 == 7 else 20


def _canonical(obj: Any) -> str:
    return json.dumps([type(obj).__name__, dataclasses.astuple(obj)], separators=(",", ":"))


def _state_digest(game: Any) -> str:
    """The public fields of a state, so a fold that built another state would show."""
    doc = [
        game.version,
        sorted((b, list(s.markers), s.reconstructed) for b, s in game.sites.items()),
        [dataclasses.astuple(p)[:RECORDED_PLAYER_FIELDS] for p in game.players],
        sorted((d.value, at) for d, at in game.dragons.items()),
        list(game.obelisk),
        game.scale_supply,
        list(game.deck),
        list(game.discard),
        game.reshuffles,
        None if game.turn is None else [*dataclasses.astuple(game.turn)[:2], game.turn.phase.value],
        None if game.result is None else [game.result.reason.value, list(game.result.winners)],
        game.quiet_turns,
        None if game.turn_start is None else game.turn_start.version,
    ]
    return json.dumps(doc, separators=(",", ":"), default=str)


def play(seed: int) -> dict[str, Any]:
    """One recorded game: its seed, options, length and hashes of everything it went through."""
    options = options_for(seed)
    rnd = random.Random(seed)
    events = new_game(options, seed.to_bytes(8, "big"))
    game = fold(events)
    legal_hash = hashlib.sha256()
    max_turns = turns_for(seed)
    while not game.finished and game.turn.number <= max_turns:
        seat = game.turn.seat
        texts = [(_canonical(c), c) for c in legal_commands(game, seat, take_back=True)]
        by_text = dict(texts)
        legal = sorted(text for text, _ in texts)  # a command listed twice would show
        legal_hash.update("\n".join(legal).encode() + b"\n\n")
        command = by_text[rnd.choice(legal)]
        for e in decide(game, command):
            game = evolve(game, e)
            events.append(e)
    event_hash = hashlib.sha256("\n".join(_canonical(e) for e in events).encode()).hexdigest()
    folded = fold(events)
    assert _state_digest(folded) == _state_digest(game), "folding the log gives the state played to"
    return {
        "seed": seed,
        "options": [options.players, options.edition.value, options.expansion, options.layout.value],
        "events": len(events),
        "finished": game.finished,
        "event_hash": event_hash,
        "legal_hash": legal_hash.hexdigest(),
        "state_hash": hashlib.sha256(_state_digest(game).encode()).hexdigest(),
    }


def _recorded() -> list[dict[str, Any]]:
    return json.loads(FIXTURE.read_text())["games"]


def _replay(games: list[dict[str, Any]]) -> None:
    differ = [g["seed"] for g in games if play(g["seed"]) != g]
    assert differ == [], f"games that no longer replay as recorded: {differ}"


def test_the_first_recorded_games_replay_the_same():
    _replay(_recorded()[:QUICK_GAMES])


@pytest.mark.slow
def test_all_recorded_games_replay_the_same():
    """The other 180 recorded games (about 11 s of CPU): every event, legal set and state as recorded."""
    _replay(_recorded()[QUICK_GAMES:])


def test_the_fixture_covers_every_kind_of_game():
    games = _recorded()
    assert [g["seed"] for g in games] == list(range(GAMES))
    assert {tuple(g["options"]) for g in games} == {
        (p, e.value, x, lay.value) for p in (2, 3, 4) for e, x, lay in VARIANTS
    }
    assert any(g["finished"] for g in games)


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    recorded = [play(seed) for seed in range(GAMES)]
    lines = ",\n".join(json.dumps(g, separators=(",", ":")) for g in recorded)
    FIXTURE.write_text('{"games": [\n' + lines + "\n]}\n")
    print(
        f"recorded {len(recorded)} games, {sum(g['events'] for g in recorded)} events, "
        f"{sum(g['finished'] for g in recorded)} finished"
    )
