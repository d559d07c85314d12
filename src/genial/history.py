"""The old name of ``genial.base``: ``History`` is ``genial.base.GameBase``, the base class of
every game (old imports keep working).

>>> from genial.base import GameBase
>>> History is GameBase
True
"""

from __future__ import annotations

from .base import GameBase as History

__all__ = ["History"]
