"""A third game, written for the tests to prove that a game plugs into genial through the public
plug-in API alone (``genial.registry``, ``genial.batch.GameAdapter``): Pig, a dice race.

``rules`` (``ToyRules``), ``moves`` (``ToyMove``), ``position`` (``ToyPosition`` and its text),
``policies``, ``game`` (``ToyGame``: play, undo, records, pickling), ``adapter`` (the batch
layer's ``ToyAdapter``), ``observer`` (``ToyObserver``, for environments) and ``entry`` (its
``GameEntry``, ``GAME``). Nothing registers on import: the ``toy_game`` fixture of
``tests/conftest.py`` registers ``GAME`` and unregisters it after. docs/games.md walks through it.
"""

from .entry import GAME
from .game import ToyGame
from .moves import ToyMove
from .position import ToyPosition
from .rules import ToyRules

__all__ = ["GAME", "ToyGame", "ToyMove", "ToyPosition", "ToyRules"]
