"""A shorter round robin at tables of 3 or 4: a local search for a schedule of fewer rounds in
which every pair still shares a table.

Each round is a seating of everyone at the layout's tables. While some pair has not met, the
search picks one (u, v), either way round, and a round, and swaps v with one of u's tablemates
there; the swap is kept if it leaves no more pairs unmet (and, once in a hundred, when it leaves
more, to get off a plateau). The generator is the project's seeded one (``domain.rng``), so a
schedule is the same on every machine and every run."""

from __future__ import annotations

from itertools import combinations

from ..rng import Stream, shuffled

SEARCH_SWAPS = 20_000  #: swaps tried for one number of rounds before the schedule settles for more
COVERING_SEED = b"round-robin"  #: the seeded generator's key


def covering(players: int, sizes: tuple[int, ...], rounds: int) -> list[list[list[int]]] | None:
    """``rounds`` rounds of tables of ``sizes`` over players 0 … n − 1 in which every pair
    meets, or None if the search does not find one."""
    label = f"covering/{players}/{'-'.join(map(str, sizes))}/{rounds}"
    search = _Meetings(
        players, [_seating(list(shuffled(COVERING_SEED, f"{label}/{r}", range(players))), sizes) for r in range(rounds)]
    )
    stream = Stream(COVERING_SEED, label)
    for _ in range(SEARCH_SWAPS):
        if not search.unmet:
            break
        u, v = sorted(search.unmet)[stream.below(len(search.unmet))]
        if stream.below(2):
            u, v = v, u
        r = stream.below(rounds)
        mates = [p for p in search.table_of(r, u) if p != u]
        w = mates[stream.below(len(mates))]
        before = len(search.unmet)
        search.swap(r, v, w)
        if len(search.unmet) > before and stream.below(100) >= 1:
            search.swap(r, v, w)
    return None if search.unmet else search.schedule


def _seating(order: list[int], sizes: tuple[int, ...]) -> list[list[int]]:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [order[start : start + size] for start, size in zip(starts, sizes)]


class _Meetings:
    """A schedule with how often each pair meets in it and which pairs never do."""

    def __init__(self, players: int, schedule: list[list[list[int]]]) -> None:
        self.schedule = schedule
        self.met = [[0] * players for _ in range(players)]
        self.where = [[0] * players for _ in schedule]
        self.unmet = {(p, q) for p, q in combinations(range(players), 2)}
        for r, tables in enumerate(schedule):
            for t, table in enumerate(tables):
                for i, p in enumerate(table):
                    self.where[r][p] = t
                    self._count(p, table[i + 1 :], 1)

    def table_of(self, r: int, player: int) -> list[int]:
        return self.schedule[r][self.where[r][player]]

    def swap(self, r: int, v: int, w: int) -> None:
        """Swaps v and w, at two tables of round r."""
        a, b = self.table_of(r, w), self.table_of(r, v)
        a.remove(w)
        b.remove(v)
        self._count(w, a, -1)
        self._count(v, b, -1)
        self._count(v, a, 1)
        self._count(w, b, 1)
        a.append(v)
        b.append(w)
        self.where[r][v], self.where[r][w] = self.where[r][w], self.where[r][v]

    def _count(self, player: int, others: list[int], step: int) -> None:
        for other in others:
            self.met[player][other] += step
            self.met[other][player] += step
            pair = (min(player, other), max(player, other))
            if self.met[player][other]:
                self.unmet.discard(pair)
            else:
                self.unmet.add(pair)
