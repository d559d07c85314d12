"""genial: a fast, correct simulator of Reiner Knizia's *Ingenious* (*Einfach Genial*).

The board game is ``Game``; batches are ``simulate``; every game of the library is in the
registry (``games()``, ``make(name, ...)``). The rules it implements are in ``docs/rules.md``.

>>> import genial
>>> game = genial.Game(players=3, seed=42)
>>> game.players, len(game.legal_moves()) > 0
(3, True)
>>> genial.games()
('board', 'cards')
"""

from ._version import __version__
from .analysis import Evaluation, evaluate
from .arena import ArenaResult, arena
from .batch import BatchSpec, Playouts, Summary, simulate
from .errors import GenialError, IllegalMoveError, PositionError, RecordError, RulesError
from .game import Game
from .geometry import COLOURS, EDGES, SYMBOLS
from .matches import MatchResult, match
from .moves import ACTION_SIZE, Move
from .notation import Position
from .registry import games, make
from .rules import Rules
from .stats import wilson_interval

__all__ = [
    "ACTION_SIZE",
    "COLOURS",
    "EDGES",
    "SYMBOLS",
    "ArenaResult",
    "BatchSpec",
    "Evaluation",
    "Game",
    "GenialError",
    "IllegalMoveError",
    "MatchResult",
    "Move",
    "Playouts",
    "Position",
    "PositionError",
    "RecordError",
    "Rules",
    "RulesError",
    "Summary",
    "__version__",
    "arena",
    "evaluate",
    "games",
    "make",
    "match",
    "simulate",
    "wilson_interval",
]
