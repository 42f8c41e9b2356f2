"""Properties over random legal play from random seeds, every player count, both editions."""

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from domain import (
    IllegalCommand,
    InvalidCommand,
    decide,
    evolve,
    fold,
    legal_commands,
    new_game,
    redact,
    view,
)
from domain import commands as cmd
from domain.options import MARKERS_PER_PLAYER
from domain.peoples import CARDS
from tests.support.properties import SETTINGS, games


def _invariants(g, options):
    cards = list(g.deck) + list(g.discard) + [c for p in g.players for c in p.hand + p.aside]
    assert len(cards) == 80 and set(cards) == set(CARDS)
    for p in g.players:
        on_board = sum(m == p.seat for s in g.sites.values() for m in s.markers) + g.obelisk.count(p.seat)
        assert on_board + p.markers == MARKERS_PER_PLAYER
    if g.scale_supply > 0:
        assert g.scale_supply + sum(p.scales for p in g.players) == options.scale_supply
    for seat in range(options.players):
        v = repr(view(g, seat))
        for other in g.players:
            if other.seat != seat and not g.finished:
                assert all(repr(c) not in v for c in other.hand + other.aside)


def _mutations(c, players):
    """Commands near a legal one that the rules must refuse."""
    yield replace(c, seat=(c.seat + 1) % players)
    yield replace(c, seat=players)
    if isinstance(c, cmd.Contribute):
        yield replace(c, space=99)
        yield replace(c, building="atlantis")
        yield replace(c, cards=(*c.cards, "no-such-card"))
    if isinstance(c, (cmd.Move, cmd.FlyFigure, cmd.MoveDragon)):
        yield replace(c, to="atlantis")
    if isinstance(c, cmd.EndTurn):
        yield replace(c, discards=("not-a-card",))


@SETTINGS
@given(games, st.randoms(use_true_random=False), st.integers(10, 50))
def test_random_legal_play_keeps_every_invariant(setup, rnd, turns):
    options, seed = setup
    events = new_game(options, seed)
    g = fold(events)
    while not g.finished and g.turn.number <= turns:
        seat = g.turn.seat
        legal = list(legal_commands(g, seat))
        assert legal, "a seat whose turn it is always has a legal command"
        for other in range(options.players):
            if other != seat:
                assert not list(legal_commands(g, other))
        command = rnd.choice(legal)
        for bad in _mutations(command, options.players):
            if bad == command:
                continue
            try:
                decide(g, bad)
            except (IllegalCommand, InvalidCommand):
                pass
            else:
                raise AssertionError(f"{bad} should be refused")
        new = decide(g, command)
        assert new, f"{command} decided nothing"
        for e in new:
            g = evolve(g, e)
        events += new
        _invariants(g, options)
    assert fold(events) == g


@SETTINGS
@given(games)
def test_seeded_setup_is_reproducible(setup):
    options, seed = setup
    assert new_game(options, seed) == new_game(options, seed)


@SETTINGS
@given(games, st.randoms(use_true_random=False))
def test_every_legal_contribution_is_minimal(setup, rnd):
    options, seed = setup
    g = fold(new_game(options, seed))
    seat = g.turn.seat
    for tile in rnd.sample(sorted(g.sites), 6):
        here = replace(g, players=tuple(replace(p, position=tile) if p.seat == seat else p for p in g.players))
        for c in legal_commands(here, seat):
            if isinstance(c, cmd.Contribute):
                decide(here, c)
                for i in range(len(c.cards)):
                    smaller = c.cards[:i] + c.cards[i + 1 :]
                    targets = {t for h in c.hoax for t in h.targets}
                    if not smaller or c.cards[i] in targets:
                        continue
                    try:
                        decide(here, replace(c, cards=smaller))
                    except IllegalCommand:
                        continue
                    raise AssertionError(f"{c} is not minimal: {c.cards[i]} could be left out")


@SETTINGS
@given(games)
def test_redacted_events_never_carry_another_seats_cards(setup):
    options, seed = setup
    for e in new_game(options, seed):
        for seat in range(options.players):
            r = redact(e, seat)
            cards = getattr(r, "cards", None)
            if cards is not None and getattr(r, "seat", seat) != seat:
                raise AssertionError(f"{e} leaks to seat {seat}")
            assert getattr(r, "order", None) is None and getattr(r, "seed", None) is None


def _kinds(cards):
    return sorted(CARDS[c].kind for c in cards)


def _universe(g, seat):
    """A broad set of commands, legal or not, to compare decide with legal_commands."""
    hand = g.players[seat].hand
    tiles = list(g.city.tiles)
    yield from (cmd.Move(seat, t) for t in tiles)
    for c in hand:
        yield cmd.GainSteps(seat, c)
        yield cmd.Offer(seat, c)
        yield cmd.EndTurn(seat, (c,))
        for t in tiles:
            yield cmd.FlyFigure(seat, c, t)
            yield cmd.FlyDragon(seat, c, t)
            yield cmd.MoveDragon(seat, c, t)
        yield cmd.FlyDragon(seat, c, None)
    yield cmd.Offer(seat)
    yield cmd.UseAction(seat)
    yield from (cmd.UseAction(seat, t) for t in tiles)
    yield cmd.EndTurn(seat)
    site = g.sites.get(g.players[seat].position)
    if site is not None:
        from itertools import combinations

        for space in range(len(site.markers)):
            for n in (1, 2):
                for cards in combinations(sorted(hand), n):
                    yield cmd.Contribute(
                        seat,
                        site.building,
                        space,
                        cards,
                        None if site.building != "royal_palace" else CARDS[cards[0]].colour.value,
                    )


def _covered(command, legal):
    """Whether legal_commands lists this accepted command, up to interchangeable cards (and,
    for a contribution, some minimal payment within the same cards)."""
    for c in legal:
        if type(c) is not type(command):
            continue
        if isinstance(command, cmd.Contribute):
            if c.space == command.space and not c.hoax and c.colour == command.colour:
                spent = list(_kinds(command.cards))
                if all(spent.count(k) >= _kinds(c.cards).count(k) for k in _kinds(c.cards)):
                    return True
        elif isinstance(command, cmd.EndTurn):
            if _kinds(c.discards) == _kinds(command.discards):
                return True
        else:
            fields = {k: getattr(command, k) for k in command.__dataclass_fields__}
            other = {k: getattr(c, k) for k in c.__dataclass_fields__}
            for key in ("card", "pillar"):
                if fields.get(key) and other.get(key):
                    fields[key], other[key] = CARDS[fields[key]].kind, CARDS[other[key]].kind
            if fields == other:
                return True
    return False


@SETTINGS
@given(games, st.randoms(use_true_random=False), st.integers(0, 30))
def test_every_command_decide_accepts_is_listed_by_legal_commands(setup, rnd, turns):
    options, seed = setup
    g = fold(new_game(options, seed))
    while not g.finished and g.turn.number <= turns:
        for e in decide(g, rnd.choice(list(legal_commands(g, g.turn.seat)))):
            g = evolve(g, e)
    if g.finished:
        return
    seat = g.turn.seat
    legal = list(legal_commands(g, seat))
    for command in _universe(g, seat):
        try:
            decide(g, command)
        except (IllegalCommand, InvalidCommand):
            continue
        assert _covered(command, legal), f"{command} is legal but not listed"
