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
from itertools import combinations, product

from ..rng import shuffled
from .layout import table_sizes
from .records import Entrant, Round, Table

COVERING_TRIES = 24  #: schedules a round robin at tables of 3 or 4 tries; the shortest is kept
COVERING_SEED = b"round-robin"  #: the seeded generator's key for the tries' tie-breaks


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
    """The shortest of ``COVERING_TRIES`` schedules, then the one with the fewest repeat meetings;
    the first try breaks ties by rating, the others by the seeded generator (``domain.rng``), so
    the schedule is the same every time."""
    best: list[list[tuple[str, ...]]] | None = None
    best_byes: list[tuple[str, ...]] = []
    for attempt in range(COVERING_TRIES):
        tables, byes = _one_covering(players, table_size, attempt)
        if best is None or (len(tables), _repeats(tables)) < (len(best), _repeats(best)):
            best, best_byes = tables, byes
    assert best is not None
    return [
        Round(number, tuple(Table(_in_order(t, players)) for t in round_tables), round_byes)
        for number, (round_tables, round_byes) in enumerate(zip(best, best_byes), 1)
    ]


def _one_covering(
    players: list[str], table_size: int, attempt: int
) -> tuple[list[list[tuple[str, ...]]], list[tuple[str, ...]]]:
    """Rounds until every pair has met: each table started by the player with the most
    tablemates still to meet, filled with whoever meets the most new ones (then whoever the table
    has met least), then players exchanged between tables while that meets more new pairs."""
    met: Counter[frozenset[str]] = Counter()
    unmet = {frozenset(pair) for pair in combinations(players, 2)}
    sizes, bye_count = table_sizes(len(players), table_size)
    byes: Counter[str] = Counter()
    schedule: list[list[tuple[str, ...]]] = []
    sat_out: list[tuple[str, ...]] = []
    while unmet or len({byes[p] for p in players}) > 1:
        if len(schedule) > len(players) * len(players):
            raise AssertionError("the covering does not end")
        label = f"round-robin/{len(players)}/{table_size}/{attempt}/{len(schedule)}"
        order = list(players) if attempt == 0 else list(shuffled(COVERING_SEED, label, players))
        rank = {p: i for i, p in enumerate(order)}

        def new(p: str, among: list[str]) -> int:
            return sum(frozenset((p, q)) in unmet for q in among if q != p)

        sitting_out = sorted(players, key=lambda p: (byes[p], -new(p, players), rank[p]))[:bye_count]
        left = [p for p in order if p not in sitting_out]
        tables: list[list[str]] = []
        for size in sizes:
            table = [min(left, key=lambda p: (-new(p, left), rank[p]))]
            left.remove(table[0])
            while len(table) < size:
                pick = min(left, key=lambda p: (-new(p, table), sum(met[frozenset((p, q))] for q in table), rank[p]))
                table.append(pick)
                left.remove(pick)
            tables.append(table)
        _exchange_for_new_pairs(tables, unmet)
        for table in tables:
            pairs = [frozenset(pair) for pair in combinations(table, 2)]
            met.update(pairs)
            unmet.difference_update(pairs)
        byes.update(sitting_out)
        schedule.append([tuple(t) for t in tables])
        sat_out.append(tuple(sitting_out))
    return schedule, sat_out


def _exchange_for_new_pairs(tables: list[list[str]], unmet: set[frozenset[str]]) -> None:
    """Swaps players between two tables while a swap makes the round meet more new pairs."""

    def new_pairs(table: list[str]) -> int:
        return sum(frozenset(pair) in unmet for pair in combinations(table, 2))

    improved = True
    while improved:
        improved = False
        for a, b in combinations(range(len(tables)), 2):
            before = new_pairs(tables[a]) + new_pairs(tables[b])
            for i, j in product(range(len(tables[a])), range(len(tables[b]))):
                tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                if new_pairs(tables[a]) + new_pairs(tables[b]) > before:
                    improved = True
                    break
                tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
            if improved:
                break


def _repeats(schedule: list[list[tuple[str, ...]]]) -> int:
    met = Counter(frozenset(pair) for tables in schedule for t in tables for pair in combinations(t, 2))
    return sum(n - 1 for n in met.values())
