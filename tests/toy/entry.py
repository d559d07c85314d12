"""The toy game's registry entry. A test registers it (``genial.registry.register(GAME)``,
the ``toy_game`` fixture of ``tests/conftest.py``); a game of another distribution would name
such an entry in its ``pyproject.toml`` instead (docs/games.md)::

    [project.entry-points."genial.games"]
    toy = "tests.toy.entry:GAME"
"""

from __future__ import annotations

from genial.registry import GameEntry

from .adapter import TOY_ADAPTER
from .game import RECORD_FORMAT, ToyGame
from .moves import ToyMove
from .observer import ToyObserver
from .position import ToyPosition
from .rules import ToyRules, toy_rules

__all__ = ["GAME"]

GAME = GameEntry(
    name="toy",
    title="Pig, a dice race (the tests' toy game)",
    game=ToyGame,
    rules=toy_rules,
    adapter=TOY_ADAPTER,
    rules_type=ToyRules,
    position=ToyPosition,
    move=ToyMove,
    record_format=RECORD_FORMAT,
    aliases=("pig",),
    observer=ToyObserver,
)
