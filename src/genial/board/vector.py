"""Many board games stepped together in the kernel, for reinforcement learning: ``VectorEnv``.

``VectorEnv(n_envs, rules, seed)`` holds ``n_envs`` games of the board game (RULES §3, §4). One
``step(actions)`` call applies one action per game from a numpy array, without the GIL, and
writes observations, legal-action masks, rewards and done flags into arrays made once and reused;
a finished game is scored and restarted in the same call ("same-step" autoreset).
``sample_actions()`` draws a uniformly random legal action per game in the kernel. The layout of
every array, the seeding scheme and the reward convention are in ``docs/vector.md``. The card
game's twin is ``genial.cards.vector.CardVectorEnv``.

>>> env = VectorEnv(4, rules=2, seed=1)
>>> obs, info = env.reset()
>>> sorted(obs)
['bag', 'board', 'bonus', 'phase', 'rack', 'rack_sizes', 'scores']
>>> obs["board"].shape, info["action_mask"].shape          # 6 colour planes x 91 cells
((4, 6, 91), (4, 1918))
>>> bool((env.unpack_masks().sum(axis=1) == info["legal_counts"]).all())
True
>>> finished = 0
>>> for _ in range(200):
...     obs, rewards, terminated, truncated, info = env.step(env.sample_actions())
...     finished += int(terminated.sum())
>>> finished > 0, rewards.shape
(True, (4, 2))
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .. import _core, _vector
from .._vecenv import MAX_ENVS as MAX_ENVS
from .._vecenv import BatchedEnv, IllegalActionError
from ..errors import GenialError, excerpt
from ..seeds import POLICY_STREAM
from .game import Game
from .geometry import Cell, area
from .moves import ACTION_KEEP, ACTION_SIZE, ACTION_SWAP, MOVES, tile_text
from .rules import Rules

__all__ = [
    "EDGES",
    "FACTORED_SIZE",
    "MASK_BYTES",
    "IllegalActionError",
    "VectorEnv",
    "unfactor_masks",
    "unpack_masks",
]

MASK_BYTES: int = _vector.MASK_SIZE
"""Bytes of a bit-packed mask: ``ceil(ACTION_SIZE / 8)`` (1,918). Action ``a`` is bit ``a % 8``
of byte ``a // 8`` (numpy's ``bitorder="little"``)."""
FACTORED_SIZE: int = _vector.FACTORED_SIZE
"""Words (``uint64``) of a factored mask, 8: the allowed edges (edge ``e`` is bit ``e % 64`` of
word ``e // 64``, words 0..6), then word 7: bit ``c0 * 6 + c1`` for each (colour, colour)
placement the rack allows, bit 36 swap and bit 37 keep (both set at the swap decision). Action
``e * 36 + c0 * 6 + c1`` is legal when its edge's bit and its pair's bit are both set."""
EDGES: int = ACTION_SWAP // 36
MaskMode = Literal["packed", "bool", "none", "factored"]
_STATE_BYTES = 2_800  # a game's kernel state and streams, about (for the memory check)
assert POLICY_STREAM == _vector.POLICY_KEY  # the samplers' key (docs/vector.md, "Seeds")


