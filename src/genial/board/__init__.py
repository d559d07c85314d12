"""The board game, *Ingenious* (*Einfach Genial*; docs/rules.md §1-§4).

``Game`` plays one game with its history; moves are ``Move`` over a fixed action space of
``ACTION_SIZE`` ids; ``Rules`` names the variant (players, teams, tournament, travel tiles);
``Position`` is a position as data (``genial.board.notation`` describes its text). The compiled
kernel is ``genial._core``. ``genial.board.openings`` analyses first placements,
``genial.board.vector`` is the batched RL environment. ``genial.Game``, ``genial.Move`` and
``genial.Rules`` are these classes.

>>> from genial.board import Game
>>> game = Game(players=2, seed=1)
>>> while not game.is_over:
...     game.play(game.choose("greedy"))
>>> Game.from_record(game.to_record()) == game
True
"""

from __future__ import annotations

from .game import Game
from .geometry import COLOURS, EDGES, SYMBOLS
from .moves import ACTION_SIZE, Move
from .notation import Position
from .rules import Rules

__all__ = ["ACTION_SIZE", "COLOURS", "EDGES", "SYMBOLS", "Game", "Move", "Position", "Rules"]
