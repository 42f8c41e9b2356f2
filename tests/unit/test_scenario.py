"""Scenario games in the domain (P15): the position folds into the state, its opening can be made
again from the events (what the audit does), and impossible positions are refused."""

from dataclasses import replace

import pytest

from domain import Options, fold, view
from domain.scenario import Position, position_of, scenario_game
from domain.state import Phase

SEED = bytes(range(32))
POSITION = Position(
    hands=(("red-1a", "red-2a"), ("blue-3a",)),
    figures=("library", "courtyard"),
    crystals=(5, 7),
    scales=(2, 0),
    turn=1,
    markers=(("library", 0, 0), ("library", 1, 1), ("mill", 0, 1)),
    obelisk=(1,),
    dragons=(("blue", None), ("green", "mill"), ("red", "library")),
    discard=("black-1a",),
    scale_supply=3,
)


def test_the_position_is_the_state_a_scenario_starts_from():
    state = fold(scenario_game(Options(2), SEED, POSITION))
    me, other = state.players
    assert (me.hand, me.position, me.crystals, me.scales, me.markers) == (("red-1a", "red-2a"), "library", 5, 2, 9)
    assert (other.offerings, other.markers) == (1, 7)
    assert state.sites["library"].reconstructed and not state.sites["mill"].reconstructed
    assert state.obelisk[:2] == (1, None) and state.scale_supply == 3 and state.discard == ("black-1a",)
    assert state.turn is not None and (state.turn.seat, state.turn.phase) == (1, Phase.MOVEMENT)
    assert state.scenario and len(state.deck) == 80 - 3 - 1
    assert not set(state.deck) & {"red-1a", "red-2a", "blue-3a", "black-1a"}


def test_the_opening_is_made_again_from_its_own_events_and_the_seed():
    opening = scenario_game(Options(2), SEED, POSITION)
    assert scenario_game(Options(2), SEED, position_of(opening)) == opening
    assert scenario_game(Options(2), bytes(32), POSITION) != opening  # the rest of the deck comes from the seed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": (("red-1a",), ("red-1a",))}, "once"),
        ({"figures": ("library",)}, "one entry per seat"),
        ({"markers": (("library", 0, 0), ("library", 0, 1))}, "two markers"),
        ({"markers": (("library", 5, 0),)}, "no space 5"),
        ({"obelisk": (0,) * 11}, "full"),
        ({"turn": 2}, "seat number"),
        ({"scales": (9, 9), "scale_supply": None}, "more scales"),
        ({"dragons": (("purple", None),)}, "no dragon"),
    ],
)
def test_an_impossible_position_is_refused_naming_why(change, message):
    from dataclasses import replace

    with pytest.raises(ValueError, match=message):
        scenario_game(Options(2), SEED, replace(POSITION, **change))


def test_a_position_states_rebuilt_buildings_bare_with_every_marker_in_its_owners_supply():
    """As a late game has them (R7 returns the markers): no marker on the tile, none out of supply."""
    late = Position(
        hands=(("red-1a",), ("blue-3a",)),
        figures=("courtyard", "courtyard"),
        crystals=(5, 7),
        scales=(0, 0),
        markers=(("mill", 0, 1),),
        rebuilt=("library", "earth_temple"),
    )
    opening = scenario_game(Options(2), SEED, late)
    state = fold(opening)
    assert state.sites["library"].reconstructed and state.sites["earth_temple"].reconstructed
    assert all(m is None for m in state.sites["library"].markers)
    assert [p.markers for p in state.players] == [10, 9]
    assert scenario_game(Options(2), SEED, position_of(opening)) == opening  # the audit makes it again
    shown = {t["tile"]: t for t in view(state, 0)["city"]}
    assert shown["library"]["reconstructed"] and all(s["marker"] is None for s in shown["library"]["spaces"])
    with pytest.raises(ValueError, match="rebuilt"):
        scenario_game(Options(2), SEED, replace(late, markers=(("library", 0, 0),)))
    with pytest.raises(ValueError, match="not a building"):
        scenario_game(Options(2), SEED, replace(late, rebuilt=("courtyard",)))


def test_a_view_shows_no_marker_on_a_tile_rebuilt_by_filling_every_space():
    state = fold(scenario_game(Options(2), SEED, POSITION))  # the library's two spaces are marked
    shown = {t["tile"]: t for t in view(state, 0)["city"]}
    assert shown["library"]["reconstructed"] and [s["marker"] for s in shown["library"]["spaces"]] == [None, None]
    assert shown["mill"]["spaces"][0]["marker"] == 1  # an unfinished building shows its markers
