"""Scenario games (P15) made over the API: a given position, by default one where seat 0 can
pay for the library at once."""

from __future__ import annotations

from domain.catalogue import BUILDINGS
from domain.peoples import CARDS
from tests.support.games import game_and_tokens

BUILDING = "library"


def paying(building: str, space: int = 0) -> list[str]:
    """Cards of the space's colour, largest first, until they pay its value."""
    need = BUILDINGS[building].spaces[space]
    cards, total = [], 0
    for card in sorted((c for c in CARDS.values() if c.colour is need.colour), key=lambda c: -c.value):
        if total >= need.value:
            break
        cards.append(card.id)
        total += card.value
    return cards


def scenario_body(**changes):
    position = {
        "hands": [paying(BUILDING), ["black-1a", "black-2a"]],
        "figures": [BUILDING, "courtyard"],
        "crystals": [4, 9],
        "scales": [3, 1],
        "dragons": [{"dragon": "red", "tile": BUILDING}],
        "markers": [{"building": "hospice", "space": 0, "seat": 1}],
        "obelisk": [1],
        "scale_supply": 1,
    }
    position.update(changes)
    return {"seats": [{"kind": "human"}, {"kind": "human"}], "scenario": position}


def scenario_game(api, **changes):
    return game_and_tokens(api, scenario_body(**changes))


def ended_by_one_offering(api) -> tuple[str, list[str]]:
    """A game of two people that seat 0's first command ends (its offering meets the obelisk's
    last crystals): the game and the seats' tokens."""
    game, tokens = scenario_game(
        api, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[]
    )
    legal = api.get(f"/games/{game}/legal", token=tokens[0]).json
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    api.post(f"/games/{game}/commands", token=tokens[0], json=offer, headers={"If-Match": f'"{legal["version"]}"'})
    assert api.get(f"/games/{game}").json["status"] == "finished"
    return game, tokens
