"""The eight peoples, their colours, and the 80 people cards with stable ids (R2)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Colour(str, Enum):
    """A people's colour; the value is what clients send and receive."""

    BLACK = "black"  #: Vulca: move the red dragon
    RED = "red"  #: Terrah: move the green dragon
    BLUE = "blue"  #: Aqua: move the blue dragon
    GREY = "grey"  #: Flit: move your own figure
    GREEN = "green"  #: Khind: wild card of value 1
    BROWN = "brown"  #: Mimix: two 1s/2s form a wild 3
    WHITE = "white"  #: Hoax: recolour cards for one contribution
    YELLOW = "yellow"  #: Pillar: extra offerings


class Dragon(str, Enum):
    """The three elemental dragons, named by their colour."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


#: Which people's cards move which dragon (R5).
DRAGON_OF: dict[Colour, Dragon] = {
    Colour.BLACK: Dragon.RED,
    Colour.RED: Dragon.GREEN,
    Colour.BLUE: Dragon.BLUE,
}

#: Reconstructed distribution per people: four 1s, three 2s, three 3s (R2).
VALUES_PER_PEOPLE: tuple[int, ...] = (1, 1, 1, 1, 2, 2, 2, 3, 3, 3)


@dataclass(frozen=True, slots=True)
class Card:
    """One people card; ``id`` is stable across games, e.g. ``black-1a``."""

    id: str
    colour: Colour
    value: int

    @property
    def kind(self) -> tuple[Colour, int]:
        """Cards of one kind are interchangeable: same colour, same value."""
        return (self.colour, self.value)


def _make_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for colour in Colour:
        seen: dict[int, int] = {}
        for value in VALUES_PER_PEOPLE:
            n = seen.get(value, 0)
            seen[value] = n + 1
            card_id = f"{colour.value}-{value}{'abcd'[n]}"
            cards[card_id] = Card(card_id, colour, value)
    return cards


#: All 80 cards by id, in the canonical order (colour order above, then value).
CARDS: dict[str, Card] = _make_cards()
#: The canonical unshuffled deck order: the input of the seeded deck shuffle (R15).
CANONICAL_DECK: tuple[str, ...] = tuple(CARDS)


def card(card_id: str) -> Card:
    """The card with this id; raises KeyError for an unknown id."""
    return CARDS[card_id]
