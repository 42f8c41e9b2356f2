"""The building catalogue of docs/rulings.md (R14), kept as data with each value's provenance.

Provenance letters: ``S`` printed in a rulebook example, ``R`` reconstructed (the tile
pictures are lost). An owner of the physical game can correct a value here and its letter.
"""

from __future__ import annotations

from dataclasses import dataclass

from .peoples import Colour


@dataclass(frozen=True, slots=True)
class Space:
    """A contribution space: ``colour`` None means any colour (one colour per space)."""

    colour: Colour | None
    value: int


@dataclass(frozen=True, slots=True)
class Reward:
    """What a bonus pays: crystals, golden scales and cards drawn from the deck."""

    crystals: int = 0
    scales: int = 0
    cards: int = 0

    @staticmethod
    def parse(text: str) -> Reward:
        """Parse the catalogue notation, e.g. ``"1c 1k"`` or ``"2s"``."""
        amounts = {"c": 0, "s": 0, "k": 0}
        for part in text.split():
            amounts[part[-1]] += int(part[:-1])
        return Reward(amounts["c"], amounts["s"], amounts["k"])


@dataclass(frozen=True, slots=True)
class Building:
    """One building tile as printed on its rubble side."""

    id: str
    name: str
    spaces: tuple[Space, ...]
    majority: Reward
    construction: Reward
    neighbourhood: Reward
    provenance: dict[str, str]
    expansion: bool = False
    starting: bool = False


def _spaces(text: str) -> tuple[Space, ...]:
    result = []
    for part in text.split(","):
        colour, value = part.split()
        result.append(Space(None if colour == "any" else Colour(colour), int(value)))
    return tuple(result)


# id, name, spaces, majority, construction, neighbourhood, provenance per field
# (spaces, values, majority, construction, neighbourhood), as in docs/rulings.md (R14).
_TABLE: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    ("royal_palace", "Royal Palace", "any 4, any 3, any 3, any 2", "3c", "2c", "2k", "S R R R R"),
    ("fire_temple", "Fire Temple", "black 5, black 4, black 3", "2c", "3c", "3c", "R R R R S"),
    ("earth_temple", "Earth Temple", "red 5, red 4, red 3", "2c", "3c", "2k", "S S R R R"),
    ("water_temple", "Water Temple", "blue 5, blue 4, blue 3", "2c", "3c", "2s", "S S S S S"),
    ("aqueduct", "Aqueduct", "white 2, red 3, blue 3", "1c", "2c", "1c", "R R R R S"),
    ("hospice", "Hospice", "red 4, red 2", "1s", "1c 1k", "1k", "S R R R R"),
    ("citadel", "Citadel", "black 4, black 3", "1c", "2c", "1c", "R R R R S"),
    ("watchtower", "Watchtower", "grey 4, grey 3", "1s", "2c", "1s", "R R R R R"),
    ("great_hall", "Great Hall", "brown 5, brown 3", "2c", "2c", "1c", "R R R R R"),
    ("university", "University", "white 5, white 2", "1s", "1c", "2k", "S S S S R"),
    ("market_hall", "Market Hall", "yellow 4, green 2", "1c", "1c 1k", "2k", "R R R R S"),
    ("library", "Library", "white 4, white 3", "2k", "2c", "1c", "R R R R R"),
    ("trading_house", "Trading House", "yellow 5, yellow 3", "1c", "2c", "1s", "R R R R S"),
    ("flight_tower", "Flight Tower", "grey 4, green 2", "1s", "1c 1s", "1s", "R R R R R"),
    ("city_residence", "City Residence", "brown 4, brown 3, brown 2", "2c", "2c", "1c", "S S R R R"),
    ("monastery_tower", "Monastery Tower", "grey 3, green 2, grey 2", "1s", "2c", "1c", "S R S R S"),
    ("caravansera", "Caravansera", "yellow 3, green 3", "1k", "2c", "1k", "R R R R R"),
    ("thermae", "Thermae", "blue 3, black 3", "1s", "2c", "1s", "R R R R R"),
    ("iron_foundry", "Iron Foundry", "black 5, black 2", "2c", "1c 1k", "1c", "R R R R R"),
    ("mill", "Mill", "red 4, red 3", "1c", "1c 1k", "1k", "R R R R R"),
    ("main_hall", "Main Hall", "any 1, any 2, any 3", "3c", "2c", "2c", "R R S S S"),
    ("hospital", "Hospital", "red 3, blue 3", "1c", "2c", "2c", "R R S S S"),
    ("golden_shrine", "Golden Shrine", "yellow 4, yellow 2", "1s", "1c 1s 1k", "2s", "R R S S S"),
    ("theatre", "Theatre", "white 3, green 2", "2k", "2k", "2k", "R R S S S"),
)

COURTYARD = "courtyard"
STARTING = ("fire_temple", "water_temple", "royal_palace", "earth_temple")
EXPANSION = ("main_hall", "hospital", "golden_shrine", "theatre")
_FIELDS = ("spaces", "space_values", "majority", "construction", "neighbourhood")


def _build() -> dict[str, Building]:
    result = {}
    for bid, name, spaces, majority, construction, neighbourhood, prov in _TABLE:
        result[bid] = Building(
            id=bid,
            name=name,
            spaces=_spaces(spaces),
            majority=Reward.parse(majority),
            construction=Reward.parse(construction),
            neighbourhood=Reward.parse(neighbourhood),
            provenance=dict(zip(_FIELDS, prov.split())),
            expansion=bid in EXPANSION,
            starting=bid in STARTING,
        )
    return result


#: Every building tile but the Courtyard, by id.
BUILDINGS: dict[str, Building] = _build()
BASE_BUILDINGS: tuple[str, ...] = tuple(b for b in BUILDINGS if b not in EXPANSION)
