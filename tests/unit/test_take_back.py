"""Ruling P17: within your own turn you may take back your steps and contributions while
nothing hidden has been revealed and nobody else has gained anything since the turn began."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import IllegalCommand, decide, evolve, fold, legal_commands, new_game
from domain import commands as cmd
from domain import events as ev
from domain.bots.observation import observe
from domain.decide import TAKE_BACKS_PER_TURN
from events.snapshots import decode_state, encode_state
from tests.situations import arrange, dragons, explicit_game, play, site
from tests.support.properties import SETTINGS, games

#: What closes a turn to take-backs, as the ruling words it: a card drawn, the deck shuffled,
#: a building completed (others score), an offering made.
CLOSING = (ev.CardsDrawn, ev.DeckReshuffled, ev.BuildingCompleted, ev.OfferingMade)


def same_position(a, b) -> bool:
    """Equal but for the version, the remembered turn start and the turn's count of take-backs
    (which a take-back adds to: P17 limits them)."""

    def plain(g):
        return replace(g, version=0, turn_start=None, turn=g.turn and replace(g.turn, taken_back=0))

    return plain(a) == plain(b)


def refused(game, command) -> str:
    with pytest.raises(IllegalCommand) as refusal:
        decide(game, command)
    return refusal.value.code


def next_to(game, tile):
    return next(t for t in game.city.neighbours[tile] if t != "courtyard")


def a_busy_turn():
    """Seat 0 next to the Earth Temple with its red dragon there: a Flit 2, a step, a
    contribution that earns a dragon's scale."""
    g = explicit_game(2)
    g = dragons(g, red="earth_temple")
    g = arrange(g, 0, position=next_to(g, "earth_temple"), hand=("grey-2a", "red-3a", "red-2a", "blue-1a"))
    return g


def test_p17_a_take_back_undoes_steps_powers_and_contributions_to_the_turns_start():
    start = a_busy_turn()
    g, events = play(
        start,
        cmd.GainSteps(0, "grey-2a"),
        cmd.Move(0, "earth_temple"),
        cmd.Contribute(0, "earth_temple", 0, ("red-3a", "red-2a")),
    )
    assert g.players[0].scales == 1 and g.sites["earth_temple"].markers[0] == 0  # it all happened
    assert cmd.TakeBack(0) in legal_commands(g, 0, take_back=True)
    assert cmd.TakeBack(0) not in legal_commands(g, 0)  # bots are never offered it
    back, taken = play(g, cmd.TakeBack(0))
    assert taken == [ev.TurnTakenBack(0, start.version)]
    assert same_position(back, start) and back.version == g.version + 1
    assert back.players[0].hand == start.players[0].hand and back.discard == start.discard
    assert back.scale_supply == start.scale_supply and back.turn == replace(start.turn, taken_back=1)


def test_p17_the_turn_goes_on_after_a_take_back_and_may_be_taken_back_again():
    start = a_busy_turn()
    g, _ = play(start, cmd.Move(0, "earth_temple"), cmd.TakeBack(0))
    assert refused(g, cmd.TakeBack(0)) == "nothing_to_take_back"
    g, _ = play(g, cmd.GainSteps(0, "grey-2a"))
    g, events = play(g, cmd.TakeBack(0))
    assert same_position(g, start)
    g, events = play(g, cmd.EndTurn(0))
    assert g.turn.seat == 1 and refused(g, cmd.TakeBack(1)) == "nothing_to_take_back"


def test_p17_nothing_to_take_back_at_the_start_and_never_in_another_seats_turn():
    g = a_busy_turn()
    assert refused(g, cmd.TakeBack(0)) == "nothing_to_take_back"
    g, _ = play(g, cmd.Move(0, "earth_temple"))
    assert refused(g, cmd.TakeBack(1)) == "not_your_turn"
    assert list(legal_commands(g, 1, take_back=True)) == []


def test_p17_a_card_drawn_closes_the_turn_to_take_backs():
    g = explicit_game(2, expansion=True)
    g = arrange(g, 0, position=next_to(g, "hospital"), hand=("blue-3a",))
    g, _ = play(g, cmd.Move(0, "hospital"), cmd.UseAction(0))  # the Hospital draws two cards
    assert refused(g, cmd.TakeBack(0)) == "take_back_closed"
    assert cmd.TakeBack(0) not in legal_commands(g, 0, take_back=True)


def test_p17_a_completed_building_closes_the_turn_to_take_backs():
    g = explicit_game(2)
    g = site(g, "library", markers=(1, None))
    g = arrange(g, 0, position="library", hand=("white-3a",))
    g, events = play(g, cmd.Contribute(0, "library", 1, ("white-3a",)))
    assert any(isinstance(e, ev.BuildingCompleted) for e in events)
    assert refused(g, cmd.TakeBack(0)) == "take_back_closed"


def test_p17_an_offering_closes_the_turn_to_take_backs():
    g = explicit_game(2)
    g = arrange(g, 0, crystals=20)
    g, _ = play(g, cmd.Offer(0))
    assert refused(g, cmd.TakeBack(0)) == "take_back_closed"


def test_p17_the_turns_start_is_kept_in_snapshots_and_hidden_from_bots():
    g, _ = play(a_busy_turn(), cmd.Move(0, "earth_temple"))
    assert g.turn_start is not None
    assert decode_state(encode_state(g)) == g
    assert observe(g, 1).turn_start is None  # it would hold seat 0's hand and the deck


@SETTINGS
@given(games, st.integers(0, 2**32), st.integers(5, 30))
def test_a_take_back_leaves_the_state_the_turn_began_with(setup, choices, turns):
    options, seed = setup
    rnd = random.Random(choices)  # the choices drawn from one number: hypothesis keeps the example small
    events = new_game(options, seed)
    g = fold(events)
    start, moved, closed, taken = g, False, False, 0
    while not g.finished and g.turn.number <= turns:
        seat = g.turn.seat
        legal = list(legal_commands(g, seat, take_back=True))
        assert (cmd.TakeBack(seat) in legal) == (moved and not closed and taken < TAKE_BACKS_PER_TURN)
        if moved and closed:
            assert refused(g, cmd.TakeBack(seat)) == "take_back_closed"
        elif moved and taken >= TAKE_BACKS_PER_TURN:
            assert refused(g, cmd.TakeBack(seat)) == "take_back_limit"
        if cmd.TakeBack(seat) in legal and rnd.random() < 0.4:
            command = cmd.TakeBack(seat)
        else:
            command = rnd.choice([c for c in legal if not isinstance(c, cmd.TakeBack)])
        new = decide(g, command)
        for e in new:
            g = evolve(g, e)
        events += new
        if isinstance(command, cmd.TakeBack):
            assert same_position(g, start)
            moved, taken = False, taken + 1
        elif any(isinstance(e, ev.TurnStarted) for e in new):
            start, moved, closed, taken = g, False, False, 0
        else:
            moved, closed = True, closed or any(isinstance(e, CLOSING) for e in new)
    assert fold(events) == g  # the log alone makes the same state, take-backs included
