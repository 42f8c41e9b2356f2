"""Paying a contribution space: what a set of cards is worth, and every minimal way to pay.

One module holds the colour rules (R6) so that ``decide`` and ``legal_commands`` agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from .commands import Recolour
from .errors import IllegalCommand, InvalidCommand
from .peoples import CARDS, Card, Colour

Kind = tuple[Colour, int]
HOAX_CAPACITY = {1: 4, 2: 1}  #: a Hoax 1 recolours up to 4 cards of one colour, a Hoax 2 one card


def value_of(cards: Sequence[Card], colour: Colour, recoloured: frozenset[str] = frozenset()) -> int:
    """What ``cards`` pay towards a space of ``colour``; raises if a card cannot take part.

    A card counts its printed value when it has the colour (or is recoloured to it); Khind
    count 1 as wilds; Mimix 1s and 2s count 3 per pair; anything else is refused. On a brown
    space a Mimix 1 or 2 counts its printed value or joins a pair worth 3, whichever pays more
    (ruling P14): only two 1s gain by pairing, so each pair of brown 1s adds one.
    """
    total = 0
    mimix = 0
    brown_ones = 0
    for c in cards:
        if c.colour is colour or c.id in recoloured:
            total += c.value
            brown_ones += colour is Colour.BROWN and c.value == 1 and c.id not in recoloured
        elif c.colour is Colour.GREEN:
            total += 1
        elif c.colour is Colour.BROWN and c.value < 3:
            mimix += 1
        else:
            raise IllegalCommand("wrong_colour", f"{c.id} cannot pay a {colour.value} space", "cards")
    if mimix % 2:
        raise IllegalCommand("lone_mimix", "Mimix cards count only in pairs of 1s and 2s", "cards")
    return total + 3 * (mimix // 2) + brown_ones // 2


def check_hoax(hoax: Sequence[Recolour], cards: Sequence[Card], colour: Colour) -> frozenset[str]:
    """Validate the Hoax recolourings of one contribution; returns the recoloured card ids."""
    paying = {c.id: c for c in cards}
    recoloured: set[str] = set()
    for rec in hoax:
        h = CARDS.get(rec.card)
        if h is None or h.colour is not Colour.WHITE or h.value not in HOAX_CAPACITY:
            raise IllegalCommand("not_a_hoax", f"{rec.card} is not a Hoax 1 or 2", "hoax")
        if not rec.targets or len(rec.targets) > HOAX_CAPACITY[h.value]:
            raise IllegalCommand(
                "hoax_targets",
                f"{rec.card} recolours {HOAX_CAPACITY[h.value]} card(s) at most and at least 1",
                "hoax",
            )
        colours = set()
        for t in rec.targets:
            if t not in paying:
                raise InvalidCommand("hoax_target_unpaid", f"{t} is recoloured but not among the cards", "hoax")
            if t in recoloured:
                raise IllegalCommand("hoax_targets", f"{t} is recoloured twice", "hoax")
            recoloured.add(t)
            colours.add(paying[t].colour)
        if len(colours) != 1 or colour in colours:
            raise IllegalCommand(
                "hoax_targets", "a Hoax recolours cards of one other colour into the space's colour", "hoax"
            )
    return frozenset(recoloured)


@cache
def _covers(targets: int) -> list[tuple[int, int]]:
    """Minimal (Hoax 1, Hoax 2) counts covering ``targets`` cards of one colour."""
    result = []
    for h1 in range((targets + 3) // 4 + 1):
        for h2 in range(targets + 1):
            cap = 4 * h1 + h2
            if cap < targets or (h2 and cap - 1 >= targets) or (h1 and cap - 4 >= targets):
                continue
            if h1 and h2 == 0 and 4 * (h1 - 1) >= targets:
                continue
            result.append((h1, h2))
    return result


Payment = tuple[tuple[str, ...], tuple[Recolour, ...]]


def minimal_payments(hand: Sequence[str], colour: Colour, need: int, hoax: bool = True) -> tuple[Payment, ...]:
    """Every minimal way to pay ``need`` in ``colour`` from ``hand``: no card could be left out,
    and no two results differ only by equal cards (same colour and value).

    Cached: a hand does not change while its owner moves, and bots ask again and again.
    ``hoax=False`` leaves out payments that play a Hoax (a quick search for bots)."""
    return minimal_payments_sorted(tuple(sorted(hand)), colour, need, hoax)


@lru_cache(maxsize=1024)  # its payments are walked by every full garbage collection: not more
def minimal_payments_sorted(hand: tuple[str, ...], colour: Colour, need: int, hoax: bool = True) -> tuple[Payment, ...]:
    """``minimal_payments`` of a hand already sorted."""
    cards, plans = _search(hand, colour, need, hoax)
    return tuple((paid, plan) for paid, hoaxes in zip(cards, plans) for plan in hoaxes)


Plans = tuple[tuple[Recolour, ...], ...]  #: the Hoax plans of one choice, a payment each (``((),)``: no Hoax)


@lru_cache(maxsize=64)  # legal_commands asks again for a hand that came back to a building
def payments_by_cards(
    hand: tuple[str, ...], colour: Colour, need: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[Plans, ...]]:
    """``minimal_payments`` of a sorted hand, as the cards of each choice and, alongside, the
    Hoax plans that pay with them (one payment each). legal_commands makes its commands from
    these without a tuple per payment: fewer objects for the garbage collector to walk in the
    calls that list thousands."""
    cards, plans = _search(hand, colour, need, True)
    return tuple(cards), tuple(plans)


_W1: Kind = (Colour.WHITE, 1)
_W2: Kind = (Colour.WHITE, 2)
_PAIR_KINDS: tuple[Kind, Kind] = ((Colour.BROWN, 1), (Colour.BROWN, 2))
_KIND: dict[str, Kind] = {cid: c.kind for cid, c in CARDS.items()}
_BIT: dict[Colour, int] = {colour: 1 << i for i, colour in enumerate(Colour)}


def _search(
    hand: tuple[str, ...], colour: Colour, need: int, use_hoax: bool
) -> tuple[list[tuple[str, ...]], list[Plans]]:
    """The minimal payments in a fixed order: the choices of a depth-first search over Mimix
    pairs, then the slots (native cards, Khind wilds, Hoax targets), each laid out on the first
    cards of its kinds (``hand`` sorted), with every Hoax plan it allows.

    A choice becomes its payments where the search finds it: no list of choices is kept, so a
    big hand leaves fewer objects behind for the garbage collector to walk."""
    ids: dict[Kind, list[str]] = {_W1: [], _W2: [], _PAIR_KINDS[0]: [], _PAIR_KINDS[1]: []}
    for cid in hand:
        ids.setdefault(_KIND[cid], []).append(cid)
    kinds = sorted(ids)
    at = {kind: k for k, kind in enumerate(kinds)}  #: each kind's index in the lists below
    of_kind = [tuple(ids[kind]) for kind in kinds]
    left = [len(cards) for cards in of_kind]  #: how many cards of each kind are not taken
    w1_at, w2_at, ones_at, twos_at = at[_W1], at[_W2], at[_PAIR_KINDS[0]], at[_PAIR_KINDS[1]]
    #: (kind index, what a unit adds, its colour's bit if a Hoax target, else 0)
    slots = [(at[colour, v], v, 0) for v in (1, 2, 3) if ids.get((colour, v))]
    if colour is not Colour.GREEN:
        slots += [(at[Colour.GREEN, v], 1, 0) for v in (1, 2, 3) if ids.get((Colour.GREEN, v))]
    if use_hoax and left[w1_at] + left[w2_at]:
        slots += [
            (k, kind[1], _BIT[kind[0]])
            for k, kind in enumerate(kinds)
            if left[k] and kind[0] is not colour and kind != (Colour.GREEN, 1)
        ]
    b1, b2 = left[ones_at], left[twos_at]
    pairs = [(0, 0)]
    if colour is not Colour.BROWN:
        pairs += [(x, n - x) for n in range(2, b1 + b2 + 1, 2) for x in range(n + 1) if x <= b1 and n - x <= b2]
    else:  # on brown only pairs of 1s pay more than their printed value (ruling P14)
        pairs += [(n, 0) for n in range(2, b1 + 1, 2)]
    n_slots = len(slots)
    #: The most the slots from i on could add: a search that cannot reach ``need`` stops early.
    reach = [0] * (n_slots + 1)
    for i in range(n_slots - 1, -1, -1):
        k, unit, _ = slots[i]
        reach[i] = reach[i + 1] + left[k] * unit
    #: By value reached: the last slot from which on the slots could still make up ``need``.
    last = [max([j for j in range(n_slots) if value + reach[j] >= need], default=-1) for value in range(need)]
    #: The spare Hoax cards by how many are left: the last ones (the first are targets or paid).
    spare1, spare2 = (
        [tuple(hoaxes[len(hoaxes) - n :]) for n in range(len(hoaxes) + 1)] for hoaxes in (ids[_W1], ids[_W2])
    )
    ones = left[ones_at]
    checked = colour is Colour.BROWN
    paids: list[tuple[str, ...]] = []  #: the result: the cards of each choice ...
    plans: list[Plans] = []  #: ... and its Hoax plans
    seen: set[Payment] = set()
    cards: list[str] = []  #: the cards of the units chosen so far

    def emit(paid: tuple[str, ...], hoaxes: Plans) -> None:
        """Add the payments of ``paid`` with each of ``hoaxes``. On brown, two brown 1s pay 3
        (natively 2, in a pair 3), so a choice of two or more may name the cards of another
        or have a spare card: those are checked. With fewer the search's own minimality holds
        (every card counts what the search counted) and the cards and plan fix the choice."""
        if checked and ones - left[ones_at] >= 2:
            kept = []
            for hoax in hoaxes:
                payment = (paid, hoax)
                if payment not in seen and _none_spare(payment, colour, need):
                    seen.add(payment)
                    kept.append(hoax)
            if not kept:
                return
            hoaxes = tuple(kept)
        paids.append(paid)
        plans.append(hoaxes)

    def dfs(i: int, value: int, smallest: int, colours: int, recoloured: int, targets: Targets) -> None:
        """Add units of slot i or after to a choice worth ``value``, short of ``need``, that
        the slots from i on could make up. A choice is kept when it reaches ``need`` and would
        fall short without its smallest unit. The choices whose next unit comes from a later
        slot come first (the search skips a slot before it takes from it). Each unit takes
        the first cards of its kind that the units before it left; ``targets`` holds the
        Hoax targets by colour (target slots come last, in colour order)."""
        for j in range(last[value], i - 1, -1):
            k, unit, bit = slots[j]
            if unit > smallest and value + unit - smallest >= need:
                continue  # one such unit already pays more than the smallest unit could spare
            s = unit if unit < smallest else smallest
            beyond = reach[j + 1]
            have = left[k]
            kind_cards = of_kind[k]
            first = len(kind_cards) - have
            if bit:
                c = colours | bit
                hues = c.bit_count()
            for n in range(1, have + 1):
                left[k] = have - n
                if bit:
                    w1, w2 = left[w1_at], left[w2_at]  # a cheap bound: can any cover exist?
                    if hues > w1 + w2 or recoloured + n > 4 * w1 + w2:
                        break
                reached = value + n * unit
                if reached >= need:
                    if reached - s >= need:
                        break
                elif reached + beyond < need:
                    continue
                chosen = kind_cards[first : first + n]
                if bit:
                    ts = (*targets[:-1], targets[-1] + chosen) if colours & bit else (*targets, chosen)
                if reached >= need:
                    paid = [*cards, *chosen]
                    paid.sort()
                    emit(tuple(paid), _plans(ts, spare1[w1], spare2[w2]) if bit else _NO_HOAX)
                    break
                cards.extend(chosen)
                if bit:
                    dfs(j + 1, reached, s, c, recoloured + n, ts)
                else:
                    dfs(j + 1, reached, s, colours, recoloured, targets)
                del cards[-n:]
            left[k] = have

    for p1, p2 in pairs:
        left[ones_at] -= p1
        left[twos_at] -= p2
        cards[:] = of_kind[ones_at][:p1] + of_kind[twos_at][:p2]
        pair_value = 3 * ((p1 + p2) // 2)
        if pair_value >= need:
            if pair_value - 3 < need:
                emit(tuple(cards), _NO_HOAX)
        elif pair_value + reach[0] >= need:
            dfs(0, pair_value, 3 if pair_value else 99, 0, 0, ())
        left[ones_at] += p1
        left[twos_at] += p2
    # dfs refers to itself; breaking that cycle frees the search's lists now, not at the next
    # garbage collection (fewer collections while legal_commands lists thousands of payments)
    dfs = None  # type: ignore[assignment]
    return paids, plans


Targets = tuple[tuple[str, ...], ...]  #: the recoloured cards of one choice, by colour
_NO_HOAX: Plans = ((),)  #: the one plan of a choice without targets
Covers = tuple[tuple[int, int, tuple[Recolour, ...]], ...]  #: Hoax 1s, Hoax 2s, what they recolour
_LARGEST_FIRST: dict[str, tuple[int, str]] = {cid: (-c.value, cid) for cid, c in CARDS.items()}


@lru_cache(maxsize=256)  # a hand keeps its targets and Hoax cards from search to search: 72% hit
def _plans(targets: Targets, w1: tuple[str, ...], w2: tuple[str, ...]) -> Plans:
    """Each minimal way the spare Hoax cards ``w1`` (1s) and ``w2`` (2s) recolour ``targets``
    (by colour, in colour order): the colours come in order, each taking the next spare Hoax
    cards; the plans of the first colour's first cover come first."""
    partial: list[tuple[int, int, tuple[Recolour, ...]]] = [(0, 0, ())]  #: Hoax 1s, 2s taken; plan
    for colour_targets in targets:
        partial = [
            (i1 + h1, i2 + h2, hoax + recolours)
            for i1, i2, hoax in partial
            for h1, h2, recolours in _recolourings(colour_targets, w1[i1:], w2[i2:])
        ]
    return tuple(hoax for _, _, hoax in partial)


