"""What the integrations share: the rewards of a finished game from its ranking."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import GenialError

__all__ = ["ranking_rewards"]


def ranking_rewards(ranks: Sequence[int]) -> list[float]:
    """The rewards of a finished game with ``n >= 2`` sides ranked ``ranks`` (0 = best, ties
    equal): each side gets ``(sides ranked below it - sides ranked above it) / (n - 1)``.

    A sole winner gets +1 and a sole loser -1; tied sides get the same reward; the rewards sum to
    0. Two players: +1 / -1, a tie 0 / 0.

    >>> ranking_rewards([0, 1])
    [1.0, -1.0]
    >>> ranking_rewards([0, 1, 1])        # second place shared
    [1.0, -0.5, -0.5]
    >>> ranking_rewards([1, 0, 2, 3])
    [0.3333333333333333, 1.0, -0.3333333333333333, -1.0]
    """
    r = [int(v) for v in ranks]
    n = len(r)
    if n < 2:
        raise GenialError(f"a ranking reward needs two or more sides, got {n}")
    return [(sum(o > v for o in r) - sum(o < v for o in r)) / (n - 1) for v in r]
