"""Game options chosen at creation (R1) and the numbers that depend on them (R2)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Edition(str, Enum):
    """Which rulebook's numbers apply."""

    CLASSIC = "classic"  #: Kosmos / Fantasy Flight 2006
    CMON = "cmon"  #: CMON 2018


class Layout(str, Enum):
    """How the city is laid out."""

    STANDARD = "standard"  #: starting tiles next to the Courtyard, the rest random
    VARIANT = "variant"  #: every tile random around the Courtyard
    EXPLICIT = "explicit"  #: a given grid, deck order and first player (re-entered games, tests)


_SCALES = {Edition.CLASSIC: {2: 9, 3: 12, 4: 15}, Edition.CMON: {2: 7, 3: 10, 4: 12}}
_OBELISK = (7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12)
_OFFERINGS_TO_WIN = {2: 6, 3: 5, 4: 4}
MARKERS_PER_PLAYER = 10
PLAYERS = (2, 3, 4)  #: the numbers of players a game can have
HAND_SIZE = 8


@dataclass(frozen=True, slots=True)
class Options:
    """Everything fixed when a game is created."""

    players: int
    edition: Edition = Edition.CMON
    expansion: bool = False
    layout: Layout = Layout.STANDARD

    def __post_init__(self) -> None:
        if self.players not in PLAYERS:
            raise ValueError("players must be 2, 3 or 4")
        if self.expansion and self.edition is not Edition.CMON:
            raise ValueError("the expansion buildings exist in the cmon edition only")

    @property
    def scale_supply(self) -> int:
        """Golden scales in the supply at the start."""
        return _SCALES[self.edition][self.players]

    @property
    def obelisk(self) -> tuple[int, ...]:
        """Obelisk spaces bottom-up; two players leave out two of the 7s."""
        return _OBELISK[2:] if self.players == 2 else _OBELISK

    @property
    def offerings_to_win(self) -> int:
        return _OFFERINGS_TO_WIN[self.players]
