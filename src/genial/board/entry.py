"""The board game's entry in the registry (``genial.registry``): found through the
``genial.games`` entry point ``board = "genial.board.entry:GAME"``."""

from __future__ import annotations

from typing import Any

from .. import _core
from ..kernel_adapter import gains_points
from ..registry import AnalysisHooks, GameEntry
from . import notation, svg
from .adapter import BOARD
from .game import Game
from .moves import ACTION_SWAP, MOVES, Move
from .notation import RECORDS, Position
from .observer import BoardObserver
from .rules import Rules
from .vector import VectorEnv

__all__ = ["GAME"]


def _load(position: Position) -> Any:
    return notation.load(position, pair_tiles=False)


def _env(*args: Any, **kwargs: Any) -> Any:
    from ..integrations.pettingzoo import BoardEnv

    return BoardEnv(*args, **kwargs)


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
    noun="board game",
    search=True,
    svg=svg.board_svg,
    replay_picture=svg.replay_picture,
    analysis=AnalysisHooks(
        kernel=_core,
        load=_load,
        moves=MOVES,
        phases=notation.PHASES,
        points=gains_points(ACTION_SWAP),
    ),
    observer=BoardObserver,
    env=_env,
    vector_env=VectorEnv,
    players=2,
    cli="genial.board.cli",
)