def unpack_masks(masks: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Bit-packed masks ``(..., MASK_BYTES)`` as bools ``(..., ACTION_SIZE)``.

    >>> packed = np.packbits(np.eye(3, ACTION_SIZE, dtype=bool), axis=-1, bitorder="little")
    >>> unpack_masks(packed).nonzero()[1].tolist()
    [0, 1, 2]
    """
    if not isinstance(masks, np.ndarray) or masks.dtype != np.uint8 or masks.ndim < 1:
        raise GenialError(f"masks: a uint8 array of packed masks, got {excerpt(masks)}")
    if masks.shape[-1] != MASK_BYTES:
        raise GenialError(f"masks: {MASK_BYTES} bytes a mask, got {masks.shape[-1]}")
    bits = np.unpackbits(masks, axis=-1, count=ACTION_SIZE, bitorder="little")
    return bits.view(np.bool_)


def unfactor_masks(masks: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
    """Factored masks ``(..., FACTORED_SIZE)`` as bools ``(..., ACTION_SIZE)``: edge ``e``'s 36
    actions are the pair bits where ``e``'s bit is set.

    >>> factored = np.zeros(FACTORED_SIZE, dtype=np.uint64)
    >>> factored[0] = 1 << 3                              # edge 3
    >>> factored[7] = (1 << (0 * 6 + 2)) | (1 << (2 * 6 + 0))   # RB, either way round
    >>> unfactor_masks(factored).nonzero()[0].tolist()
    [110, 120]
    """
    if not isinstance(masks, np.ndarray) or masks.dtype != np.uint64 or masks.ndim < 1:
        raise GenialError(f"masks: a uint64 array of factored masks, got {excerpt(masks)}")
    if masks.shape[-1] != FACTORED_SIZE:
        raise GenialError(f"masks: {FACTORED_SIZE} words a factored mask, got {masks.shape[-1]}")
    lead = masks.shape[:-1]
    words = FACTORED_SIZE - 1  # of edges; the last word holds the pairs, swap and keep
    shifts = np.arange(64, dtype=np.uint64)
    edges = ((masks[..., :words, None] >> shifts) & np.uint64(1)).astype(np.bool_)
    edges = edges.reshape((*lead, words * 64))[..., :EDGES]
    low = ((masks[..., words, None] >> shifts[:38]) & np.uint64(1)).astype(np.bool_)
    full = np.empty((*lead, ACTION_SIZE), dtype=np.bool_)
    full[..., :ACTION_SWAP] = (edges[..., :, None] & low[..., None, :36]).reshape(
        (*lead, ACTION_SWAP)
    )
    full[..., ACTION_SWAP:] = low[..., 36:]
    return full


_WHY = {
    "range": "it is not an action id (0..{last})",
    "decide-swap": (
        "seat {seat} must decide on the swap first (docs/rules.md §3.5): only ACTION_SWAP "
        f"({ACTION_SWAP}) or ACTION_KEEP ({ACTION_KEEP})"
    ),
    "not-decision": "seat {seat} must place a tile, there is no swap decision now",
    "outside": "a cell is outside the area",
    "covered": "a cell is already covered",
    "no-tile": "seat {seat} has no {tile} tile",
    "first-round": (
        "it is seat {seat}'s first placement, which must touch a printed symbol no earlier "
        "first placement touched (docs/rules.md §3.2; tournament rules §4.3: a symbol or a tile)"
    ),
    "over": "the game is over",
}


class VectorEnv(BatchedEnv[Rules, Game]):
    """``n_envs`` board games stepped together in the kernel (see ``docs/vector.md``).

    Parameters
    ----------
    n_envs : int
        Games stepped by each call (1 .. 2**24, as memory allows).
    rules : int, str or Rules
        The rules of every game: a player count (1 solo, 2, 3, 4), a token (``"2T"``, ``"4t"``)
        or a ``genial.Rules``.
    seed : anything ``numpy.random.default_rng`` accepts
        The root of every stream, ``root = genial.seeds.as_seed_sequence(seed)``: env ``i``'s
        ``k``-th game deals and draws its tiles exactly as
        ``Game(rules, seed=genial.seeds.child_seed(root, i, k))`` with the same moves, and env
        ``i``'s sampler draws from ``child_seed(root, 2**32, i)``.
    mask : "packed", "bool", "factored" or "none"
        The legal-action masks written at every step: bit-packed ``uint8 (n_envs, 1918)``
        (default; ``unpack_masks``), ``bool (n_envs, 15338)``, factored ``uint64 (n_envs, 8)``
        (the allowed edges and the rack's (colour, colour) placements, whose product is the
        mask: ``FACTORED_SIZE``, ``unfactor_masks``; the fastest to write), or none
        (``legal_counts`` and ``sample_actions`` still work).
    max_turns : int or None
        Truncate a game still running when its turn counter passes this (no reward).

    Every array returned (observations, masks, rewards, flags, info) is a read-only view of a
    buffer that the next ``reset``/``step`` overwrites: copy what you keep.
    """

    _kernel: _vector.Kernel
    _ACTION_SIZE = ACTION_SIZE
    _OBS = ("board", "rack", "scores", "rack_sizes", "phase", "bonus", "bag")
    _MASK_MODES = ("packed", "bool", "factored", "none")
    _MAX_TURNS = 32_766
    _rules_type = Rules
    _kernel_type = _vector.Kernel
    _game_type = Game
    _unpack = staticmethod(unpack_masks)

    def __init__(
        self,
        n_envs: int,
        rules: int | str | Rules = 2,
        seed: Any = None,
        *,
        mask: MaskMode = "packed",
        max_turns: int | None = None,
    ) -> None:
        super().__init__(n_envs, rules, seed, mask=mask, max_turns=max_turns)

    def _env_bytes(self, mask: MaskMode) -> int:
        sizes = {
            "none": 0,
            "packed": MASK_BYTES,
            "bool": ACTION_SIZE,
            "factored": 8 * FACTORED_SIZE,
        }
        return _STATE_BYTES + sizes[mask]

    def _unfactor(self, masks: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
        return unfactor_masks(masks)

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The cells of the board planes' columns: the area, row-major (``geometry.area``)."""
        return area(self._rules.radius)

    def _illegal(self, i: int, action: int) -> IllegalActionError:
        why = _core.ILLEGAL.get(self._kernel.reason(i, action), "unknown")
        core = self._kernel.core(i)
        move = MOVES[action] if 0 <= action < ACTION_SIZE else None
        tile = tile_text(move.tile) if move is not None and move.tile is not None else "?"
        text = _WHY.get(why, why).format(seat=core.current, tile=tile, last=ACTION_SIZE - 1)
        shown = f"action {action} ({move})" if move is not None else f"action {action}"
        return IllegalActionError(
            f"env {i}: {shown} is not legal: {text}; no env was changed", i, action
        )
