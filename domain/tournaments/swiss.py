"""Swiss pairing: the field ranked by score, then rating, seated top down, avoiding repeat
tablemates while possible.

The ranked players are seated in order, each table filled from the best-ranked unseated player
with the next-ranked players (1–2, 3–4 at tables of 2; 1–4, 5–8 at tables of 4). Among all
seatings, the one with the fewest repeat pairs (two players who met before, counted again for
each earlier meeting) wins, and among those the first in that top-down order. The search is a
branch and bound over that order with a fixed budget of steps, so a round is deterministic and
quick; within the budget it finds a seating without repeats whenever one exists (tested against
every seating for small fields). The bye, if the round has one (``layout.table_sizes``), goes to
the lowest-ranked player who has had the fewest byes, preferring one whose bye leaves a seating
with fewer repeats; nobody gets a second bye while someone has had none."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from itertools import combinations

from .layout import table_sizes
from .records import Entrant, Outcome, Round, Table
from .standings import scores

SEARCH_STEPS = 200_000  #: the branch and bound's budget for one round, shared by its bye choices


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
    score = scores(entrants, history, outcomes, table_size)
    ranked = [e.player for e in sorted(entrants, key=lambda e: (-score[e.player], -e.rating, e.player))]
    ranked = [p for p in ranked if p not in withdrawn]
    sizes, bye_count = table_sizes(len(ranked), table_size)
    met = meetings(history)
    had_bye = Counter(p for r in history for p in r.byes)
    search = _Search(met, SEARCH_STEPS)
    if bye_count == 0:
        tables = search.best(ranked, sizes)
        assert tables is not None, "searched without a bound, the top-down seating is always found"
        return Round(number, _tables(tables), ())
    fewest = min(had_bye[p] for p in ranked)
    candidates = [p for p in reversed(ranked) if had_bye[p] == fewest]
    best: tuple[int, str, list[tuple[str, ...]]] | None = None
    for candidate in candidates:
        seated = [p for p in ranked if p != candidate]
        tables = search.best(seated, sizes, bound=best[0] if best else None)
        if tables is not None and (best is None or search.last_repeats < best[0]):
            best = (search.last_repeats, candidate, tables)
        if (best is not None and best[0] == 0) or search.steps <= 0:
            break
    assert best is not None, "the first candidate is searched without a bound, so it is seated"
    return Round(number, _tables(best[2]), (best[1],))


def meetings(rounds: Sequence[Round]) -> Counter[frozenset[str]]:
    """How often each pair of players has shared a table."""
    met: Counter[frozenset[str]] = Counter()
    for r in rounds:
        for table in r.tables:
            met.update(frozenset(pair) for pair in combinations(table.players, 2))
    return met


def _tables(seating: list[tuple[str, ...]]) -> tuple[Table, ...]:
    return tuple(Table(players) for players in seating)


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

    def _tables_of(self, left: list[str], size: int, repeats: int) -> Iterator[tuple[tuple[str, ...], int]]:
        """Tables for ``left[0]`` with ``size - 1`` of the others, in top-down order, with the
        repeats each adds, cut off where the bound cannot be beaten or the steps run out."""
        chosen = [left[0]]

        def extend(start: int, added: int) -> Iterator[tuple[tuple[str, ...], int]]:
            if len(chosen) == size:
                yield tuple(chosen), added
                return
            for i in range(start, len(left) - (size - len(chosen)) + 1):
                if self.steps <= 0:
                    return
                self.steps -= 1
                player = left[i]
                more = added + sum(self.met[frozenset((player, other))] for other in chosen)
                if self.limit is not None and repeats + more >= self.limit:
                    continue
                chosen.append(player)
                yield from extend(i + 1, more)
                chosen.pop()

        return extend(1, 0)
