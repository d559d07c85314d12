"""genial: a fast, correct simulator of Reiner Knizia's *Ingenious* (*Einfach Genial*).

>>> import genial
>>> game = genial.Game(players=3, seed=42)
>>> game.players, len(game.legal_moves()) > 0
(3, True)
"""

from .game import (
    ACTION_SIZE,
    COLOURS,
    EDGES,
    SYMBOLS,
    Game,
    GenialError,
    IllegalMoveError,
    Move,
    PositionError,
    RecordError,
)
from .rules import Rules, RulesError
from .simulation import Playouts, Summary, simulate, wilson_interval

__all__ = [
    "ACTION_SIZE",
    "COLOURS",
    "EDGES",
    "SYMBOLS",
    "Game",
    "GenialError",
    "IllegalMoveError",
    "Move",
    "Playouts",
    "PositionError",
    "RecordError",
    "Rules",
    "RulesError",
    "Summary",
    "simulate",
    "wilson_interval",
]

__version__ = "0.1.0"