@lru_cache(maxsize=512)  # shared by the plans of many choices, which recolour the same cards
def _recolourings(targets: tuple[str, ...], w1: tuple[str, ...], w2: tuple[str, ...]) -> Covers:
    """Each minimal way the first of the Hoax cards ``w1`` (1s) and ``w2`` (2s) recolour one
    colour's ``targets``: how many of each it takes, and its Recolour commands. A Hoax 2
    takes the smallest single cards, each Hoax 1 up to four of the largest."""
    rest = sorted(targets, key=_LARGEST_FIRST.__getitem__)
    return tuple(
        (
            h1,
            h2,
            tuple(Recolour(w2[i] if two else w1[i], tuple(sorted(rest[start:stop]))) for two, i, start, stop in parts),
        )
        for h1, h2, parts in _layouts(len(rest))
        if h1 <= len(w1) and h2 <= len(w2)
    )


@cache
def _layouts(targets: int) -> tuple[tuple[int, int, tuple[tuple[bool, int, int, int], ...]], ...]:
    """For each cover (Hoax 1s, Hoax 2s) of ``targets`` cards of one colour, sorted largest
    first: which Hoax (a 2 or a 1, its index) recolours which slice of them."""
    result = []
    for h1, h2 in _covers(targets):
        parts = []
        end = targets
        for i in range(h2):
            end -= 1
            parts.append((True, i, end, end + 1))
        start = 0
        for k in range(h1):
            stop = end if k == h1 - 1 else start + 4
            parts.append((False, k, start, stop))
            start = stop
        result.append((h1, h2, tuple(parts)))
    return tuple(result)


def _none_spare(payment: Payment, colour: Colour, need: int) -> bool:
    """No card of ``payment`` could be left out. The search knows this for every colour but
    brown, where a brown 1 may count 1 or half of a pair worth 3, so three brown 1s pay 4 and
    two of them already pay 3."""
    cards, hoax = payment
    recoloured = frozenset(t for r in hoax for t in r.targets)
    paid = [CARDS[c] for c in cards if c not in {r.card for r in hoax}]
    for i in range(len(paid)):
        rest = paid[:i] + paid[i + 1 :]
        try:
            if paid[i].id not in recoloured and value_of(rest, colour, recoloured) >= need:
                return False
        except IllegalCommand:
            continue
    return True
