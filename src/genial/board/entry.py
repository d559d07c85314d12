"""The board game's entry in the registry (``genial.registry``): found through the
``genial.games`` entry point ``board = "genial.board.entry:GAME"``."""

from __future__ import annotations

from ..registry import GameEntry
from .adapter import BOARD
from .game import Game
from .moves import Move
from .notation import RECORDS, Position
from .rules import Rules

__all__ = ["GAME"]

GAME = GameEntry(
    name="board",
    title="Ingenious, the board game",
    game=Game,
    rules=Rules.of,
    adapter=BOARD,
    rules_type=Rules,
    position=Position,
    move=Move,
    record_format=RECORDS.name,
    aliases=("ingenious", "genial"),
    cli="genial.board.cli",
)
