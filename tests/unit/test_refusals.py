"""Each refusal names the rule that forbids the command, and changes nothing."""

import pytest

from domain import IllegalCommand, InvalidCommand, decide
from domain import commands as cmd
from tests.situations import arrange, explicit_game, play, site


def refused(game, command):
    with pytest.raises((IllegalCommand, InvalidCommand)) as error:
        decide(game, command)
    return error.value.code


@pytest.fixture
def game():
    g = explicit_game(2, expansion=True)
    return arrange(g, 0, hand=("red-3a", "red-1a", "blue-2a", "yellow-1a", "grey-1a", "brown-1a"))


def test_not_your_turn(game):
    assert refused(game, cmd.EndTurn(1)) == "not_your_turn"


def test_unknown_seat_is_malformed(game):
    with pytest.raises(InvalidCommand):
        decide(game, cmd.EndTurn(7))


def test_wrong_phase_for_movement_after_contributing(game):
    g = arrange(game, 0, position="earth_temple")
    g, _ = play(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",)))
    assert refused(g, cmd.Move(0, "courtyard")) == "wrong_phase"
    assert refused(g, cmd.FlyFigure(0, "grey-1a", "courtyard")) == "wrong_phase"


def test_not_enough_value(game):
    g = arrange(game, 0, position="earth_temple")
    assert refused(g, cmd.Contribute(0, "earth_temple", 0, ("red-3a", "red-1a"))) == "not_enough_value"


def test_wrong_colour(game):
    g = arrange(game, 0, position="earth_temple")
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("blue-2a", "red-1a"))) == "wrong_colour"
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",), colour="blue")) == "wrong_colour"


def test_no_marker_left(game):
    g = arrange(game, 0, position="earth_temple", markers=0)
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",))) == "no_marker"
    g = arrange(game, 0, markers=0, crystals=20)
    assert refused(g, cmd.Offer(0)) == "no_marker"


def test_space_taken(game):
    g = site(arrange(game, 0, position="earth_temple"), "earth_temple", markers=(None, None, 1))
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("red-3a",))) == "space_taken"


def test_not_at_building(game):
    assert refused(game, cmd.Contribute(0, "earth_temple", 2, ("red-3a",))) == "not_at_building"


def test_card_not_in_hand_and_unknown_card(game):
    g = arrange(game, 0, position="earth_temple")
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("red-3b",))) == "not_in_hand"
    assert refused(g, cmd.Contribute(0, "earth_temple", 2, ("red-9z",))) == "unknown_card"


def test_dragon_power_with_the_dragon_outside_the_city(game):
    g = arrange(game, 0, hand=("black-2a",))
    assert refused(g, cmd.MoveDragon(0, "black-2a", "courtyard")) == "dragon_outside"


def test_wrong_power(game):
    assert refused(game, cmd.FlyFigure(0, "red-1a", "library")) == "wrong_power"
    assert refused(game, cmd.FlyDragon(0, "red-3a", "library")) == "wrong_power"


def test_offering_away_from_the_courtyard(game):
    g = arrange(game, 0, position="library", crystals=20)
    assert refused(g, cmd.Offer(0)) == "not_at_courtyard"


def test_pillar_without_a_prior_offering(game):
    g = arrange(game, 0, crystals=20)
    assert refused(g, cmd.Offer(0, "yellow-1a")) == "pillar_without_offering"


def test_not_enough_crystals(game):
    g = arrange(game, 0, crystals=6)
    assert refused(g, cmd.Offer(0)) == "not_enough_crystals"


def test_too_many_discards(game):
    assert refused(game, cmd.EndTurn(0, ("red-3a", "red-1a", "blue-2a"))) == "too_many_discards"


def test_any_colour_space_needs_a_colour(game):
    g = arrange(game, 0, position="royal_palace")
    assert refused(g, cmd.Contribute(0, "royal_palace", 3, ("red-3a",))) == "colour_required"


def test_not_adjacent_and_unknown_tile(game):
    far = next(t for t in game.city.tiles if game.city.distances["courtyard"][t] == 2)
    assert refused(game, cmd.Move(0, far)) == "not_adjacent"
    assert refused(game, cmd.Move(0, "atlantis")) == "unknown_tile"


def test_refusal_changes_nothing(game):
    before = game
    refused(game, cmd.Offer(0))
    assert game == before
