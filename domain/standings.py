"""A finished game's finishing order, for ratings (P18): each seat's place, ties shared."""

from __future__ import annotations

from .state import EndReason, Game


def places(game: Game) -> tuple[int, ...]:
    """Each seat's place, 1 the best, in the competition style ("1, 2, 2, 4"). The winners share
    place 1; the others follow by offerings, then crystals (the order R11 scores by), and seats
    equal on both share a place. A drawn game (every marker placed, nobody won) is one shared
    place for all."""
    if game.result is None:
        raise ValueError("the game has not ended")
    if game.result.reason is EndReason.DRAW:
        return (1,) * len(game.players)
    winners = set(game.result.winners)

    def key(seat: int) -> tuple[int, int, int]:
        p = game.players[seat]
        return (seat in winners, p.offerings, p.crystals)

    keys = [key(seat) for seat in range(len(game.players))]
    return tuple(1 + sum(other > mine for other in keys) for mine in keys)
