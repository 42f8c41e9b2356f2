"""Build any game situation from an explicit setup, for rule tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain import Edition, Game, Layout, Options, decide, evolve, fold, new_game
from domain.city import Cell, generate
from domain.commands import Command
from domain.events import Event
from domain.state import Site

SEED = b"rulebook-examples"


def explicit_game(
    players: int = 2,
    edition: Edition = Edition.CMON,
    expansion: bool = False,
    grid: dict[str, Cell] | None = None,
    first_player: int = 0,
) -> Game:
    """A game on an explicit layout: a standard one with the given tiles moved to the given
    cells (the tiles there swap places with them)."""
    placement = generate(Options(players, Edition.CLASSIC if not expansion else edition, expansion), SEED)
    for tile, cell in (grid or {}).items():
        other = next(t for t, c in placement.items() if c == cell)
        placement[other], placement[tile] = placement[tile], cell
    options = Options(players, edition, expansion, Layout.EXPLICIT)
    return fold(new_game(options, SEED, grid=placement, first_player=first_player))


def arrange(game: Game, seat: int, *, hand: tuple[str, ...] | None = None, **changes: Any) -> Game:
    """Change one player; a new hand is taken from wherever those cards were, and the old
    hand goes to the bottom of the deck, so all 80 cards stay accounted for."""
    if hand is not None:
        wanted = set(hand)
        old = game.players[seat].hand
        players = [replace(p, hand=tuple(c for c in p.hand if c not in wanted)) for p in game.players]
        deck = tuple(c for c in game.deck if c not in wanted) + tuple(c for c in old if c not in wanted)
        discard = tuple(c for c in game.discard if c not in wanted)
        players[seat] = replace(players[seat], hand=tuple(hand))
        game = replace(game, players=tuple(players), deck=deck, discard=discard)
    players = list(game.players)
    players[seat] = replace(players[seat], **changes)
    return _begun_here(replace(game, players=tuple(players)))


def _begun_here(game: Game) -> Game:
    """An arranged position is where the turn begins: a take-back (P17) returns to it."""
    if game.turn_start is None or game.turn_start.version != game.version:
        return game
    return replace(game, turn_start=replace(game, turn_start=None))


def site(game: Game, building: str, markers: tuple[int | None, ...] | None = None, reconstructed: bool = False) -> Game:
    """Put markers on a building (taken from their owners' supply) or mark it reconstructed."""
    sites = dict(game.sites)
    old = sites[building]
    markers = markers if markers is not None else (None,) * len(old.markers)
    sites[building] = Site(building, markers, reconstructed)
    players = list(game.players)
    for owner in markers:
        if owner is not None:
            players[owner] = replace(players[owner], markers=players[owner].markers - 1)
    return _begun_here(replace(game, sites=sites, players=tuple(players)))


def dragons(game: Game, **where: str | None) -> Game:
    from domain.peoples import Dragon

    placed = dict(game.dragons)
    for name, tile in where.items():
        placed[Dragon(name)] = tile
    return _begun_here(replace(game, dragons=placed))


def play(game: Game, *commands: Command) -> tuple[Game, list[Event]]:
    """Decide and apply each command in turn; returns the final state and all events."""
    events: list[Event] = []
    for command in commands:
        new = decide(game, command)
        for e in new:
            game = evolve(game, e)
        events += new
    return game, events
