"""Seeds and random streams: one place for how a seed becomes numpy bit generators.

Every entry point that takes a ``seed`` accepts what ``numpy.random.default_rng`` accepts: ``None``
(fresh entropy), an int or a sequence of ints, a ``SeedSequence``, a ``BitGenerator`` or a
``Generator``. A generator is used as a source of entropy: 128 bits are drawn from it, so passing
the same generator twice gives two different (and both reproducible) runs.

Streams are children of the root sequence (``child_seed``): chunk ``c`` of a batch, class ``i``
of an opening analysis, and a game's policy stream each get their own key, so results never
depend on the number of workers.

>>> root = as_seed_sequence(1)
>>> child_seed(root, 3).spawn_key
(3,)
>>> as_seed_sequence(np.random.default_rng(5)).entropy == as_seed_sequence(
...     np.random.default_rng(5)).entropy
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import GenialError, excerpt

__all__ = ["POLICY_STREAM", "as_seed_sequence", "child_seed", "copy_bit_generator", "stream"]

POLICY_STREAM = 2**32
"""Spawn key of a game's policy stream (its chance stream is the root itself)."""

_QUIET = np.random.SeedSequence(0)  # seeds throw-away generators without drawing OS entropy


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """The ``SeedSequence`` a seed stands for (see the module docstring)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.BitGenerator):
        seed = np.random.Generator(seed)
    if isinstance(seed, np.random.Generator):
        drawn = seed.integers(0, 2**32, size=4, dtype=np.uint64)
        return np.random.SeedSequence([int(w) for w in drawn])
    if seed is None:
        return np.random.SeedSequence()
    words: int | list[int] | None = _seed_words(seed)
    if words is None:
        raise GenialError(
            f"seed {excerpt(seed)}: pass None, an int in 0..2**128, a sequence of at most "
            f"{MAX_SEED_WORDS} such ints, a SeedSequence or a numpy Generator"
        )
    return np.random.SeedSequence(words)


MAX_SEED_WORDS = 64
"""Ints a seed sequence may hold (more would only slow every derived stream)."""


def _seed_words(seed: Any) -> int | list[int] | None:
    """The seed as an int or a flat list of ints in 0..2**128, or None if it is not one."""

    def word(v: Any) -> int | None:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            return None
        return int(v) if 0 <= v <= 2**128 else None

    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return word(seed)
    if isinstance(seed, np.ndarray):
        if seed.ndim != 1 or seed.dtype.kind not in "iu" or not 0 < len(seed) <= MAX_SEED_WORDS:
            return None
        seed = seed.tolist()
    if isinstance(seed, (list, tuple)) and 0 < len(seed) <= MAX_SEED_WORDS:
        words = [word(v) for v in seed]
        return None if None in words else [w for w in words if w is not None]
    return None


def child_seed(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The child of ``root`` at ``key`` (the same as ``root.spawn`` would give at that index,
    without spawning: any child can be made again on its own)."""
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size
    )


def stream(seed: np.random.SeedSequence) -> np.random.PCG64:
    """The bit generator of a seed sequence (PCG64, numpy's default)."""
    return np.random.PCG64(seed)


def copy_bit_generator(bit_generator: np.random.BitGenerator) -> np.random.PCG64:
    """An independent PCG64 in the same state (no OS entropy drawn)."""
    other = np.random.PCG64(_QUIET)
    other.state = bit_generator.state  # type: ignore[assignment]
    return other


def bit_generator_from_state(state: dict[str, Any]) -> np.random.PCG64:
    """A PCG64 set to ``state`` (as ``bit_generator.state`` gives it)."""
    other = np.random.PCG64(_QUIET)
    other.state = state  # type: ignore[assignment]
    return other
