"""Round robin schedules: every pair of players shares a table at least once.

At tables of 2 this is the circle method: one player stays put while the others turn, n − 1
rounds for an even field and n for an odd one, where each round's odd player out has a bye.
At tables of 3 and 4 it is a covering. First built round by round, the best of a few seeded
tries: each table started by the player with the most tablemates still to meet, filled with
whoever meets the most new ones, then players exchanged between tables while that meets more new
pairs. Then ``covering`` looks for a schedule of fewer rounds, one round fewer at a time, down to
the least any schedule could have. Players whose pairs are all covered still play (they fill the
tables), so everyone plays every round. Tables and byes follow ``layout.table_sizes``; if a
round has a bye, it goes to whoever has had the fewest, and the schedule runs on until everyone
has had as many (five at tables of 4: five rounds, one bye each).

A schedule depends only on the number of players and the table size (players are numbered in
order of rating, then name), so each is worked out once per process and kept."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from functools import cache
from itertools import combinations, product

from ..rng import shuffled
from .covering import COVERING_SEED, covering
from .layout import table_sizes
from .records import Entrant, Round, Table

GREEDY_TRIES = 24  #: seeded tries of the round-by-round covering; the shortest is kept

#: a round of a schedule over players 0 … n − 1: its tables, and who has a bye
Plan = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


def round_robin(entrants: Sequence[Entrant], table_size: int) -> list[Round]:
    """The whole schedule, rounds numbered from 1; players in order of rating, then name, each
    table's players in that order and full tables first."""
    players = [e.player for e in sorted(entrants, key=lambda e: (-e.rating, e.player))]
    rounds = []
    for number, (tables, byes) in enumerate(schedule(len(players), table_size), 1):
        in_order = sorted((sorted(table) for table in tables), key=lambda t: (-len(t), t[0]))
        seated = tuple(Table(tuple(players[i] for i in table)) for table in in_order)
        rounds.append(Round(number, seated, tuple(players[i] for i in byes)))
    return rounds


def round_without(scheduled: Round, withdrawn: Collection[str]) -> Round:
    """A scheduled round as it is played once players have withdrawn: they leave their tables,
    a table keeps playing with those left (scored as a short table), and one left alone has a
    bye instead (worth a win: the player did nothing wrong, as with a Swiss bye)."""
    tables = [tuple(p for p in t.players if p not in withdrawn) for t in scheduled.tables]
    alone = tuple(t[0] for t in tables if len(t) == 1)
    byes = tuple(p for p in scheduled.byes if p not in withdrawn) + alone
    return Round(scheduled.number, tuple(Table(t) for t in tables if len(t) >= 2), byes)


@cache
def schedule(players: int, table_size: int) -> tuple[Plan, ...]:
    """The schedule over players 0 … n − 1 (0 the best rated)."""
    if players < 2:
        return ()
    if table_size == 2:
        return _circle(players)
    best = min(
        (_greedy(players, table_size, attempt) for attempt in range(GREEDY_TRIES)), key=lambda s: (len(s), _repeats(s))
    )
    sizes, byes = table_sizes(players, table_size)
    if byes:
        return best
    least = max(
        math.ceil((players - 1) / (table_size - 1)),
        math.ceil(math.comb(players, 2) / sum(math.comb(s, 2) for s in sizes)),
    )
    for rounds in range(len(best) - 1, least - 1, -1):
        shorter = covering(players, sizes, rounds)
        if shorter is None:
            break
        best = tuple((tuple(tuple(t) for t in tables), ()) for tables in shorter)
    return best


def _circle(players: int) -> tuple[Plan, ...]:
    ring: list[int | None] = [*range(players), None] if players % 2 else list(range(players))
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        pairs = [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]
        tables = tuple((a, b) for a, b in pairs if a is not None and b is not None)
        byes = tuple(p for a, b in pairs for p in (a, b) if p is not None and None in (a, b))
        rounds.append((tables, byes))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return tuple(rounds)


def _greedy(players: int, table_size: int, attempt: int) -> tuple[Plan, ...]:
    """Rounds until every pair has met (and everyone has had as many byes); the first attempt
    breaks ties by rating, the others by the seeded generator."""
    everyone = list(range(players))
    met: Counter[frozenset[int]] = Counter()
    unmet = {frozenset(pair) for pair in combinations(everyone, 2)}
    sizes, bye_count = table_sizes(players, table_size)
    byes: Counter[int] = Counter()
    plans: list[Plan] = []
    while unmet or len({byes[p] for p in everyone}) > 1:
        if len(plans) > players * players:
            raise AssertionError("the covering does not end")
        label = f"round-robin/{players}/{table_size}/{attempt}/{len(plans)}"
        order = everyone if attempt == 0 else list(shuffled(COVERING_SEED, label, everyone))
        rank = {p: i for i, p in enumerate(order)}

        def new(p: int, among: list[int]) -> int:
            return sum(frozenset((p, q)) in unmet for q in among if q != p)

        sitting_out = sorted(everyone, key=lambda p: (byes[p], -new(p, everyone), -rank[p]))[:bye_count]
        left = [p for p in order if p not in sitting_out]
        tables: list[list[int]] = []
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
        plans.append((tuple(tuple(t) for t in tables), tuple(sitting_out)))
    return tuple(plans)


def _exchange_for_new_pairs(tables: list[list[int]], unmet: set[frozenset[int]]) -> None:
    """Swaps players between two tables while a swap makes the round meet more new pairs."""

    def new_pairs(table: list[int]) -> int:
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


def _repeats(plans: tuple[Plan, ...]) -> int:
    met = Counter(frozenset(pair) for tables, _ in plans for t in tables for pair in combinations(t, 2))
    return sum(n - 1 for n in met.values())
