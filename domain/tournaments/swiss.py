"""Swiss pairing: the field ranked by score, then rating, seated top down, avoiding repeat
tablemates while possible.

The ranked players are seated in order, each table filled from the best-ranked unseated player
with the next-ranked players (1–2, 3–4 at tables of 2; 1–4, 5–8 at tables of 4). Among all
seatings, the one with the fewest repeat pairs (two players who met before, counted again for
each earlier meeting) wins, and among those the first in that top-down order. The search is a
branch and bound over that order with a fixed budget of steps, so a round is deterministic and
quick; small fields are searched to the end (a seating without repeats is found whenever one
exists: tested against every seating). Where a large field's budget runs out with repeats left,
players are exchanged between neighbouring tables to take them out. The bye, if the round has
one (``layout.table_sizes``), goes to the lowest-ranked player who has had the fewest byes,
preferring one whose bye leaves a seating with fewer repeats; nobody gets a second bye while
someone has had none."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from itertools import combinations, product

from .layout import table_sizes
from .records import Entrant, Outcome, Round, Table
from .standings import scores

SEARCH_STEPS = 50_000  #: the branch and bound's budget for one round, shared by its bye choices
STRANDED_WINDOW = 24  #: how many players from the bottom the search checks for one stranded


def pair_swiss(
    entrants: Sequence[Entrant],
    history: Sequence[Round],
    outcomes: Sequence[Outcome],
    withdrawn: Collection[str],
    number: int,
    *,
    table_size: int,
) -> Round:
    """Round ``number`` (``history`` holds rounds 1 to ``number - 1``) for the players not withdrawn."""
    if number != len(history) + 1 or any(r.number != i for i, r in enumerate(history, 1)):
        raise ValueError(f"round {number} follows rounds 1 to {number - 1}, given {[r.number for r in history]}")
    if len({e.player for e in entrants}) != len(entrants):
        raise ValueError("an entrant is listed twice")
    score = scores(entrants, history, outcomes, table_size)
    ranked = [e.player for e in sorted(entrants, key=lambda e: (-score[e.player], -e.rating, e.player))]
    ranked = [p for p in ranked if p not in withdrawn]
    sizes, bye_count = table_sizes(len(ranked), table_size)
    met = meetings(history)
    had_bye = Counter(p for r in history for p in r.byes)
    fewest = min((had_bye[p] for p in ranked), default=0)
    byes: list[str | None] = [p for p in reversed(ranked) if had_bye[p] == fewest] if bye_count else [None]
    repeats, bye, seating = _best_seating(ranked, sizes, byes, met)
    if repeats:
        seating = _exchanged(seating, met)
    rank = {p: i for i, p in enumerate(ranked)}
    tables = tuple(Table(tuple(sorted(players, key=rank.__getitem__))) for players in seating)
    return Round(number, tables, () if bye is None else (bye,))


def _best_seating(
    ranked: list[str], sizes: tuple[int, ...], byes: list[str | None], met: Counter[frozenset[str]]
) -> tuple[int, str | None, list[tuple[str, ...]]]:
    """The seating with the fewest repeats, and its bye, trying the possible byes in order (None:
    no bye) until one leaves no repeats or the steps run out."""
    search = _Search(met, SEARCH_STEPS)
    best: tuple[int, str | None, list[tuple[str, ...]]] | None = None
    for bye in byes:
        seating = search.best([p for p in ranked if p != bye], sizes, bound=best[0] if best else None)
        if seating is not None:
            best = (search.last_repeats, bye, seating)
        assert best is not None, "the first bye is searched without a bound, so it is seated"
        if best[0] == 0 or search.steps <= 0:
            break
    assert best is not None
    return best


def meetings(rounds: Sequence[Round]) -> Counter[frozenset[str]]:
    """How often each pair of players has shared a table."""
    met: Counter[frozenset[str]] = Counter()
    for r in rounds:
        for table in r.tables:
            met.update(frozenset(pair) for pair in combinations(table.players, 2))
    return met


def _exchanged(seating: list[tuple[str, ...]], met: Counter[frozenset[str]]) -> list[tuple[str, ...]]:
    """The seating with repeats taken out by exchanging players between tables, for where the
    search ran out of steps: from the bottom table up, each table with a repeat swaps one player
    with one of the nearest table that has a player making fewer repeats in both, until no
    exchange helps. Deterministic, and it never adds a repeat."""
    tables = [list(t) for t in seating]

    def cost(table: list[str]) -> int:
        return sum(met[frozenset(pair)] for pair in combinations(table, 2))

    improved = True
    while improved:
        improved = False
        for a in reversed(range(len(tables))):
            if not cost(tables[a]):
                continue
            for b in sorted((b for b in range(len(tables)) if b != a), key=lambda b: (abs(a - b), b)):
                before = cost(tables[a]) + cost(tables[b])
                for i, j in product(range(len(tables[a])), range(len(tables[b]))):
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                    if cost(tables[a]) + cost(tables[b]) < before:
                        improved = True
                        break
                    tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                if improved:
                    break
            if improved:
                break
    return [tuple(t) for t in tables]


class _Search:
    """A branch and bound over top-down seatings: the first seating found is the plain top-down
    one; later ones are kept only when they have fewer repeats."""

    def __init__(self, met: Counter[frozenset[str]], steps: int) -> None:
        self.met = met
        self.steps = steps
        self.last_repeats = 0

    def best(self, ranked: list[str], sizes: tuple[int, ...], bound: int | None = None) -> list[tuple[str, ...]] | None:
        """The seating of ``ranked`` at tables of ``sizes`` with the fewest repeats (below
        ``bound`` if given), the first in top-down order among those; None if none beats ``bound``."""
        self.found: list[tuple[str, ...]] | None = None
        self.limit = bound
        counts = Counter(sizes)
        self._seat(ranked, counts, [], 0)
        if self.found is not None:
            self.last_repeats = self.limit if self.limit is not None else 0
        return self.found

    def _seat(self, left: list[str], counts: Counter[int], tables: list[tuple[str, ...]], repeats: int) -> bool:
        """Seats ``left``; True when the search is over (no repeats found, or out of steps)."""
        if not left:
            self.found, self.limit = list(tables), repeats
            return repeats == 0
        if self.limit == repeats + 1 and self._stranded(left, min(s for s, n in counts.items() if n)):
            return self.steps <= 0
        for size in sorted((s for s, n in counts.items() if n), reverse=True):
            counts[size] -= 1
            for table, added in self._tables_of(left, size, repeats):
                rest = [p for p in left if p not in table]
                tables.append(table)
                over = self._seat(rest, counts, tables, repeats + added)
                tables.pop()
                if over:
                    counts[size] += 1
                    return True
            counts[size] += 1
        return self.steps <= 0

    def _stranded(self, left: list[str], smallest: int) -> bool:
        """Whether a player left has fewer new tablemates left than the smallest table needs, so
        that no seating of the rest avoids a repeat. Checked near the bottom of the list only,
        where the search gets stuck (the last players have often met), to keep each step cheap."""
        if len(left) > STRANDED_WINDOW:
            return False
        return any(sum(not self.met[frozenset((p, q))] for q in left if q != p) < smallest - 1 for p in left)

    def _tables_of(self, left: list[str], size: int, repeats: int) -> Iterator[tuple[tuple[str, ...], int]]:
        """Tables for ``left[0]`` with ``size - 1`` of the others, in top-down order, with the
        repeats each adds, cut off where the bound cannot be beaten or the steps run out."""
        chosen = [left[0]]

        def extend(start: int, added: int) -> Iterator[tuple[tuple[str, ...], int]]:
            if len(chosen) == size:
                yield tuple(chosen), added
                return
            last = len(left) - (size - len(chosen)) + 1
            costs = [(i, sum(self.met[frozenset((left[i], other))] for other in chosen)) for i in range(start, last)]
            # players new to everyone seated first, so that the first seating found avoids repeats
            for i, cost in sorted(costs, key=lambda c: c[1] > 0):
                if self.steps <= 0:
                    return
                self.steps -= 1
                if self.limit is not None and repeats + added + cost >= self.limit:
                    continue
                chosen.append(left[i])
                yield from extend(i + 1, added + cost)
                chosen.pop()

        return extend(1, 0)
