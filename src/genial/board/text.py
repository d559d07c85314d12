"""The board as text for people: ``str(game)`` (a pure function of the game's public face)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .geometry import COLOURS, SYMBOLS, row
from .moves import tile_text

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

__all__ = ["ascii_board"]


def ascii_board(game: Game) -> str:
    """Draw the board, the counters and whose turn it is.

    Tile halves are capital letters (R G B O Y P), printed symbols lower-case letters, empty
    cells dots. Rows run from r = -radius (top) to r = +radius; each row is shifted half a cell
    to the right of the one above, as the hexes are.

    >>> from genial import Game
    >>> print(Game(players=2, seed=0))  # doctest: +ELLIPSIS
           r . . . . g
          . . . . . . .
    ...
          y . . . . o
    <BLANKLINE>
             R   G   B   O   Y   P   rack
    * p0     0   0   0   0   0   0   ...
      p1     0   0   0   0   0   0   ...
    player 0 to move (turn 1, place)
    """
    radius = game.radius
    covered = game.board
    symbols = {cell: COLOURS[c].lower() for c, cell in enumerate(SYMBOLS)}
    lines = []
    for r in range(-radius, radius + 1):
        cells = row(radius, r)
        chars = []
        for cell in cells:
            if cell in symbols:
                chars.append(symbols[cell])
            elif cell in covered:
                chars.append(COLOURS[covered[cell]])
            else:
                chars.append(".")
        lines.append(" " * (abs(r) + 2) + " ".join(chars))
    lines.append("")
    lines.append("        " + "  ".join(f"{c:>2}" for c in COLOURS) + "   rack")
    for p, counters in enumerate(game.scores):
        marker = "*" if p == game.current_player and not game.is_over else " "
        rack = " ".join(tile_text(t) for t in game.rack(p))
        lines.append(
            f"{marker} p{p}    " + "  ".join(f"{int(v):>2}" for v in counters) + f"   {rack}"
        )
    if game.is_over:
        lines.append(f"game over after {game.turn} turns; ranks {game.ranks().tolist()}")
    else:
        lines.append(f"player {game.current_player} to move (turn {game.turn}, {game.phase})")
    return "\n".join(lines)
