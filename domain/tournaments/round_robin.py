"""Round robin schedules: every pair of players shares a table at least once.

At tables of 2 this is the circle method: one player stays put while the others turn, n − 1
rounds for an even field and n for an odd one, where each round's odd player out has a bye.
At tables of 3 and 4 it is a covering built round by round: each table is started by the
player with the most tablemates still to meet and filled with whoever meets the most new ones,
until every pair has met. Players whose pairs are all covered still play (they fill the
tables), so everyone plays every round. Tables and byes follow ``layout.table_sizes``; if a
round has a bye, it goes to whoever has had the fewest, and the schedule runs on until
everyone has had as many byes (five at tables of 4: five rounds, one bye each)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from .layout import table_sizes
from .records import Entrant, Round, Table


def round_robin(entrants: Sequence[Entrant], table_size: int) -> list[Round]:
    """The whole schedule, rounds numbered from 1; players in order of rating, then name."""
    players = [e.player for e in sorted(entrants, key=lambda e: (-e.rating, e.player))]
    if table_size == 2:
        return _circle(players)
    return _covering(players, table_size)


def _circle(players: list[str]) -> list[Round]:
    ring: list[str | None] = [*players, None] if len(players) % 2 else list(players)
    n = len(ring)
    rounds = []
    for number in range(1, n):
        pairs = [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]
        tables = tuple(Table(_in_order((a, b), players)) for a, b in pairs if a is not None and b is not None)
        byes = tuple(p for a, b in pairs for p in (a, b) if p is not None and None in (a, b))
        rounds.append(Round(number, tables, byes))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _in_order(table: tuple[str, ...], players: list[str]) -> tuple[str, ...]:
    """A table's seats in the schedule's order of players (the game draws who starts)."""
    return tuple(sorted(table, key=players.index))


def _covering(players: list[str], table_size: int) -> list[Round]:
    unmet = {frozenset(pair) for pair in combinations(players, 2)}
    sizes, bye_count = table_sizes(len(players), table_size)
    byes: Counter[str] = Counter()
    rounds: list[Round] = []
    while unmet or (bye_count and len({byes[p] for p in players}) > 1):
        order = sorted(players, key=lambda p: (byes[p], -_unmet_count(p, players, unmet), -players.index(p)))
        sitting_out = order[:bye_count]
        left = [p for p in players if p not in sitting_out]
        tables = []
        for size in sizes:
            seed = max(left, key=lambda p: (_unmet_count(p, left, unmet), -left.index(p)))
            table = [seed]
            left.remove(seed)
            while len(table) < size:
                best = max(left, key=lambda p: (sum(frozenset((p, t)) in unmet for t in table), -left.index(p)))
                table.append(best)
                left.remove(best)
            tables.append(Table(_in_order(tuple(table), players)))
        covered = {frozenset(pair) for t in tables for pair in combinations(t.players, 2)}
        if not covered & unmet and not bye_count:
            raise AssertionError("a round of the covering met no new pair")
        unmet -= covered
        byes.update(sitting_out)
        rounds.append(Round(len(rounds) + 1, tuple(tables), tuple(sitting_out)))
    return rounds


def _unmet_count(player: str, among: list[str], unmet: set[frozenset[str]]) -> int:
    return sum(frozenset((player, other)) in unmet for other in among if other != player)
