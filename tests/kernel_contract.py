"""Checks every game's kernel passes (``genial._core``, ``genial.cards._kernel``): the parts of
``run_chunk`` that the batch layers and the analyses rely on, written once for both games."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def streams() -> tuple[np.random.PCG64, np.random.PCG64]:
    """The chance and policy streams of these checks (fixed seeds)."""
    return np.random.PCG64(3), np.random.PCG64(4)


def check_forced_each(
    kernel: Any, base: Any, seat: int, codes: Any, eps: Any, actions: list[int]
) -> npt.NDArray[Any]:
    """``run_chunk(forced_each=...)``, determinised for ``seat`` (the seat to move): one call
    whose game ``g`` forces ``forced_each[g]`` plays the games of one call per run of equal
    actions on the same two streams. Returns the rows of that call (5, 1 and 7 games of
    ``actions[0]``, ``[1]`` and ``[2]``), for the game's own checks."""
    seats = np.array([seat], dtype=np.int16)
    counts = [5, 1, 7]
    each = np.repeat(np.array(actions[:3], dtype=np.int16), counts)
    one = np.zeros(len(each), dtype=kernel.ROW_DTYPE)
    chance, policy = streams()
    kernel.run_chunk(
        base, chance, policy, False, codes, eps, one, None, seats, each[:1],
        view_seat=seat, forced_each=each,
    )  # fmt: skip
    apart = np.zeros(len(each), dtype=kernel.ROW_DTYPE)
    chance, policy = streams()
    at = 0
    for action, n in zip(actions[:3], counts, strict=True):
        kernel.run_chunk(
            base, chance, policy, False, codes, eps, apart[at : at + n], None, seats,
            np.array([action], dtype=np.int16), view_seat=seat,
        )  # fmt: skip
        at += n
    assert one.tobytes() == apart.tobytes()
    assert len({row.tobytes() for row in one}) > 1  # real, different games
    return one
