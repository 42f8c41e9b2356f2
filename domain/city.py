"""The city grid: which building stands where, and which tiles touch (R1, R3)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import rng
from .catalogue import BASE_BUILDINGS, BUILDINGS, COURTYARD, EXPANSION, STARTING
from .options import Edition, Layout, Options

Cell = tuple[int, int]
CENTRE: Cell = (2, 2)
#: Where the classic edition puts each starting tile (north, west, east, south).
CLASSIC_START: dict[str, Cell] = {
    "fire_temple": (1, 2),
    "water_temple": (2, 1),
    "royal_palace": (2, 3),
    "earth_temple": (3, 2),
}
START_CELLS: tuple[Cell, ...] = ((1, 2), (2, 1), (2, 3), (3, 2))
_CORNERS = {(0, 0), (0, 4), (4, 0), (4, 4)}


def cells(expansion: bool) -> tuple[Cell, ...]:
    """The city's cells, row-major: 5x5 without corners, or all 25 with the expansion."""
    return tuple((r, c) for r in range(5) for c in range(5) if expansion or (r, c) not in _CORNERS)


@dataclass(frozen=True)
class City:
    """An immutable placement of tiles on cells, with adjacency and distances precomputed."""

    placement: Mapping[str, Cell]
    neighbours: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    distances: Mapping[str, Mapping[str, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        at = {cell: tile for tile, cell in self.placement.items()}
        if len(at) != len(self.placement):
            raise ValueError("two tiles on one cell")
        neighbours = {}
        for tile, (r, c) in self.placement.items():
            near = ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
            neighbours[tile] = tuple(at[n] for n in near if n in at)
        object.__setattr__(self, "neighbours", neighbours)
        object.__setattr__(self, "distances", {t: _bfs(t, neighbours) for t in self.placement})

    @property
    def tiles(self) -> tuple[str, ...]:
        return tuple(self.placement)

    def within(self, tile: str, steps: int) -> tuple[str, ...]:
        """Tiles reachable from ``tile`` in 1..steps orthogonal steps."""
        return tuple(t for t, d in self.distances[tile].items() if 0 < d <= steps)


def _bfs(start: str, neighbours: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        tile = queue.popleft()
        for n in neighbours[tile]:
            if n not in dist:
                dist[n] = dist[tile] + 1
                queue.append(n)
    return dist


def generate(options: Options, seed: bytes) -> dict[str, Cell]:
    """The seeded layout for STANDARD or VARIANT (R1, R3)."""
    grid = [c for c in cells(options.expansion) if c != CENTRE]
    tiles = list(BASE_BUILDINGS) + (list(EXPANSION) if options.expansion else [])
    placement: dict[str, Cell] = {COURTYARD: CENTRE}
    if options.layout is Layout.STANDARD:
        if options.edition is Edition.CLASSIC:
            placement.update(CLASSIC_START)
        else:
            order = rng.shuffled(seed, "layout/start", STARTING)
            placement.update(zip(order, START_CELLS))
        grid = [c for c in grid if c not in START_CELLS]
        tiles = [t for t in tiles if t not in STARTING]
    placement.update(zip(rng.shuffled(seed, "layout", tiles), grid))
    return placement


def validate_explicit(options: Options, placement: Mapping[str, Cell]) -> None:
    """Raise ValueError unless ``placement`` fills exactly this game's cells with its tiles."""
    expected_tiles = {COURTYARD, *BASE_BUILDINGS, *(EXPANSION if options.expansion else ())}
    if set(placement) != expected_tiles:
        missing = sorted(expected_tiles - set(placement))
        unknown = sorted(set(placement) - expected_tiles)
        raise ValueError(f"grid must hold each tile once; missing {missing}, unexpected {unknown}")
    if sorted(placement.values()) != sorted(cells(options.expansion)):
        raise ValueError("grid must fill every cell of the city exactly once")
    assert set(BUILDINGS) >= expected_tiles - {COURTYARD}
