"""No-shows: a player who does not play their game of a round is counted absent for that round,
and withdrawn once absent twice (not necessarily in a row).

"Did not play" is the application's to judge from the game: the player made no move of their
own in it (every turn of theirs was played by the clock). The domain only counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable

ABSENCES_TO_WITHDRAW = 2  #: rounds a player may miss; at the second they are withdrawn


def count_absences(no_shows: Iterable[Collection[str]]) -> dict[str, int]:
    """Each player's rounds missed, from each finished round's set of absent players."""
    return dict(Counter(player for absent in no_shows for player in set(absent)))


def absent_after(no_shows: Iterable[Collection[str]], withdrawn: Collection[str]) -> set[str]:
    """Who is to be withdrawn now, after the rounds whose absent players are ``no_shows``: those
    absent ``ABSENCES_TO_WITHDRAW`` times or more and not withdrawn already. The application
    calls it when a round's games have all ended, before pairing the next round."""
    return {p for p, n in count_absences(no_shows).items() if n >= ABSENCES_TO_WITHDRAW and p not in withdrawn}
