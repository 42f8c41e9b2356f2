"""The payment search lists exactly what a plain search lists, in the same order.

``minimal_payments`` is tuned for speed (a search that pays each choice where it finds it, Hoax
plans cached from search to search, a quick pass for brown payments with under two brown 1s).
The order matters as much as the set: bots pick among legal commands with seeded randomness, so
another order would change recorded games. The reference below is the plain search the engine
used before it was tuned: a depth-first search that collects every choice, then lays each out
with every Hoax plan, and checks every payment for duplicates and, on brown, for spare cards.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from itertools import product

import pytest

from domain.commands import Contribute, Recolour, contributions
from domain.errors import IllegalCommand
from domain.payment import minimal_payments, payments_by_cards, value_of
from domain.peoples import CARDS, Colour

Kind = tuple[Colour, int]


def _covers(targets: int) -> list[tuple[int, int]]:
    """Each (Hoax 1s, Hoax 2s) that recolours ``targets`` cards of one colour (a Hoax 1 up to
    four, a Hoax 2 one) and none of which could be left out."""
    return [
        (h1, h2)
        for h1 in range(targets + 1)
        for h2 in range(targets + 1)
        if 4 * h1 + h2 >= targets and not (h1 and 4 * (h1 - 1) + h2 >= targets) and not (h2 and 4 * h1 + h2 > targets)
    ]


def _none_spare(cards: tuple[str, ...], hoax: tuple[Recolour, ...], colour: Colour, need: int) -> bool:
    recoloured = frozenset(t for r in hoax for t in r.targets)
    paid = [CARDS[c] for c in cards]
    for i in range(len(paid)):
        try:
            if paid[i].id not in recoloured and value_of(paid[:i] + paid[i + 1 :], colour, recoloured) >= need:
                return False
        except IllegalCommand:
            continue
    return True


def reference(hand: list[str], colour: Colour, need: int, use_hoax: bool) -> list[tuple[tuple[str, ...], tuple]]:
    """The plain search (the engine's before it was tuned)."""
    ids: dict[Kind, list[str]] = {}
    for cid in sorted(hand):
        ids.setdefault(CARDS[cid].kind, []).append(cid)
    avail = Counter({k: len(v) for k, v in ids.items()})
    w1_kind, w2_kind = (Colour.WHITE, 1), (Colour.WHITE, 2)
    slots: list[tuple[str, Kind, int]] = [("native", (colour, v), v) for v in (1, 2, 3) if avail[(colour, v)]]
    if colour is not Colour.GREEN:
        slots += [("wild", (Colour.GREEN, v), 1) for v in (1, 2, 3) if avail[(Colour.GREEN, v)]]
    if use_hoax and avail[w1_kind] + avail[w2_kind]:
        slots += [
            ("target", k, k[1]) for k in sorted(avail) if k[0] is not colour and k != (Colour.GREEN, 1) and avail[k]
        ]
    pair_kinds = ((Colour.BROWN, 1), (Colour.BROWN, 2))
    b1, b2 = avail[pair_kinds[0]], avail[pair_kinds[1]]
    pairs = [(0, 0)]
    if colour is not Colour.BROWN:
        pairs += [(x, n - x) for n in range(2, b1 + b2 + 1, 2) for x in range(n + 1) if x <= b1 and n - x <= b2]
    else:
        pairs += [(n, 0) for n in range(2, b1 + 1, 2)]
    found: list[tuple[tuple[str, Kind, int], ...]] = []
    used: list[tuple[str, Kind, int]] = []

    def dfs(i: int, value: int, smallest: int, colours: frozenset[Colour], recoloured: int) -> None:
        if value >= need:
            if value - smallest < need:
                found.append(tuple(used))
            return
        if i == len(slots):
            return
        role, kind, unit = slots[i]
        dfs(i + 1, value, smallest, colours, recoloured)
        if role == "target":
            colours = colours | {kind[0]}
        for n in range(1, avail[kind] + 1):
            avail[kind] -= n
            if role == "target":
                spare = avail[w1_kind] + avail[w2_kind]
                if len(colours) > spare or recoloured + n > 4 * avail[w1_kind] + avail[w2_kind]:
                    avail[kind] += n
                    break
            used.append((role, kind, n))
            dfs(i + 1, value + n * unit, min(smallest, unit), colours, recoloured + n * (role == "target"))
            used.pop()
            avail[kind] += n
            if value + n * unit >= need:
                break

    for p1, p2 in pairs:
        avail[pair_kinds[0]] -= p1
        avail[pair_kinds[1]] -= p2
        used[:] = [("pair", k, n) for k, n in zip(pair_kinds, (p1, p2)) if n]
        pair_value = 3 * ((p1 + p2) // 2)
        dfs(0, pair_value, 3 if pair_value else 99, frozenset(), 0)
        avail[pair_kinds[0]] += p1
        avail[pair_kinds[1]] += p2
    result = []
    seen = set()
    for choice in found:
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
        plans: list[tuple[Recolour, ...]] = [()]
        if targets:
            w1 = ids.get(w1_kind, [])[taken.get(w1_kind, 0) :]
            w2 = ids.get(w2_kind, [])[taken.get(w2_kind, 0) :]
            colours = sorted(targets)
            plans = []
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
                plans.append(tuple(hoax))
        for hoax_plan in plans:
            payment = (tuple(sorted(cards)), hoax_plan)
            if payment not in seen and (colour is not Colour.BROWN or _none_spare(*payment, colour, need)):
                seen.add(payment)
                result.append(payment)
    return result


def _hands(seed: int, count: int) -> list[list[str]]:
    """Random hands of 1-35 cards, half of them rich in Hoax cards and brown 1s (the paths
    where Hoax plans multiply and where brown payments are checked)."""
    rnd = random.Random(seed)
    deck = list(CARDS)
    favoured = [c for c in deck if CARDS[c].colour is Colour.WHITE or CARDS[c].kind == (Colour.BROWN, 1)]
    hands = []
    for i in range(count):
        size = rnd.randint(1, 35)
        if i % 2:
            extra = rnd.sample(favoured, rnd.randint(2, len(favoured)))
            rest = [c for c in deck if c not in extra]
            hands.append(extra + rnd.sample(rest, max(0, size - len(extra))))
        else:
            hands.append(rnd.sample(deck, size))
    return hands


@pytest.mark.parametrize("seed", range(4))
def test_the_search_lists_the_plain_searchs_payments_in_its_order(seed: int) -> None:
    rnd = random.Random(seed)
    for hand in _hands(seed, 60):
        colour = rnd.choice(list(Colour))
        need = rnd.randint(1, 5)
        for use_hoax in (True, False):
            expected = reference(hand, colour, need, use_hoax)
            assert list(minimal_payments(hand, colour, need, use_hoax)) == expected, (sorted(hand), colour, need)
            if use_hoax:
                cards, plans = payments_by_cards(tuple(sorted(hand)), colour, need)
                assert [(paid, h) for paid, hoaxes in zip(cards, plans) for h in hoaxes] == expected


def test_every_colour_and_value_of_a_hoax_rich_hand_on_brown_and_elsewhere() -> None:
    for hand in _hands(99, 8)[1::2]:
        for colour in Colour:
            for need in range(1, 6):
                assert list(minimal_payments(hand, colour, need)) == reference(hand, colour, need, True)


def test_contributions_are_the_commands_the_constructor_makes() -> None:
    hand = _hands(7, 2)[1]
    payments = minimal_payments(hand, Colour.RED, 4) + minimal_payments(hand, Colour.BROWN, 3)
    for named in (None, "red"):
        made = contributions(2, "hospital", 1, named, [cards for cards, _ in payments], [[h] for _, h in payments])
        expected = [Contribute(2, "hospital", 1, cards, named, hoax) for cards, hoax in payments]
        assert made == expected
        assert [hash(c) for c in made] == [hash(c) for c in expected]
        assert [repr(c) for c in made] == [repr(c) for c in expected]
        assert [dataclasses.astuple(c) for c in made] == [dataclasses.astuple(c) for c in expected]
