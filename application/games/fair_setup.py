"""A setup given instead of drawn is fair only among the creator's own seats (ruling P9).

Whoever gives the grid, the deck, the first player or a whole position (a scenario) knows what
every seat was dealt and will draw. That is fine for the creator's own games (a table re-entered,
a situation rehearsed, a test); it is a stacked deck for anyone who joins. So a given setup is
taken only when every human seat is held by the creator at creation: each human seat's token is
in the creation's answer (a signed-in creator's first one in their account), and no seat is
open, since its invite would hand the seat to someone who cannot know. Such a game is never
rated, and its views list what was given (``given``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from application.refusals import ServiceError


class Seat(Protocol):
    """A seat as asked for (games.SeatSpec): human, open or bot."""

    @property
    def kind(self) -> str: ...


class GivenSetupNeedsOwnSeats(ServiceError):
    status, code, title = (
        422,
        "given_setup_needs_own_seats",
        "A given setup is only for games whose seats are all yours",
    )


def given_fields(
    *,
    grid: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    first_player: int | None = None,
    scenario: object | None = None,
) -> list[str]:
    """The request's fields that give a part of the setup instead of drawing it from the seed."""
    parts = {"setup.grid": grid, "setup.deck": deck, "setup.first_player": first_player, "scenario": scenario}
    return [name for name, given in parts.items() if given is not None]


def refuse_unfair_setup(seats: Sequence[Seat], rated: bool, **given: Any) -> None:
    """Refuse a given setup (``given_fields``' keywords) beside an open seat, or in a rated game."""
    fields = given_fields(**given)
    if not fields:
        return
    field = fields[0]
    open_seats = [i for i, seat in enumerate(seats) if seat.kind == "open"]
    if open_seats:
        detail = (
            f"{', '.join(fields)} given instead of drawn, and seat {open_seats[0]} is open: a setup is given only "
            "when every human seat is yours at creation (its token in this answer); leave the setup to the seed, "
            "or make every human seat yours"
        )
        raise GivenSetupNeedsOwnSeats(detail, field=field, errors={name: [detail] for name in fields})
    if rated:
        detail = f"{', '.join(fields)} given instead of drawn: such a game is never rated"
        raise GivenSetupNeedsOwnSeats(detail, field="rated", errors={"rated": [detail]})
