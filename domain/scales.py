"""Golden scales' scoring when the supply runs out (R8), from the scales each seat holds.

Both the decision (which emits ``ScalesScored``) and a count of crystals from public events
(``Player.counted``) use it: the scale counts are public, so the awards are too.
"""

from __future__ import annotations

from collections.abc import Sequence

SOLE_MOST = 6  #: crystals for the only seat with the most scales
SHARED_OR_THREE = 3  #: for a seat tied for the most, or holding at least three


def scale_awards(scales: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """(seat, crystals) for each seat paid, in seat order."""
    most = max(scales)
    top = [seat for seat, held in enumerate(scales) if held == most]
    awards = []
    for seat, held in enumerate(scales):
        if seat in top:
            awards.append((seat, SOLE_MOST if len(top) == 1 else SHARED_OR_THREE))
        elif held >= 3:
            awards.append((seat, SHARED_OR_THREE))
    return tuple(awards)
