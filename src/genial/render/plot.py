"""Plots (matplotlib, an optional extra: ``pip install 'genial-sim[plot]'``): the hex-board
heatmap and the ranked chart of an opening analysis, the board game's own
(``genial.board.pictures``, where the module docstring says what they show); this module names
them for old imports.

>>> from genial.board import pictures
>>> board_heatmap is pictures.board_heatmap
True
"""

from __future__ import annotations

from typing import Any

from ..board import pictures as _pictures
from ..board.pictures import (
    CMAP,
    SYMBOL_COLOURS,
    CellStatistics,
    board_heatmap,
    cell_statistics,
    opening_figure,
)

__all__ = [
    "CMAP",
    "SYMBOL_COLOURS",
    "CellStatistics",
    "board_heatmap",
    "cell_statistics",
    "opening_figure",
]


def __getattr__(name: str) -> Any:
    """``Figure``: ``genial.board.pictures.Figure``, made on first use."""
    if name != "Figure":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _pictures.Figure
