"""Moves and the action space: ``Move`` (a placement, a swap or a keep), tiles, and the one codec
between moves, their text and their integer action ids.

A placement's id is ``edge * 36 + 6 * colour_on_first_cell + colour_on_second_cell`` with ``edge``
its index in ``EDGES``; swap is ``15336`` and keep ``15337``; ``ACTION_SIZE == 15338`` for every
player count.

>>> m = Move.place(((1, -4), (0, -4)), (2, 0))
>>> m.cells, m.colours
(((0, -4), (1, -4)), (0, 2))
>>> str(m), m.action == Move.parse("B1,-4+R0,-4").action
('R0,-4+B1,-4', True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from .. import _core
from ..errors import IllegalMoveError, excerpt, is_int
from ..movebase import MoveBase
from .geometry import (
    BOARD_RADIUS,
    COLOUR_NAMES,
    COLOURS,
    EDGES,
    SYMBOL_AT,
    Cell,
    cell_text,
    distance,
)
from .rules import Rules

__all__ = [
    "ACTION_KEEP",
    "ACTION_SIZE",
    "ACTION_SWAP",
    "MOVES",
    "TILES",
    "Move",
    "Tile",
    "move_of",
    "parse_tile",
    "tile_id",
    "tile_text",
]

Tile = tuple[int, int]
Kind = Literal["place", "swap", "keep"]

ACTION_SIZE: int = _core.ACTION_SIZE
"""Size of the action space: ``426 * 36`` placements, then swap, then keep."""
ACTION_SWAP: int = _core.ACTION_SWAP
ACTION_KEEP: int = _core.ACTION_KEEP
TILES: tuple[Tile, ...] = _core.TILES
"""The 21 tile types, ``(lower colour, higher colour)``, in type order RR RG ... PP."""
_TILE_ID: dict[Tile, int] = {t: i for i, t in enumerate(TILES)}
_EDGE_OF: dict[tuple[Cell, Cell], int] = {pair: i for i, pair in enumerate(EDGES)}
MAX_MOVE_TEXT = 40
"""The longest move text read (``'R-5,-2+B-4,-2'`` has 13 characters; spaces are allowed)."""
# one half: a colour letter, then q,r with optional parentheses, ASCII digits only (a cell of the
# board has coordinates -7..7); the length cap above keeps every match linear
_HALF = re.compile(r"([A-Za-z]) *(\(?) *(-?[0-9]{1,2}) *, *(-?[0-9]{1,2}) *(\)?)")


def tile_text(tile: Tile) -> str:
    """Two letters, lower colour first: ``tile_text((0, 2)) == 'RB'``."""
    return COLOURS[tile[0]] + COLOURS[tile[1]]


def parse_tile(text: str) -> Tile:
    """``'BR'`` or ``'RB'`` -> ``(0, 2)``; ``IllegalMoveError`` (a ``ValueError``) otherwise."""
    if not isinstance(text, str) or len(text) != 2 or any(ch not in COLOURS for ch in text.upper()):
        raise IllegalMoveError(f"{excerpt(text)} is not a tile (two of the letters {COLOURS})")
    a, b = (COLOURS.index(ch) for ch in text.upper())
    return (min(a, b), max(a, b))


def tile_id(tile: Tile) -> int:
    """The type id (0..20) of a tile ``(lo, hi)``."""
    return _TILE_ID[(min(tile), max(tile))]


def _row_major(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


def move_of(action: int) -> Move:
    """The move of an action id, unchecked against any area (``Move.from_action`` checks)."""
    return MOVES[action]


class Move(MoveBase):
    """A decision: a placement of a tile on two cells, a swap of the rack, or keeping it.

    A placement puts ``colours[0]`` on ``cells[0]`` and ``colours[1]`` on ``cells[1]``; the pair
    is stored in a canonical order (cells in row-major order), so equal placements compare equal.

    >>> m = Move.parse('B1,-4+R0,-4')
    >>> m
    Move.parse('R0,-4+B1,-4')
    >>> Move.from_action(m.action, players=2) == m
    True
    """

    __slots__ = ("cells",)

    kind: Kind
    cells: tuple[Cell, Cell] | None
    _constructors = ("place", "swap", "keep", "parse", "from_action")
    _rebuild = staticmethod(move_of)
    _action_size = ACTION_SIZE
    _max_text = MAX_MOVE_TEXT

    @classmethod
    def _make(
        cls,
        kind: Kind,
        cells: tuple[Cell, Cell] | None,
        colours: tuple[int, int] | None,
        action: int,
    ) -> Move:
        move = cls._new(kind, colours, action)
        object.__setattr__(move, "cells", cells)
        return move

    @classmethod
    def place(cls, cells: Sequence[Sequence[int]], colours: Sequence[int]) -> Move:
        """A placement of ``colours[0]`` on ``cells[0]`` and ``colours[1]`` on ``cells[1]``.

        Raises ``IllegalMoveError`` unless the cells are two adjacent cells of the board
        without a printed symbol and the colours are two ints in ``0..5``.
        """
        try:
            (q0, r0), (q1, r1) = cells
            c0, c1 = colours
        except (TypeError, ValueError):
            q0 = None
        if q0 is None or not all(is_int(v) for v in (q0, r0, q1, r1, c0, c1)):
            raise IllegalMoveError(
                "a placement needs two cells (q, r) and two colours, got "
                f"{excerpt(cells)}, {excerpt(colours)}"
            )
        x: Cell = (int(q0), int(r0))
        y: Cell = (int(q1), int(r1))
        k0, k1 = int(c0), int(c1)
        for c in (k0, k1):
            if not 0 <= c < 6:
                raise IllegalMoveError(f"colour {excerpt(c)} is not in 0..5 ({COLOURS})")
        for cell in (x, y):
            if distance(cell) > BOARD_RADIUS:
                raise IllegalMoveError(
                    f"cell {excerpt(cell)} is off the board (radius {BOARD_RADIUS})"
                )
            if cell in SYMBOL_AT:
                name = COLOUR_NAMES[SYMBOL_AT[cell]]
                raise IllegalMoveError(f"cell {cell_text(cell)} holds the printed {name} symbol")
        if _row_major(y) < _row_major(x):
            x, y, k0, k1 = y, x, k1, k0
        edge = _EDGE_OF.get((x, y))
        if edge is None:
            raise IllegalMoveError(f"cells {cell_text(x)} and {cell_text(y)} are not adjacent")
        return _PLACEMENTS[edge * 36 + k0 * 6 + k1]

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``'R0,-4+B1,-4'``, ``'swap'`` or ``'keep'``. Letters may be lower case, spaces
        may stand around the parts, and a cell may be written ``(q,r)``; coordinates are ASCII
        integers. Texts longer than ``MAX_MOVE_TEXT`` are refused at once."""
        word, decision = cls._read_word(text)
        if decision is not None:
            return decision  # type: ignore[no-any-return]
        halves = word.split("+")
        if len(halves) != 2:
            raise IllegalMoveError(
                f"cannot read move {excerpt(text)}: expected 'swap', 'keep' or a placement "
                "like 'R0,-4+B1,-4'"
            )
        cells: list[Cell] = []
        colours: list[int] = []
        for half in halves:
            match = _HALF.fullmatch(half.strip(" "))
            if (
                match is None
                or match.group(1).upper() not in COLOURS
                or bool(match.group(2)) != bool(match.group(5))
            ):
                raise IllegalMoveError(
                    f"cannot read {excerpt(half.strip())} in move {excerpt(text)}: expected a "
                    f"colour letter ({COLOURS}) then q,r, like 'R0,-4'"
                )
            colours.append(COLOURS.index(match.group(1).upper()))
            cells.append((int(match.group(3)), int(match.group(4))))
        return cls.place(cells, colours)

    @classmethod
    def from_action(cls, action: int, players: int | str | Rules = 2) -> Move:
        """The move with integer id ``action`` (see ``ACTION_SIZE``), checked against the area
        of the game: ``players`` is a player count, a rules token or a ``Rules``."""
        radius = Rules.of(players).radius
        move = MOVES[cls._action_id(action)]
        if move.cells is not None:
            for cell in move.cells:
                if distance(cell) > radius:
                    raise IllegalMoveError(
                        f"action {action} uses cell {cell_text(cell)}, outside the "
                        f"{Rules.of(players).players}-player area"
                    )
        return move

    @property
    def edge(self) -> int | None:
        """A placement's index in ``EDGES``."""
        return None if self.cells is None else self._action // 36

    @property
    def tile(self) -> Tile | None:
        """The tile a placement uses, as ``(lower colour, higher colour)``."""
        if self.colours is None:
            return None
        return (min(self.colours), max(self.colours))

    def __str__(self) -> str:
        if self.cells is None or self.colours is None:
            return self.kind
        (q0, r0), (q1, r1) = self.cells
        c0, c1 = self.colours
        return f"{COLOURS[c0]}{q0},{r0}+{COLOURS[c1]}{q1},{r1}"


def _build_moves() -> tuple[list[Move], Move, Move]:
    moves = []
    for e, cells in enumerate(EDGES):
        for c0 in range(6):
            for c1 in range(6):
                moves.append(Move._make("place", cells, (c0, c1), e * 36 + c0 * 6 + c1))
    return (
        moves,
        Move._make("swap", None, None, ACTION_SWAP),
        Move._make("keep", None, None, ACTION_KEEP),
    )


_PLACEMENTS, _SWAP, _KEEP = _build_moves()
Move._swap, Move._keep = _SWAP, _KEEP
MOVES: tuple[Move, ...] = (*_PLACEMENTS, _SWAP, _KEEP)
"""Every move, by action id (unchecked against any area: ``Move.from_action`` checks)."""
