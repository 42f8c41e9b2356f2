"""What a tournament is made of: its entrants, the tables of a round, and a finished table's places."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entrant:
    """A person in the tournament and the rating their pairings are ranked by."""

    player: str
    rating: float


@dataclass(frozen=True)
class Table:
    """One game of a round: its players in seat order (the game draws its first player, R3)."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    """A round's tables and the players who sit it out (byes), numbered from 1."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()

    def players(self) -> tuple[str, ...]:
        """Everyone in the round: seated first, table by table, then the byes."""
        return tuple(p for table in self.tables for p in table.players) + self.byes


@dataclass(frozen=True)
class Outcome:
    """A finished table: each player's place, 1 the best, ties shared as ruling P18 counts them
    (``domain.standings.places``: "1, 2, 2, 4")."""

    players: tuple[str, ...]
    places: tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.players)
        if n < 2 or len(self.places) != n or len(set(self.players)) != n:
            raise ValueError("an outcome needs two or more different players and one place each")
        for place in self.places:
            if place != 1 + sum(other < place for other in self.places):
                raise ValueError(f"places {self.places} are not counted as in sport (1, 2, 2, 4)")
