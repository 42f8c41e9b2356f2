"""What each seat may see (R16): ``view`` for a state, ``redact`` for an event.

Public: the city, figures, dragons, markers, obelisk, scale counts, hand sizes, deck and
discard sizes, the discard pile, offerings, turn and phase. Private to the owner: hand, cards
kept aside, crystals. Hidden from all until the end: deck order and seed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import events as ev
from .catalogue import BUILDINGS
from .state import Game


def view(state: Game, seat: int | None) -> dict[str, Any]:
    """A JSON-ready picture of ``state`` as ``seat`` (None: a spectator) may see it."""
    turn = state.turn
    ended = state.finished
    players = []
    for p in state.players:
        mine = ended or p.seat == seat
        players.append(
            {
                "seat": p.seat,
                "position": p.position,
                "hand_size": len(p.hand),
                "hand": sorted(p.hand) if mine else None,
                "aside_size": len(p.aside),
                "aside": sorted(p.aside) if mine else None,
                "crystals": p.crystals if mine else None,
                "scales": p.scales,
                "markers": p.markers,
                "offerings": p.offerings,
            }
        )
    return {
        "version": state.version,
        "viewer": seat,
        "options": {
            "players": state.options.players,
            "edition": state.options.edition.value,
            "expansion": state.options.expansion,
            "layout": state.options.layout.value,
        },
        "status": "finished" if ended else "active",
        "scenario": state.scenario,
        "given": list(state.given),
        "commitment": state.commitment,
        "seed": state.seed if ended else None,
        "city": [
            {
                "tile": tile,
                "row": r,
                "col": c,
                "reconstructed": tile not in state.sites or state.sites[tile].reconstructed,
                "spaces": [
                    {
                        "colour": space.colour.value if space.colour else "any",
                        "value": space.value,
                        # a rebuilt tile shows no markers: they went back to their owners
                        "marker": None if state.sites[tile].reconstructed else state.sites[tile].markers[i],
                    }
                    for i, space in enumerate(BUILDINGS[tile].spaces)
                ]
                if tile in state.sites
                else [],
            }
            for tile, (r, c) in sorted(state.city.placement.items(), key=lambda kv: kv[1])
        ],
        "dragons": {d.value: at for d, at in state.dragons.items()},
        "obelisk": [{"value": value, "marker": owner} for value, owner in zip(state.options.obelisk, state.obelisk)],
        "scale_supply": state.scale_supply,
        "quiet_turns": state.quiet_turns,
        "deck_size": len(state.deck),
        "discard": list(state.discard),
        "players": players,
        "turn": None
        if turn is None or ended
        else {
            "seat": turn.seat,
            "number": turn.number,
            "phase": turn.phase.value,
            "steps": turn.steps,
            "offered": turn.offered,
            "action_used": turn.action_used,
        },
        "result": None
        if state.result is None
        else {"reason": state.result.reason.value, "winners": list(state.result.winners)},
    }


def redact(event: ev.Event, seat: int | None, *, revealed: bool = False) -> ev.Event:
    """``event`` as ``seat`` may see it; ``revealed`` (the game has ended) hides nothing."""
    if revealed:
        return event
    if isinstance(event, ev.GameCreated):
        return replace(event, seed=None)
    if isinstance(event, (ev.DeckShuffled, ev.DeckReshuffled)):
        return replace(event, order=None)
    if isinstance(event, (ev.CardsDealt, ev.CardsDrawn, ev.AsideJoined)) and event.seat != seat:
        return replace(event, cards=None)
    if isinstance(event, ev.Rewarded) and event.seat != seat:
        return replace(event, crystals=None)
    if isinstance(event, ev.PositionSet):
        return replace(event, crystals=tuple((s, c if s == seat else None) for s, c in event.crystals))
    if isinstance(event, ev.ScalesScored):
        return replace(event, crystals=tuple((s, c if s == seat else None) for s, c in event.crystals))
    return event
