"""Names of the kernel's built-in policies, read and checked in one place.

``"random"``: a uniformly random rack tile on a uniformly random legal pair of cells, a random way
round, the swap on a fair coin. ``"greedy"``: the placement maximising ``sum_c -(cap - s_c)^2``
after it, ties at random, swapping whenever allowed. ``"epsilon-greedy"`` (or
``"epsilon-greedy:0.2"``): a random move with probability epsilon, else greedy.

>>> parse_policy("epsilon-greedy:0.25")
('epsilon-greedy', 0.25)
>>> parse_policies("greedy", seats=2)
(('greedy', 'greedy'), (0.1, 0.1))
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import _core
from .errors import GenialError, excerpt

__all__ = ["DEFAULT_EPSILON", "POLICIES", "canonical", "parse_policies", "parse_policy"]

POLICIES = ("random", "greedy", "epsilon-greedy")
DEFAULT_EPSILON = 0.1
_MAX_NAME = 40


def _check_epsilon(epsilon: object, name: str) -> float:
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(
        epsilon, (int, float, np.integer, np.floating)
    ):
        raise GenialError(f"epsilon must be a number in [0, 1], got {excerpt(epsilon)}")
    try:
        e = float(epsilon)
    except OverflowError:
        raise GenialError(f"epsilon must be a number in [0, 1], got {excerpt(epsilon)}") from None
    if not (0.0 <= e <= 1.0) or math.isnan(e):
        raise GenialError(f"policy {excerpt(name)}: epsilon must be in [0, 1], got {e}")
    return e


def parse_policy(name: object, epsilon: float = DEFAULT_EPSILON) -> tuple[str, float]:
    """``(base name, epsilon)`` of a policy name; ``GenialError`` if it is not one."""
    if not isinstance(name, str) or len(name) > _MAX_NAME:
        raise GenialError(f"a policy is a name like 'greedy', got {excerpt(name)}")
    base, _, param = name.partition(":")
    if base not in POLICIES:
        raise GenialError(
            f"unknown policy {excerpt(name)}: expected one of {', '.join(POLICIES)} "
            "(epsilon-greedy takes a parameter: 'epsilon-greedy:0.2')"
        )
    if not param:
        return base, _check_epsilon(epsilon, name)
    if base != "epsilon-greedy":
        raise GenialError(f"policy {excerpt(name)}: only epsilon-greedy takes a parameter")
    try:
        value = float(param)
    except ValueError:
        raise GenialError(f"policy {excerpt(name)}: {excerpt(param)} is not a number") from None
    return base, _check_epsilon(value, name)


def canonical(base: str, epsilon: float) -> str:
    """The display name: ``'greedy'``, ``'epsilon-greedy:0.2'``."""
    return f"epsilon-greedy:{epsilon:g}" if base == "epsilon-greedy" else base


def parse_policies(
    policy: str | Sequence[str], seats: int, epsilon: float = DEFAULT_EPSILON
) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """One policy for every seat, or one per seat: ``(names, epsilons)`` per seat (names are
    base names; ``epsilons`` exact)."""
    if isinstance(policy, str):
        names: list[object] = [policy] * seats
    elif isinstance(policy, (list, tuple)):
        names = list(policy)
    else:
        raise GenialError(f"policy: a name or a sequence of names, got {excerpt(policy)}")
    if len(names) != seats:
        raise GenialError(
            f"policy: give one policy or one per seat ({seats}), got {len(names)}: {excerpt(names)}"
        )
    parsed = [parse_policy(name, epsilon) for name in names]
    return tuple(b for b, _ in parsed), tuple(e for _, e in parsed)


def kernel_codes(names: Sequence[str], epsilons: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's per-seat policy codes and epsilons (arrays of the kernel's seat count)."""
    codes = np.zeros(_core.MAX_PLAYERS, dtype=np.uint8)
    eps = np.zeros(_core.MAX_PLAYERS, dtype=np.float64)
    for seat, (name, e) in enumerate(zip(names, epsilons, strict=True)):
        codes[seat] = _core.POLICIES[name]
        eps[seat] = e
    return codes, eps
