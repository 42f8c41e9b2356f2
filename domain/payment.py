"""Paying a contribution space: what a set of cards is worth, and every minimal way to pay.

One module holds the colour rules (R6) so that ``decide`` and ``legal_commands`` agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
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
    return _minimal_payments(tuple(sorted(hand)), colour, need, hoax)


@lru_cache(maxsize=8192)
def _minimal_payments(hand: tuple[str, ...], colour: Colour, need: int, hoax: bool) -> tuple[Payment, ...]:
    return tuple(_search(hand, colour, need, hoax))


def _search(hand: tuple[str, ...], colour: Colour, need: int, use_hoax: bool) -> Iterator[Payment]:
    ids: dict[Kind, list[str]] = {}
    for cid in hand:
        ids.setdefault(CARDS[cid].kind, []).append(cid)
    avail = Counter({k: len(v) for k, v in ids.items()})
    hoaxes = avail[(Colour.WHITE, 1)] + avail[(Colour.WHITE, 2)] if use_hoax else 0
    slots: list[tuple[str, Kind, int]] = []
    for v in (1, 2, 3):
        if avail[(colour, v)]:
            slots.append(("native", (colour, v), v))
    if colour is not Colour.GREEN:
        slots += [("wild", (Colour.GREEN, v), 1) for v in (1, 2, 3) if avail[(Colour.GREEN, v)]]
    if hoaxes:
        for kind in sorted(avail):
            x, v = kind
            if x is colour or (x is Colour.GREEN and v == 1):
                continue
            slots.append(("target", kind, v))
    pair_kinds = ((Colour.BROWN, 1), (Colour.BROWN, 2))
    pairs = [(0, 0)]
    b1, b2 = avail[pair_kinds[0]], avail[pair_kinds[1]]
    if colour is not Colour.BROWN:
        pairs += [(x, n - x) for n in range(2, b1 + b2 + 1, 2) for x in range(n + 1) if x <= b1 and n - x <= b2]
    else:  # on brown only pairs of 1s pay more than their printed value (ruling P14)
        pairs += [(n, 0) for n in range(2, b1 + 1, 2)]
    seen: set[Payment] = set()

    def emit(choice: tuple[tuple[str, Kind, int], ...]) -> Iterator[Payment]:
        taken: dict[Kind, int] = {}
        cards: list[str] = []
        targets: dict[Colour, list[str]] = {}
        for role, kind, n in choice:
            first = taken.get(kind, 0)
            chosen = ids[kind][first : first + n]
            taken[kind] = first + n
            cards += chosen
            if role == "target":
                targets.setdefault(kind[0], []).extend(chosen)
        cards.sort()
        if not targets:
            yield tuple(cards), ()
            return
        w1 = ids.get((Colour.WHITE, 1), [])[taken.get((Colour.WHITE, 1), 0) :]
        w2 = ids.get((Colour.WHITE, 2), [])[taken.get((Colour.WHITE, 2), 0) :]
        colours = sorted(targets)
        for plan in product(*(_covers(len(targets[x])) for x in colours)):
            if sum(h1 for h1, _ in plan) > len(w1) or sum(h2 for _, h2 in plan) > len(w2):
                continue
            hoax: list[Recolour] = []
            i1 = i2 = 0
            for x, (h1, h2) in zip(colours, plan):
                rest = sorted(targets[x], key=lambda c: (-CARDS[c].value, c))
                for _ in range(h2):
                    hoax.append(Recolour(w2[i2], (rest.pop(),)))
                    i2 += 1
                for k in range(h1):
                    share = len(rest) - 4 * (h1 - k - 1) if k == h1 - 1 else 4
                    hoax.append(Recolour(w1[i1], tuple(sorted(rest[:share]))))
                    rest = rest[share:]
                    i1 += 1
            yield tuple(cards), tuple(hoax)

    found: list[tuple[tuple[str, Kind, int], ...]] = []
    used: list[tuple[str, Kind, int]] = []
    n_slots = len(slots)

    w1_kind, w2_kind = (Colour.WHITE, 1), (Colour.WHITE, 2)

    def dfs(i: int, value: int, smallest: int, colours: frozenset[Colour], recoloured: int) -> None:
        """Collect every choice of units whose value reaches ``need`` minimally."""
        if value >= need:
            if value - smallest < need:
                found.append(tuple(used))
            return
        if i == n_slots:
            return
        role, kind, unit = slots[i]
        dfs(i + 1, value, smallest, colours, recoloured)
        if role == "target":
            colours = colours | {kind[0]}
        for n in range(1, avail[kind] + 1):
            avail[kind] -= n
            if role == "target":
                hoax = avail[w1_kind] + avail[w2_kind]  # a cheap bound: can any cover exist?
                if len(colours) > hoax or recoloured + n > 4 * avail[w1_kind] + avail[w2_kind]:
                    avail[kind] += n
                    break
            used.append((role, kind, n))
            dfs(i + 1, value + n * unit, min(smallest, unit), colours, recoloured + n * (role == "target"))
            used.pop()
            avail[kind] += n
            if value + n * unit >= need:
                break

    for b1, b2 in pairs:
        avail[pair_kinds[0]] -= b1
        avail[pair_kinds[1]] -= b2
        used[:] = [("pair", k, n) for k, n in zip(pair_kinds, (b1, b2)) if n]
        pair_value = 3 * ((b1 + b2) // 2)
        dfs(0, pair_value, 3 if pair_value else 99, frozenset(), 0)
        avail[pair_kinds[0]] += b1
        avail[pair_kinds[1]] += b2
    for choice in found:
        for result in emit(choice):
            if result not in seen and (colour is not Colour.BROWN or _none_spare(result, colour, need)):
                seen.add(result)
                yield result


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
