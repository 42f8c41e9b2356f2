"""Paying a contribution space: what a set of cards is worth, and every minimal way to pay.

One module holds the colour rules (R6) so that ``decide`` and ``legal_commands`` agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import product

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
    """``minimal_payments`` of a hand already sorted (legal_commands sorts it once per call)."""
    return tuple(_search(hand, colour, need, hoax))


Choice = tuple[tuple[str, Kind, int], ...]  #: (role, kind, how many) per unit of a payment
_W1: Kind = (Colour.WHITE, 1)
_W2: Kind = (Colour.WHITE, 2)
_PAIR_KINDS: tuple[Kind, Kind] = ((Colour.BROWN, 1), (Colour.BROWN, 2))
_KIND: dict[str, Kind] = {cid: c.kind for cid, c in CARDS.items()}
_BIT: dict[Colour, int] = {colour: 1 << i for i, colour in enumerate(Colour)}


def _search(hand: tuple[str, ...], colour: Colour, need: int, use_hoax: bool) -> list[Payment]:
    """The minimal payments in a fixed order: the choices of the depth-first search, each laid
    out on the first cards of its kinds (``hand`` sorted), with every Hoax plan it allows."""
    ids: dict[Kind, list[str]] = {}
    for cid in hand:
        kind = _KIND[cid]
        if kind in ids:
            ids[kind].append(cid)
        else:
            ids[kind] = [cid]
    return _payments(_choices(ids, colour, need, use_hoax), ids, colour, need)


def _choices(ids: dict[Kind, list[str]], colour: Colour, need: int, use_hoax: bool) -> list[Choice]:
    """Every choice of units (native cards, Khind wilds, Hoax targets, Mimix pairs) whose value
    reaches ``need`` minimally, in the order of a depth-first search over the slots."""
    avail = {k: len(v) for k, v in ids.items()}
    hoaxes = avail.get(_W1, 0) + avail.get(_W2, 0) if use_hoax else 0
    slots: list[tuple[str, Kind, int]] = [("native", (colour, v), v) for v in (1, 2, 3) if (colour, v) in avail]
    if colour is not Colour.GREEN:
        slots += [("wild", (Colour.GREEN, v), 1) for v in (1, 2, 3) if (Colour.GREEN, v) in avail]
    if hoaxes:
        for kind in sorted(avail):
            x, v = kind
            if x is colour or (x is Colour.GREEN and v == 1):
                continue
            slots.append(("target", kind, v))
    b1, b2 = avail.get(_PAIR_KINDS[0], 0), avail.get(_PAIR_KINDS[1], 0)
    pairs = [(0, 0)]
    if colour is not Colour.BROWN:
        pairs += [(x, n - x) for n in range(2, b1 + b2 + 1, 2) for x in range(n + 1) if x <= b1 and n - x <= b2]
    else:  # on brown only pairs of 1s pay more than their printed value (ruling P14)
        pairs += [(n, 0) for n in range(2, b1 + 1, 2)]
    for kind in (_W1, _W2, *_PAIR_KINDS):
        avail.setdefault(kind, 0)
    found: list[Choice] = []
    used: list[tuple[str, Kind, int]] = []
    n_slots = len(slots)
    #: The most the slots from i on could add: a search that cannot reach ``need`` stops early.
    reach = [0] * (n_slots + 1)
    for i in range(n_slots - 1, -1, -1):
        _, kind, unit = slots[i]
        reach[i] = reach[i + 1] + avail[kind] * unit

    def dfs(i: int, value: int, smallest: int, colours: int, recoloured: int) -> None:
        """Choose how many units of slot i and after; ``value`` is short of ``need`` but the
        slots from i on could make it up. A choice is kept when it reaches ``need`` and would
        fall short without its smallest unit."""
        role, kind, unit = slots[i]
        after = i + 1
        if value + reach[after] >= need:
            dfs(after, value, smallest, colours, recoloured)
        target = role == "target"
        if target:
            colours |= _BIT[kind[0]]
        if unit < smallest:
            smallest = unit
        have = avail[kind]
        for n in range(1, have + 1):
            avail[kind] = have - n
            if target:
                w1, w2 = avail[_W1], avail[_W2]  # a cheap bound: can any cover exist?
                if colours.bit_count() > w1 + w2 or recoloured + n > 4 * w1 + w2:
                    break
            reached = value + n * unit
            if reached >= need:
                if reached - smallest < need:
                    used.append((role, kind, n))
                    found.append(tuple(used))
                    used.pop()
                break
            if reached + reach[after] >= need:
                used.append((role, kind, n))
                dfs(after, reached, smallest, colours, recoloured + n if target else recoloured)
                used.pop()
        avail[kind] = have

    for p1, p2 in pairs:
        avail[_PAIR_KINDS[0]] -= p1
        avail[_PAIR_KINDS[1]] -= p2
        used[:] = [("pair", k, n) for k, n in zip(_PAIR_KINDS, (p1, p2)) if n]
        pair_value = 3 * ((p1 + p2) // 2)
        if pair_value >= need:
            if pair_value - 3 < need:
                found.append(tuple(used))
        elif pair_value + reach[0] >= need:
            dfs(0, pair_value, 3 if pair_value else 99, 0, 0)
        avail[_PAIR_KINDS[0]] += p1
        avail[_PAIR_KINDS[1]] += p2
    return found


def _payments(found: list[Choice], ids: dict[Kind, list[str]], colour: Colour, need: int) -> list[Payment]:
    """The payments of ``found`` choices, the first cards of each kind taken, duplicates left out.

    Only brown has duplicates: there a brown 1 may be paid natively or in a pair, so two
    choices can name the same cards. On any other space each kind plays one role (native, Khind
    wild, Mimix pair, or recoloured, which shows in the Hoax plan), so the cards and the plan
    determine the choice."""
    seen: set[object] = set()
    result: list[Payment] = []
    brown = colour is Colour.BROWN
    recolours: dict[tuple[str, tuple[str, ...]], Recolour] = {}  #: one object per recolouring
    known: dict[tuple[str, ...], Covers] = {}
    all_w1 = ids.get(_W1, [])
    all_w2 = ids.get(_W2, [])
    for choice in found:
        taken: dict[Kind, int] = {}
        cards: list[str] = []
        targets: dict[Colour, list[str]] | None = None
        for role, kind, n in choice:
            first = taken.get(kind, 0)
            chosen = ids[kind][first : first + n]
            taken[kind] = first + n
            cards += chosen
            if role == "target":
                if targets is None:
                    targets = {kind[0]: chosen}
                elif kind[0] in targets:
                    targets[kind[0]] += chosen
                else:
                    targets[kind[0]] = chosen
        cards.sort()
        paid = tuple(cards)
        if targets is None:
            if not brown:
                result.append((paid, ()))
            elif paid not in seen and _none_spare((paid, ()), colour, need):
                seen.add(paid)
                result.append((paid, ()))
            continue
        w1 = all_w1[taken.get(_W1, 0) :]
        w2 = all_w2[taken.get(_W2, 0) :]
        for plain in _recolourings(targets, w1, w2, known):
            if brown and (paid, plain) in seen:
                continue
            hoax = []
            for pair in plain:
                rec = recolours.get(pair)
                if rec is None:
                    rec = recolours[pair] = Recolour(*pair)
                hoax.append(rec)
            candidate = (paid, tuple(hoax))
            if not brown:
                result.append(candidate)
            elif _none_spare(candidate, colour, need):
                seen.add((paid, plain))
                result.append(candidate)
    return result


_LARGEST_FIRST: dict[str, tuple[int, str]] = {cid: (-c.value, cid) for cid, c in CARDS.items()}


Covers = list[tuple[int, int, list[tuple[bool, int, tuple[str, ...]]]]]


def _recolourings(
    targets: dict[Colour, list[str]], w1: list[str], w2: list[str], known: dict[tuple[str, ...], Covers]
) -> list[tuple[tuple[str, tuple[str, ...]], ...]]:
    """Each minimal way the spare Hoax cards ``w1`` (1s) and ``w2`` (2s) recolour ``targets``:
    a Hoax 2 takes the smallest single cards, each Hoax 1 up to four of the largest. ``known``
    keeps, for one search, each colour's covers by its targets: choices share them."""
    n1, n2 = len(w1), len(w2)
    if len(targets) == 1:  # one colour recoloured: most choices, so a quicker path
        (rest,) = targets.values()
        if len(rest) > 1:
            rest = sorted(rest, key=_LARGEST_FIRST.__getitem__)
        return [
            tuple(
                (w2[i], (rest[start],)) if by_two else (w1[i], tuple(sorted(rest[start:stop])))
                for by_two, i, start, stop in parts
            )
            for h1, h2, parts in _layouts(len(rest))
            if h1 <= n1 and h2 <= n2
        ]
    # Per colour and cover: which Hoax (a 2 or a 1, counted within the colour) takes which cards.
    per_colour = []
    for x in sorted(targets):
        key = tuple(targets[x])
        covers = known.get(key)
        if covers is None:
            rest = sorted(key, key=_LARGEST_FIRST.__getitem__)
            covers = known[key] = [
                (h1, h2, [(by_two, i, tuple(sorted(rest[start:stop]))) for by_two, i, start, stop in parts])
                for h1, h2, parts in _layouts(len(rest))
            ]
        per_colour.append(covers)
    found = []
    for plan in product(*per_colour):
        t1 = t2 = 0
        for h1, h2, _ in plan:
            t1 += h1
            t2 += h2
        if t1 > n1 or t2 > n2:
            continue
        hoax: list[tuple[str, tuple[str, ...]]] = []
        i1 = i2 = 0
        for h1, h2, parts in plan:
            for by_two, i, recoloured in parts:
                hoax.append((w2[i2 + i] if by_two else w1[i1 + i], recoloured))
            i1 += h1
            i2 += h2
        found.append(tuple(hoax))
    return found


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
