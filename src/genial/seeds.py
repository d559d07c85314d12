"""Seeds and random streams: one place for how a seed becomes numpy bit generators.

Every entry point that takes a ``seed`` accepts what ``numpy.random.default_rng`` accepts: ``None``
(fresh entropy), an int ``>= 0`` or a sequence of them (a list, a tuple, a range or an integer
array, nested too: ``[[1, 2], [3]]`` is ``[1, 2, 3]``, as numpy flattens it), a
``SeedSequence``, a ``BitGenerator`` or a ``Generator``; an int or ints seed exactly as
``SeedSequence(seed)`` does. Their entropy may hold up to ``MAX_SEED_BITS`` (8,192) bits, counted
as numpy counts it, in 32-bit words (an int takes one word per 32 bits, at least one): an int
below ``2**8192``, or ints of 256 words in all (256 ints below ``2**32``, 64 below ``2**128``...).
More is refused: numpy hashes every word again for each stream derived from a seed (each chunk
of a batch, each game), and converts a big int in quadratic time. Bools are not seeds, though
numpy takes them (``seed=True`` is almost surely a mistake), nor strings of digits. A
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

import itertools
import operator
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import GenialError, excerpt

__all__ = [
    "MAX_SEED_BITS",
    "POLICY_STREAM",
    "as_seed_sequence", "child_seed", "copy_bit_generator", "seed_prefix", "seed_words", "stream"]

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
    if isinstance(seed, (bool, np.bool_)):
        raise GenialError(
            f"seed {excerpt(seed)}: a bool is not a seed (almost surely a mistake): pass an int"
        )
    words = seed_words(seed)
    if words is None:
        raise GenialError(
            f"seed {excerpt(seed)}: pass None, an int in 0..2**{MAX_SEED_BITS}-1, a sequence "
            f"(nested too) of ints >= 0 of at most {_MAX_WORDS} 32-bit words in all (no bools), "
            "a SeedSequence or a numpy Generator"
        )
    return np.random.SeedSequence(words)


def _words(value: int) -> int:
    """The 32-bit words numpy splits an int ``>= 0`` into."""
    return max(1, -(-value.bit_length() // 32))


_MAX_ITEMS = 4 * _MAX_WORDS
"""The most ints and sequences a nested seed may hold in all (empty sequences hold no word)."""

_END: Any = object()


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def seed_words(seed: Any) -> int | list[int] | None:
    """The seed as an int, or a flat list of ints, ``>= 0`` and of at most ``_MAX_WORDS`` words
    in all; None if it is not one. A sequence (a list, a tuple, a range or an integer array of
    any shape, nested to any depth) gives its ints in order, flattened as ``SeedSequence`` does
    (so ``SeedSequence(seed_words(s))`` draws what ``SeedSequence(s)`` does). Bools, strings
    and floats are not seeds, nor are the arrays numpy itself cannot use (0-d, a ``uint32``
    array of more than one dimension). Linear in the size of the seed, whatever it is: every
    sequence's length is checked before it is read, and every int's ``bit_length``."""
    if _is_int(seed):
        value = int(seed)
        return value if value >= 0 and _words(value) <= _MAX_WORDS else None
    if not isinstance(seed, (list, tuple, range, np.ndarray)):
        return None
    out: list[int] = []
    words = 0
    budget = _MAX_ITEMS
    stack: list[Iterator[Any]] = [iter((seed,))]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
            continue
        budget -= 1
        if budget < 0:
            return None
        if _is_int(item):
            value = int(item)
            if value < 0:
                return None
            words += _words(value)
            if words > _MAX_WORDS:
                return None
            out.append(value)
            continue
        if isinstance(item, np.ndarray):
            if (
                item.ndim == 0
                or item.dtype.kind not in "iuO"
                or (item.dtype == np.uint32 and item.ndim > 1)  # numpy fails to concatenate it
                or item.size > budget
                or max(itertools.accumulate(item.shape, operator.mul)) > budget  # its lists
            ):
                return None
            item = item.tolist()
        elif isinstance(item, range):
            try:
                size = len(item)
            except OverflowError:  # more than sys.maxsize ints
                return None
            if size > budget:
                return None
        elif not isinstance(item, (list, tuple)) or len(item) > budget:
            return None  # a bool, a str, a float, anything else
        stack.append(iter(item))
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


# -- the words of a root that precede a child's own key words (the kernels seed from them) ------


def _int_words(value: int) -> list[int]:
    """SeedSequence's 32-bit words of a non-negative int (lowest first; 0 is [0])."""
    if value < 0:
        raise GenialError(f"seed entropy must be non-negative, got {excerpt(value)}")
    words = [value & 0xFFFFFFFF]
    value >>= 32
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return words


def _entropy_words(x: Any) -> list[int]:
    """The uint32 words numpy's SeedSequence makes of an entropy or spawn key value."""
    if isinstance(x, np.ndarray) and x.dtype == np.uint32:
        return [int(w) for w in x.reshape(-1)]
    if isinstance(x, str):
        x = int(x, 16) if x.startswith("0x") else int(x)
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return _int_words(int(x))
    if isinstance(x, (Sequence, np.ndarray)):
        return [w for v in x for w in _entropy_words(v)]
    raise GenialError(f"cannot read seed entropy {excerpt(x)}")


def seed_prefix(root: np.random.SeedSequence) -> npt.NDArray[np.uint32]:
    """The words of ``root``'s assembled entropy that precede a child's own key words: what a
    kernel seeds ``PCG64(child_seed(root, x, y))`` from without the GIL (``genial._pcg``).

    >>> seed_prefix(np.random.SeedSequence(1)).tolist()  # entropy padded to the pool, no key
    [1, 0, 0, 0]
    >>> _int_words(2**32 + 5)
    [5, 1]
    """
    run = _entropy_words(root.entropy)
    run += [0] * (root.pool_size - len(run))  # a child always has a spawn key: padded
    return np.array(run + _entropy_words(list(root.spawn_key)), dtype=np.uint32)
