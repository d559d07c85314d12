"""Many card games stepped together in the kernel, for reinforcement learning: ``CardVectorEnv``.

``CardVectorEnv(n_envs, rules, seed)`` is the card-game twin of ``genial.vector.VectorEnv``: it
holds ``n_envs`` games of *Einfach Genial: Das Kartenspiel* (RULES §5), and one
``step(actions)`` call applies one action per game from a numpy array, without the GIL, writing
observations, legal-action masks, rewards and done flags into arrays made once and reused; a
finished game is scored and restarted in the same call ("same-step" autoreset).
``sample_actions()`` draws a uniformly random legal action per game in the kernel. Env ``i``'s
``k``-th game is ``CardGame(rules, seed=child_seed(root, i, k))`` played with the same actions.
The layout of every array is in ``docs/vector.md`` ("Card game").

>>> env = CardVectorEnv(4, rules=3, seed=1)
>>> obs, info = env.reset()
>>> sorted(obs)
['bonus', 'deck_size', 'discard_size', 'display_colours', 'displays', 'hand', 'hand_sizes', \
'markers', 'phase', 'turn']
>>> obs["hand"].shape, obs["markers"].shape, info["action_mask"].shape
((4, 15), (4, 3, 6), (4, 32))
>>> bool((info["action_mask"].sum(axis=1) == info["legal_counts"]).all())
True
>>> finished = 0
>>> for _ in range(300):
...     obs, rewards, terminated, truncated, info = env.step(env.sample_actions())
...     finished += int(terminated.sum())
>>> finished > 0, rewards.shape
(True, (4, 3))
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._vecenv import MAX_ENVS as MAX_ENVS
from .._vecenv import BatchedEnv, IllegalActionError
from ..errors import GenialError, IllegalMoveError, excerpt
from ..seeds import POLICY_STREAM
from . import _vector
from .game import CardGame
from .moves import ACTION_SIZE, MOVES
from .rules import MAX_TURN_CAP, CardRules

__all__ = ["EMPTY_SLOT", "CardVectorEnv", "IllegalActionError", "unpack_masks"]

EMPTY_SLOT: int = _vector.EMPTY_SLOT
"""The value of an empty slot of ``obs["displays"]`` (255; no decision after a deal shows one)."""
MaskMode = Literal["bool", "packed", "none"]
_ENV_BYTES: int = _vector.ENV_BYTES + 200  # a game's state and streams, and its outputs (about)
_BITS = np.arange(ACTION_SIZE, dtype=np.uint32)
assert POLICY_STREAM == _vector.POLICY_KEY  # the samplers' key (docs/vector.md, "Seeds")


def unpack_masks(masks: npt.NDArray[np.uint32]) -> npt.NDArray[np.bool_]:
    """Packed masks ``uint32 (...)`` (bit ``a`` set when action ``a`` is legal) as bools
    ``(..., 32)``.

    >>> unpack_masks(np.array([0b101, 3 << 30], dtype=np.uint32)).nonzero()[1].tolist()
    [0, 2, 30, 31]
    """
    if not isinstance(masks, np.ndarray) or masks.dtype != np.uint32:
        raise GenialError(f"masks: a uint32 array of packed masks, got {excerpt(masks)}")
    bits: npt.NDArray[np.bool_] = ((masks[..., None] >> _BITS) & 1).astype(np.bool_)
    return bits


class CardVectorEnv(BatchedEnv[CardRules, CardGame]):
    """``n_envs`` card games stepped together in the kernel (``docs/vector.md``, "Card game").

    Parameters
    ----------
    n_envs : int
        Games stepped by each call (1 .. 2**24, as memory allows).
    rules : int, str or CardRules
        The rules of every game: a player count (2, 3, 4), a token (``"c3"``, ``"c2:50"``) or
        a ``genial.cards.CardRules``; its turn cap (default 1,000) truncates a game as
        ``CardGame`` does (RULES §5.7 Decision).
    seed : anything ``numpy.random.default_rng`` accepts
        The root of every stream, ``root = genial.seeds.as_seed_sequence(seed)``: env ``i``'s
        ``k``-th game deals and draws its cards exactly as
        ``CardGame(rules, seed=genial.seeds.child_seed(root, i, k))`` with the same moves, and
        env ``i``'s sampler draws from ``child_seed(root, 2**32, i)``.
    mask : "bool", "packed" or "none"
        The legal-action masks written at every step: ``bool (n_envs, 32)`` (default), one
        ``uint32`` per env with bit ``a`` set when action ``a`` is legal (``unpack_masks``), or
        none (``legal_counts`` and ``sample_actions`` still work).
    max_turns : int or None
        Also truncate a game still running when its turn counter passes this (no reward).

    Every array returned (observations, masks, rewards, flags, info) is a read-only view of a
    buffer that the next ``reset``/``step`` overwrites: copy what you keep.
    """

    _kernel: _vector.Kernel
    _ACTION_SIZE = ACTION_SIZE
    _OBS = (
        "hand",
        "hand_sizes",
        "displays",
        "display_colours",
        "markers",
        "deck_size",
        "discard_size",
        "phase",
        "bonus",
        "turn",
    )
    _MASK_MODES = ("bool", "packed", "none")
    _MAX_TURNS = MAX_TURN_CAP
    _rules_type = CardRules
    _kernel_type = _vector.Kernel
    _game_type = CardGame
    _unpack = staticmethod(unpack_masks)

    def __init__(
        self,
        n_envs: int,
        rules: int | str | CardRules = 3,
        seed: Any = None,
        *,
        mask: MaskMode = "bool",
        max_turns: int | None = None,
    ) -> None:
        super().__init__(n_envs, rules, seed, mask=mask, max_turns=max_turns)

    def _env_bytes(self, mask: str) -> int:
        return _ENV_BYTES

    def sample_actions(self, out: npt.NDArray[np.int32] | None = None) -> npt.NDArray[np.int32]:
        """A uniformly random legal action per env (uniform over the legal action ids: a card
        type of the hand and an order; swap or keep on a fair coin), drawn in the kernel from
        each env's sampler stream. Written into ``out`` (an int32 array of ``n_envs``), or into
        a buffer of the env that the next call overwrites."""
        return super().sample_actions(out)

    def _illegal(self, i: int, action: int) -> IllegalActionError:
        """The error for ``action`` in env ``i``, saying why as ``CardGame.play`` does."""
        if not 0 <= action < ACTION_SIZE:
            return IllegalActionError(
                f"env {i}: action {action} is not legal: it is not an action id "
                f"(0..{ACTION_SIZE - 1}); no env was changed",
                i,
                action,
            )
        move = MOVES[action]
        game = self._game(i)
        try:
            game._check_legal(move)
            why = "the kernel refused it"  # pragma: no cover - the kernel and CardGame agree
        except IllegalMoveError as exc:
            why = str(exc)
        return IllegalActionError(
            f"env {i}: action {action} ({move}) is not legal: {why}; no env was changed",
            i,
            action,
        )
