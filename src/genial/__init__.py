"""genial: a fast, correct simulator of Reiner Knizia's *Ingenious* (*Einfach Genial*).

The board game is ``Game`` (the package ``genial.board``); the card game is ``genial.cards``;
batches are ``simulate``; every game is in the registry (``games()``, ``make(name, ...)``). The
rules it implements are in ``docs/rules.md``. ``import genial`` is cheap: each name and
submodule (``genial.openings``, ``genial.cards``, ``genial.vector``, ...) is imported the first
time it is asked for.

>>> import genial
>>> game = genial.Game(players=3, seed=42)
>>> game.players, len(game.legal_moves()) > 0
(3, True)
>>> genial.games()
('board', 'cards')
>>> genial.openings.analyse is genial.board.openings.analyse
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:  # pragma: no cover  (what __getattr__ gives, for type checkers)
    from . import analysis as analysis
    from . import batch as batch
    from . import board as board
    from . import cards as cards
    from .analysis import Evaluation as Evaluation
    from .analysis import evaluate as evaluate
    from .arena import ArenaResult as ArenaResult
    from .arena import arena as arena
    from .batch import BatchSpec as BatchSpec
    from .batch import Playouts as Playouts
    from .batch import Summary as Summary
    from .batch import simulate as simulate
    from .board import openings as openings
    from .board import vector as vector
    from .board.game import Game as Game
    from .board.geometry import COLOURS as COLOURS
    from .board.geometry import EDGES as EDGES
    from .board.geometry import SYMBOLS as SYMBOLS
    from .board.moves import ACTION_SIZE as ACTION_SIZE
    from .board.moves import Move as Move
    from .board.notation import Position as Position
    from .board.rules import Rules as Rules
    from .cards.matches import MatchResult as MatchResult
    from .cards.matches import match as match
    from .errors import GenialError as GenialError
    from .errors import IllegalMoveError as IllegalMoveError
    from .errors import PositionError as PositionError
    from .errors import RecordError as RecordError
    from .errors import RulesError as RulesError
    from .registry import games as games
    from .registry import make as make
    from .stats import wilson_interval as wilson_interval

# name -> (module, attribute or None for the module itself), relative to this package
_LAZY: dict[str, tuple[str, str | None]] = {
    "ACTION_SIZE": (".board.moves", "ACTION_SIZE"),
    "COLOURS": (".board.geometry", "COLOURS"),
    "EDGES": (".board.geometry", "EDGES"),
    "SYMBOLS": (".board.geometry", "SYMBOLS"),
    "ArenaResult": (".arena", "ArenaResult"),
    "BatchSpec": (".batch", "BatchSpec"),
    "Evaluation": (".analysis", "Evaluation"),
    "Game": (".board.game", "Game"),
    "GenialError": (".errors", "GenialError"),
    "IllegalMoveError": (".errors", "IllegalMoveError"),
    "MatchResult": (".cards.matches", "MatchResult"),
    "Move": (".board.moves", "Move"),
    "Playouts": (".batch", "Playouts"),
    "Position": (".board.notation", "Position"),
    "PositionError": (".errors", "PositionError"),
    "RecordError": (".errors", "RecordError"),
    "Rules": (".board.rules", "Rules"),
    "RulesError": (".errors", "RulesError"),
    "Summary": (".batch", "Summary"),
    "arena": (".arena", "arena"),
    "evaluate": (".analysis", "evaluate"),
    "games": (".registry", "games"),
    "make": (".registry", "make"),
    "match": (".cards.matches", "match"),
    "simulate": (".batch", "simulate"),
    "wilson_interval": (".stats", "wilson_interval"),
}

# modules that moved into a game's package, under their old names (old imports and old pickles
# keep working: ``genial.game`` is the very module ``genial.board.game``)
_MOVED = {
    "game": "board.game",
    "moves": "board.moves",
    "notation": "board.notation",
    "rules": "board.rules",
    "geometry": "board.geometry",
    "adapter": "board.adapter",
    "openings": "board.openings",
    "vector": "board.vector",
    "matches": "cards.matches",
}

_SUBMODULES = frozenset(
    {
        "analysis",
        "arena",
        "batch",
        "board",
        "cards",
        "cli",
        "errors",
        "integrations",
        "policies",
        "records",
        "registry",
        "render",
        "seeds",
        "stats",
    }
)

__all__ = ["__version__", *sorted(_LAZY)]


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``genial.game`` and the other moved modules as the modules they became."""

    def __init__(self) -> None:
        self._specs: dict[str, Any] = {}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        prefix, _, name = fullname.partition(".")
        if prefix != __name__ or name not in _MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(f"{__name__}.{_MOVED[spec.name.partition('.')[2]]}")
        self._specs[spec.name] = module.__spec__  # the import machinery sets __spec__ anew
        return module

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        if spec is not None:
            module.__spec__ = self._specs.pop(spec.name, spec)


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str) -> Any:
    """The names and submodules of ``genial``, imported when first asked for (PEP 562)."""
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module, __name__), attribute or name)
    elif name in _SUBMODULES or name in _MOVED:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES, *_MOVED})


class _Package(ModuleType):
    """``genial`` itself: a submodule named like one of the package's functions (``arena``) is
    kept out of that name. The import system sets ``genial.arena`` to the module whenever
    ``genial.arena`` is imported; the function stays the name, whichever comes first, and the
    module stays ``sys.modules["genial.arena"]`` (where ``from genial.arena import ...`` finds
    it)."""

    def __setattr__(self, name: str, value: Any) -> None:
        lazy = _LAZY.get(name)
        if (
            lazy is not None
            and isinstance(value, ModuleType)
            and value.__name__ == f"{__name__}{lazy[0]}"
            and (lazy[1] or name) == name
        ):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
