"""A game state as JSON, for snapshots. Bump SNAPSHOT_SCHEMA whenever the state's shape
changes: a snapshot of another schema is ignored and the stream folded from the start."""

from __future__ import annotations

import json
from typing import Any

from domain.city import City
from domain.options import Edition, Layout, Options
from domain.peoples import Dragon
from domain.state import EndReason, Game, Phase, Player, Result, Site, Turn

#: 3: the turn's starting state (P17); 4: the take-backs of the turn; 5: the setup's given
#: parts (P9); 6: each seat's publicly counted crystals
SNAPSHOT_SCHEMA = 6


def encode_state(g: Game) -> str:
    return json.dumps(_document(g), separators=(",", ":"))


def _document(g: Game) -> dict[str, Any]:
    turn = g.turn
    return {
        "options": [g.options.players, g.options.edition.value, g.options.expansion, g.options.layout.value],
        "placement": {t: list(c) for t, c in g.city.placement.items()},
        "seed": g.seed,
        "commitment": g.commitment,
        "sites": {b: [list(s.markers), s.reconstructed] for b, s in g.sites.items()},
        "players": [
            [p.seat, p.position, list(p.hand), list(p.aside), p.crystals, p.scales, p.markers, p.offerings, p.counted]
            for p in g.players
        ],
        "dragons": {d.value: at for d, at in g.dragons.items()},
        "obelisk": list(g.obelisk),
        "scale_supply": g.scale_supply,
        "deck": list(g.deck),
        "discard": list(g.discard),
        "reshuffles": g.reshuffles,
        "turn": None
        if turn is None
        else [
            turn.seat,
            turn.number,
            turn.phase.value,
            turn.steps,
            turn.scales_given,
            turn.courtyard_offerings,
            turn.offered,
            turn.action_used,
            turn.relocated,
            turn.taken_back,
        ],
        "result": None if g.result is None else [g.result.reason.value, list(g.result.winners)],
        "version": g.version,
        "scenario": g.scenario,
        "given": list(g.given),
        "quiet_turns": g.quiet_turns,
        "rules": g.rules,
        "turn_start": None if g.turn_start is None else _document(g.turn_start),
    }


def decode_state(text: str) -> Game:
    return _game(json.loads(text))


def _game(d: dict[str, Any]) -> Game:
    players, edition, expansion, layout = d["options"]
    turn = d["turn"]
    return Game(
        options=Options(players, Edition(edition), expansion, Layout(layout)),
        city=City({t: (c[0], c[1]) for t, c in d["placement"].items()}),
        seed=d["seed"],
        commitment=d["commitment"],
        sites={b: Site(b, tuple(m), r) for b, (m, r) in d["sites"].items()},
        players=tuple(
            Player(s, pos, tuple(h), tuple(a), c, sc, m, o, n) for s, pos, h, a, c, sc, m, o, n in d["players"]
        ),
        dragons={Dragon(k): v for k, v in d["dragons"].items()},
        obelisk=tuple(d["obelisk"]),
        scale_supply=d["scale_supply"],
        deck=tuple(d["deck"]),
        discard=tuple(d["discard"]),
        reshuffles=d["reshuffles"],
        turn=None if turn is None else Turn(turn[0], turn[1], Phase(turn[2]), *turn[3:]),
        result=None if d["result"] is None else Result(EndReason(d["result"][0]), tuple(d["result"][1])),
        version=d["version"],
        scenario=d["scenario"],
        given=tuple(d["given"]),
        quiet_turns=d["quiet_turns"],
        rules=d["rules"],
        turn_start=None if d["turn_start"] is None else _game(d["turn_start"]),
    )
