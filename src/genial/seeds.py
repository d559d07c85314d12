"""Seeds and random streams: one place for how a seed becomes numpy bit generators.

Every entry point that takes a ``seed`` accepts what ``numpy.random.default_rng`` accepts: ``None``
(fresh entropy), an int ``>= 0`` or a sequence of them (a list, a tuple or a 1-d integer array),
a ``SeedSequence``, a ``BitGenerator`` or a ``Generator``; an int or ints seed exactly as
``SeedSequence(seed)`` does. Their entropy may hold up to ``MAX_SEED_BITS`` (8,192) bits, counted
as numpy counts it, in 32-bit words (an int takes one word per 32 bits, at least one): an int
below ``2**8192``, or ints of 256 words in all (256 ints below ``2**32``, 64 below ``2**128``...).
More is refused: numpy hashes every word again for each stream derived from a seed (each chunk
of a batch, each game), and converts a big int in quadratic time. Bools are not seeds. A
generator is used as a source of entropy: 128 bits are drawn from it, so passing the same
generator twice gives two different (and both reproducible) runs.

Streams are children of the root sequence (``child_seed``): chunk ``c`` of a batch, class ``i``
of an opening analysis, and a game's policy stream each get their own key, so results never
depend on the number of workers.

>>> root = as_seed_sequence(1)
>>> child_seed(root, 3).spawn_key
(3,)
>>> as_seed_sequence(np.random.default_rng(5)).entropy == as_seed_sequence(
...     np.random.default_rng(5)).entropy
True
>>> as_seed_sequence(2**200).entropy == 2**200
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import GenialError, excerpt

__all__ = [
    "MAX_SEED_BITS",
    "POLICY_STREAM",
    "as_seed_sequence", "child_seed", "copy_bit_generator", "seed_words", "stream"]

POLICY_STREAM = 2**32
"""Spawn key of a game's policy stream (its chance stream is the root itself)."""

_QUIET = np.random.SeedSequence(0)  # seeds throw-away generators without drawing OS entropy


MAX_SEED_BITS = 8192
"""The most entropy a seed may hold, in numpy's 32-bit words: ``MAX_SEED_BITS // 32`` (256) of
them (an int takes one word per 32 bits, at least one). About 0.4 ms a derived stream at the
limit (10 us for a 128-bit seed); a 10**6-digit int would take minutes."""
_MAX_WORDS = MAX_SEED_BITS // 32


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """The ``SeedSequence`` a seed stands for (see the module docstring)."""
    if isinstance(seed, np.random.SeedSequence):
        if seed_words(seed.entropy) is None:
            raise GenialError(
                f"seed: a SeedSequence of entropy {excerpt(seed.entropy)}: a seed's entropy is "
                f"ints >= 0 of at most {_MAX_WORDS} 32-bit words ({MAX_SEED_BITS} bits) in all"
            )
        return seed
    if isinstance(seed, np.random.BitGenerator):
        seed = np.random.Generator(seed)
    if isinstance(seed, np.random.Generator):
        drawn = seed.integers(0, 2**32, size=4, dtype=np.uint64)
        return np.random.SeedSequence([int(w) for w in drawn])
    if seed is None:
        return np.random.SeedSequence()
    words = seed_words(seed)
    if words is None:
        raise GenialError(
            f"seed {excerpt(seed)}: pass None, an int in 0..2**{MAX_SEED_BITS}-1, a sequence of "
            f"ints >= 0 of at most {_MAX_WORDS} 32-bit words in all, a SeedSequence or a numpy "
            "Generator"
        )
    return np.random.SeedSequence(words)


def _words(value: int) -> int:
    """The 32-bit words numpy splits an int ``>= 0`` into."""
    return max(1, -(-value.bit_length() // 32))


def seed_words(seed: Any) -> int | list[int] | None:
    """The seed as an int, or a flat list of ints, ``>= 0`` and of at most ``_MAX_WORDS`` words
    in all; None if it is not one. Linear in the size of the seed, whatever it is."""

    def word(v: Any) -> int | None:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            return None
        v = int(v)
        return v if v >= 0 else None

    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        single = word(seed)
        return single if single is not None and _words(single) <= _MAX_WORDS else None
    if isinstance(seed, np.ndarray):
        if seed.ndim != 1 or seed.dtype.kind not in "iu" or len(seed) > _MAX_WORDS:
            return None
        seed = seed.tolist()
    if not isinstance(seed, (list, tuple)) or len(seed) > _MAX_WORDS:
        return None
    out: list[int] = []
    total = 0
    for v in seed:
        w = word(v)
        if w is None:
            return None
        total += _words(w)
        if total > _MAX_WORDS:
            return None
        out.append(w)
    return out


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
