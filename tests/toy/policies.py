"""The toy game's policies, under the library's names (``genial.policies``): ``"random"``
(uniform among the legal moves), ``"greedy"`` (roll until the turn total reaches
``GREEDY_HOLD`` or would win, then hold) and ``"epsilon-greedy"`` (random with probability
epsilon, else greedy).

>>> from .position import ToyPosition
>>> from .rules import ToyRules
>>> from .moves import MOVES
>>> p = ToyPosition.parse("pig2 | 25 3 | seat 0 | total 5 | move 9")
>>> str(choose(p, list(MOVES), "greedy", 0.1, np.random.default_rng(0)))
'hold'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from genial.errors import GenialError, excerpt

from .moves import HOLD, ROLL, ToyMove

if TYPE_CHECKING:  # pragma: no cover
    from .position import ToyPosition

__all__ = ["GREEDY_HOLD", "choose"]

GREEDY_HOLD = 10
"""The turn total at which greedy holds."""


def _greedy(position: ToyPosition, legal: list[ToyMove]) -> ToyMove:
    banked = position.scores[position.current] + position.total
    if HOLD in legal and (position.total >= GREEDY_HOLD or banked >= position.rules.target):
        return HOLD
    return ROLL


def choose(
    position: ToyPosition,
    legal: list[ToyMove],
    policy: str,
    epsilon: float,
    rng: np.random.Generator,
) -> ToyMove:
    """The move ``policy`` picks among ``legal`` (not empty), its draws from ``rng``."""
    if policy == "random" or (policy == "epsilon-greedy" and rng.random() < epsilon):
        return legal[int(rng.integers(len(legal)))]
    if policy in ("greedy", "epsilon-greedy"):
        return _greedy(position, legal)
    raise GenialError(
        f"the toy game's policies are random, greedy, epsilon-greedy: {excerpt(policy)}"
    )
