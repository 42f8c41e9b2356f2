"""How good a position is for one seat: the greedy bot's yardstick and MCTS's leaf value."""

from __future__ import annotations

from ..catalogue import BUILDINGS, COURTYARD, Reward
from ..peoples import CARDS
from ..state import Game

OFFERING = 14.0  #: an offering is worth more than the 7-12 crystals it costs
SCALE = 1.0  #: three scales fetch about three crystals
CARD = 0.8  #: a card won is worth about its average value in hand
CARD_VALUE = 0.25  #: each point of card value in hand: cards only matter as payments
#: Markers are scarce: the last ones in supply are worth most, for without one a seat can
#: neither contribute nor offer.
SPARE_MARKERS = (4.0, 3.0, 2.0, 1.0, 0.5, 0.3, 0.2, 0.2, 0.2, 0.2)
STRANDED = 0.3  #: what a share is worth when the seat lacks the markers to finish it
WIN = 1000.0


def reward_value(r: Reward) -> float:
    return r.crystals + SCALE * r.scales + CARD * r.cards


#: Each building's rewards in value, worked out once: the bots judge thousands of states a turn.
CONSTRUCTION = {name: reward_value(spec.construction) for name, spec in BUILDINGS.items()}
MAJORITY = {name: reward_value(spec.majority) for name, spec in BUILDINGS.items()}
NEIGHBOURHOOD = {name: reward_value(spec.neighbourhood) for name, spec in BUILDINGS.items()}
POINTS = {card: c.value for card, c in CARDS.items()}  #: a card's value by its id


def building_share(state: Game, seat: int, building: str) -> float:
    """What ``seat`` can expect from an unfinished building it has markers on: its bonuses
    if completed, times a likelihood that grows as the building fills."""
    markers = state.sites[building].markers
    mine = markers.count(seat)
    if not mine:
        return 0.0
    best_other = max((markers.count(s) for s in range(state.options.players) if s != seat), default=0)
    share = CONSTRUCTION[building]
    if mine >= best_other:
        share += MAJORITY[building]
    sites = state.sites
    for near in state.city.neighbours[building]:
        if near != COURTYARD and sites[near].reconstructed:
            share += NEIGHBOURHOOD[near]
    still_open = markers.count(None)
    filled = (len(markers) - still_open) / len(markers)
    if still_open > state.players[seat].markers:
        share *= STRANDED  # it cannot finish this building alone: the markers may be stuck
    return share * (0.4 + 0.6 * filled)


def value(state: Game, seat: int, card_value: float = CARD_VALUE) -> float:
    """Crystals, offerings, scales, shares of unfinished buildings, spare markers and the
    cards in hand at ``card_value`` per point (mcts weighs cards lower than greedy)."""
    p = state.players[seat]
    if state.result is not None:
        if seat in state.result.winners:
            return WIN / max(1, len(state.result.winners))
        return -WIN / 4
    v = p.crystals + OFFERING * p.offerings * (1 + p.offerings / state.options.offerings_to_win) + SCALE * p.scales
    for building, site in state.sites.items():
        if not site.reconstructed and seat in site.markers:
            v += building_share(state, seat, building)
    v += sum(SPARE_MARKERS[: p.markers])
    points = POINTS.get
    v += card_value * (sum(points(c, 0) for c in p.hand) + sum(points(c, 0) for c in p.aside))
    return v


def advantage(state: Game, seat: int) -> float:
    """My value minus the best opponent's: what a seat playing to win maximises."""
    mine = value(state, seat)
    others = [value(state, s) for s in range(state.options.players) if s != seat]
    return mine - max(others) if others else mine
