"""Pictures of games as SVG text: ``svg(game)`` draws a game of any registered game with the
picture its entry names (``genial.registry``): the board game's board as it lies on the table
(``board_svg``, in ``genial.board.svg``), the card game's hands, displays and scoring boards
(``cards_svg``, in ``genial.cards.svg``). Pure functions of a game's public face, returning
one self-contained SVG document (no script, no external reference, no randomness: the same
game gives the same text); a game's ``_repr_svg_`` calls them, so a game shows itself in
Jupyter. The pieces every game's picture shares are in ``genial.render.kit``.

Every colour has its own shape as well (the symbols printed on the board, RULES §1.4), so the
pictures stay readable without telling the colours apart:

>>> from genial.board.geometry import COLOUR_NAMES
>>> for name, shape in zip(COLOUR_NAMES, SHAPES):
...     print(f"{name:<7} {shape}")
red     12-pointed star
green   circle
blue    6-pointed star
orange  hexagon
yellow  24-pointed star
purple  ring

>>> from genial import Game
>>> game = Game(2, seed=1)
>>> game.play(game.choose("greedy"))
>>> picture = board_svg(game, highlight=[(0, 0)], coordinates=True)
>>> picture.startswith("<svg") and "<title>" in picture and 'class="last-move"' in picture
True
"""

from __future__ import annotations

from typing import Any

from ..board.svg import board_svg
from ..cards.svg import cards_svg
from ..errors import GenialError
from ..registry import entry, entry_of, games
from .kit import COLOUR_VALUES, SHAPES, ReplayPicture

__all__ = [
    "COLOUR_VALUES",
    "SHAPES",
    "ReplayPicture",
    "board_svg",
    "cards_svg",
    "replay_picture",
    "svg",
]


def _hook(game: Any, what: str) -> Any:
    """The entry's picture hook ``what`` of ``game``'s game (``GenialError`` if none)."""
    try:
        found = entry_of(game)
    except GenialError:
        found = None
    if found is None or not isinstance(game, found.game):
        kinds = " or ".join(entry(name).game.__name__ for name in games())
        raise GenialError(f"svg: expected a genial {kinds}, got {type(game).__name__}")
    hook = getattr(found, what)
    if hook is None:
        raise GenialError(f"svg: the game {found.name!r} has no picture")
    return hook


def svg(game: Any, **options: Any) -> str:
    """The picture of a game of any registered game (its entry's ``svg``: ``board_svg`` for a
    ``Game``, ``cards_svg`` for a ``CardGame``); ``options`` are the picture's own.

    >>> from genial import Game
    >>> svg(Game(2, seed=0)) == board_svg(Game(2, seed=0))
    True
    >>> svg("a game")
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: svg: expected a genial Game or CardGame, got str
    """
    picture: str = _hook(game, "svg")(game, **options)
    return picture


def replay_picture(final: Any) -> ReplayPicture:
    """The parts of the replay page's picture (its entry's ``replay_picture``), from the game
    at the end of its record."""
    parts: ReplayPicture = _hook(final, "replay_picture")(final)
    return parts
