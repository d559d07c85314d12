"""The board as text for people (``str(game)``): ``ascii_board``, the board game's own, lives in
``genial.board.text``; this name stays for old imports.

>>> from genial import Game
>>> ascii_board(Game(2, seed=1)) == str(Game(2, seed=1))
True
"""

from __future__ import annotations

from ..board.text import ascii_board

__all__ = ["ascii_board"]
