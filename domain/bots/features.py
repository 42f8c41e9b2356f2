"""A position in numbers, as one seat sees it: the value model's input.

``seat_features(observation, viewer)`` gives one row per seat, all read from what ``viewer``
may see (``observe``): its own crystals and hand, and of the others only what is public
(offerings, scales, markers, building shares, hand sizes). Every row has the same columns in
the same order whichever seat it describes, so one set of weights judges any seat of a 2-, 3-
or 4-player game. A row holds the seat's own numbers (``OWN``), the best of its rivals' public
numbers (``RIVALS``: a lead means little without knowing the runner-up) and the game's
(``GAME``): how far it has come, with how many players, under which rules.
"""

from __future__ import annotations

from ..options import Edition
from ..state import Game
from .heuristic import POINTS, SPARE_MARKERS, building_share

#: A seat's own numbers, each scaled to about 0-1 (the names say what is counted).
OWN = (
    "offerings",  # offerings made / offerings needed to win
    "offering_value",  # heuristic's offering term: offerings * (1 + offerings / needed) / 10
    "one_to_go",  # 1 when one more offering wins
    "scales",  # golden scales / 5
    "markers",  # markers in supply / 10
    "spare_markers",  # heuristic's worth of the markers in supply / 10
    "shares",  # heuristic's shares of unfinished buildings / 10
    "majorities",  # unfinished buildings where the seat leads or ties the markers / 4
    "cards",  # cards in hand and aside / 10 (public: hand sizes are seen)
    "to_play",  # seats to go before the seat's turn / players (0: it is playing now)
    "viewer",  # 1 for the seat whose view this is
    "crystals",  # crystals / 10: known for the viewer only (0 for the others)
    "card_points",  # points of the cards in hand and aside / 20: the viewer's only
    "can_offer",  # 1 when the viewer's crystals pay the next obelisk space
)
#: The best value among the other seats of these own numbers.
RIVALS = ("offerings", "offering_value", "one_to_go", "scales", "markers", "shares", "majorities", "cards")
_RIVAL_COLUMNS = tuple(OWN.index(name) for name in RIVALS)
#: The game's numbers, the same in every row.
GAME = (
    "three_players",
    "four_players",
    "classic",
    "expansion",
    "obelisk",  # fraction of the obelisk's spaces filled
    "rebuilt",  # fraction of the buildings rebuilt
    "turn",  # turn number / 50
)
NAMES = (*OWN, *(f"best_rival_{name}" for name in RIVALS), *GAME)


def seat_features(observation: Game, viewer: int) -> list[list[float]]:
    """One row of ``NAMES`` per seat, from ``viewer``'s observation of an unfinished game."""
    options = observation.options
    players = options.players
    needed = options.offerings_to_win
    sites = observation.sites
    open_space = observation.next_obelisk_space()
    next_cost = options.obelisk[open_space] if open_space is not None else None
    turn = observation.turn
    mover = turn.seat if turn is not None else 0
    unfinished = [site for site in sites.values() if not site.reconstructed]
    shares = [0.0] * players
    majorities = [0] * players
    for site in unfinished:
        markers = site.markers
        counts = [markers.count(s) for s in range(players)]
        if not any(counts):
            continue
        for seat, count in enumerate(counts):
            if count:
                shares[seat] += building_share(observation, seat, site.building)
                if count >= max(c for s, c in enumerate(counts) if s != seat):
                    majorities[seat] += 1
    own: list[list[float]] = []
    for p in observation.players:
        seat = p.seat
        is_viewer = seat == viewer
        crystals = p.crystals if is_viewer else 0
        points = sum(POINTS.get(c, 0) for c in p.hand) + sum(POINTS.get(c, 0) for c in p.aside) if is_viewer else 0
        own.append(
            [
                p.offerings / needed,
                p.offerings * (1 + p.offerings / needed) / 10,
                1.0 if p.offerings == needed - 1 else 0.0,
                p.scales / 5,
                p.markers / 10,
                sum(SPARE_MARKERS[: p.markers]) / 10,
                shares[seat] / 10,
                majorities[seat] / 4,
                (len(p.hand) + len(p.aside)) / 10,
                ((seat - mover) % players) / players,
                1.0 if is_viewer else 0.0,
                crystals / 10,
                points / 20,
                1.0 if is_viewer and next_cost is not None and p.markers and crystals >= next_cost else 0.0,
            ]
        )
    game = [
        1.0 if players == 3 else 0.0,
        1.0 if players == 4 else 0.0,
        1.0 if options.edition is Edition.CLASSIC else 0.0,
        1.0 if options.expansion else 0.0,
        sum(owner is not None for owner in observation.obelisk) / len(observation.obelisk),
        1 - len(unfinished) / len(sites),
        (turn.number if turn is not None else 0) / 50,
    ]
    rows = []
    for seat, mine in enumerate(own):
        others = [own[s] for s in range(players) if s != seat]
        best = [max(row[i] for row in others) for i in _RIVAL_COLUMNS]
        rows.append(mine + best + game)
    return rows
