"""The board (docs/rules.md §1): cells, distances, areas, printed symbols, colours, edges and the
symmetry group. Pure data and functions; no game state.

Axial coordinates ``(q, r)``, pointy-top cells, ``q`` growing east and ``r`` south-east::

          NW (0,-1)   NE (1,-1)
               \\       /
      W (-1,0) -- cell -- E (1,0)
               /       \\
          SW (-1,1)   SE (0,1)

>>> distance((3, -5))
5
>>> len(area(5)), len(area(6)), len(area(7))
(91, 127, 169)
>>> SYMBOLS[0], COLOURS[0], COLOUR_NAMES[0]
((0, -5), 'R', 'red')
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import _core

__all__ = [
    "COLOURS",
    "COLOUR_NAMES",
    "DIRECTIONS",
    "EDGES",
    "SYMBOLS",
    "SYMBOL_AT",
    "Cell",
    "Symmetry",
    "area",
    "cell_text",
    "distance",
    "row",
    "symmetries",
]

Cell = tuple[int, int]

COLOURS = "RGBOYP"
"""Colour letters in index order (§1.4): red, green, blue, orange, yellow, purple."""
COLOUR_NAMES = ("red", "green", "blue", "orange", "yellow", "purple")
DIRECTIONS: tuple[Cell, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""E, NE, NW, W, SW, SE (§1.2)."""
SYMBOLS: tuple[Cell, ...] = _core.SYMBOLS
"""The printed symbol of colour ``c`` is at ``SYMBOLS[c]`` (§1.4)."""
SYMBOL_AT: dict[Cell, int] = {cell: c for c, cell in enumerate(SYMBOLS)}
"""Printed cell -> its colour."""
EDGES: tuple[tuple[Cell, Cell], ...] = _core.EDGES
"""The 426 pairs of adjacent cells without a printed symbol, in action order (row-major)."""
BOARD_RADIUS = 7


def distance(cell: Cell) -> int:
    """Distance of a cell from the centre (§1.2)."""
    q, r = cell
    return max(abs(q), abs(r), abs(q + r))


def cell_text(cell: Cell) -> str:
    """``'(q, r)'``, as error messages write a cell."""
    return f"({cell[0]}, {cell[1]})"


def row(radius: int, r: int) -> list[Cell]:
    """The cells of row ``r`` of the area of ``radius``, in increasing ``q``."""
    return [(q, r) for q in range(max(-radius, -radius - r), min(radius, radius - r) + 1)]


_AREAS: dict[int, tuple[Cell, ...]] = {
    radius: tuple(cell for r in range(-radius, radius + 1) for cell in row(radius, r))
    for radius in range(1, BOARD_RADIUS + 1)
}


def area(radius: int) -> tuple[Cell, ...]:
    """The cells at distance <= ``radius``, in row-major order (§1.3)."""
    return _AREAS[radius]


@dataclass(frozen=True)
class Symmetry:
    """One of the 12 symmetries of §1.6: ``rotation`` sixths of a turn clockwise, after a mirror
    image in the axis q = r when ``mirror``. Colours follow their symbols."""

    rotation: int
    mirror: bool

    def cell(self, cell: Cell) -> Cell:
        q, r = cell
        if self.mirror:
            q, r = r, q
        for _ in range(self.rotation):
            q, r = -r, q + r
        return (q, r)

    def colour(self, colour: int) -> int:
        c = 5 - colour if self.mirror else colour
        return (c + self.rotation) % 6


def symmetries() -> list[Symmetry]:
    """The 12 elements of the group, the identity first.

    >>> group = symmetries()
    >>> len(group), all(g.cell(SYMBOLS[c]) == SYMBOLS[g.colour(c)] for g in group for c in range(6))
    (12, True)
    """
    return [Symmetry(k, m) for m in (False, True) for k in range(6)]
