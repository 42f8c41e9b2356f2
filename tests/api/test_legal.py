"""`/legal` is compact: the Reset once, with the cards it may discard, not every combination."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from application.games.codec import dumps, legal_document
from domain import Options, fold, new_game
from domain.peoples import CANONICAL_DECK


def test_legal_lists_the_reset_once_with_a_discard_choice_and_expands_on_request(api):
    created = api.post(
        "/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "setup": {"first_player": 0}}
    ).json
    g, token = created["game"], created["seats"][0]["token"]
    compact = api.get(f"/games/{g}/legal", token=token).json
    hand = api.get(f"/games/{g}", token=token).json["players"][0]["hand"]
    assert [c for c in compact["commands"] if c["type"] == "end_turn"] == [{"type": "end_turn", "discards": []}]
    assert compact["end_turn_discards"] == {"from": sorted(hand), "at_most": 2}
    full = api.get(f"/games/{g}/legal?expand=true", token=token).json
    resets = [c for c in full["commands"] if c["type"] == "end_turn"]
    assert len(resets) > 10 and all(len(c["discards"]) <= 2 and set(c["discards"]) <= set(hand) for c in resets)
    assert [c for c in full["commands"] if c["type"] != "end_turn"] == [
        c for c in compact["commands"] if c["type"] != "end_turn"
    ]
    other = api.get(f"/games/{g}/legal", token=created["seats"][1]["token"]).json
    assert other["commands"] == [] and other["end_turn_discards"] is None
    assert api.get(f"/games/{g}/legal?expand=maybe", token=token).status_code == 422
    r = api.post(
        f"/games/{g}/commands",
        token=token,
        json={"type": "end_turn", "discards": sorted(hand)[:2]},
        headers={"If-Match": f'"{compact["version"]}"'},
    )
    assert r.status_code == 200  # any two of the offered cards


def test_with_a_40_card_hand_the_compact_legal_is_a_small_fraction_of_the_expansion():
    state = fold(new_game(Options(2), b"forty"))
    deck = [c for c in CANONICAL_DECK if c not in state.players[1].hand]
    seat = state.turn.seat
    hand = tuple(random.Random(1).sample([c for c in deck if c not in state.players[seat].hand], 40))
    players = tuple(replace(p, hand=hand) if p.seat == seat else p for p in state.players)
    big = replace(state, players=players)
    compact, full = legal_document(big, seat), legal_document(big, seat, expand=True)
    assert len(full["commands"]) - len(compact["commands"]) > 200  # the discard combinations
    assert len(dumps(compact)) * 3 < len(dumps(full))
    assert json.loads(dumps(compact))["end_turn_discards"]["from"] == sorted(hand)
