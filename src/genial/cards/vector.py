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

import os
import pickle
import threading
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, IllegalMoveError, checked_int, excerpt
from ..seeds import POLICY_STREAM, as_seed_sequence, child_seed
from . import _vector
from .game import CardGame
from .moves import ACTION_SIZE, MOVES
from .notation import read
from .rules import MAX_TURN_CAP, CardRules

__all__ = ["EMPTY_SLOT", "CardVectorEnv", "IllegalActionError", "unpack_masks"]

EMPTY_SLOT: int = _vector.EMPTY_SLOT
"""The value of an empty slot of ``obs["displays"]`` (255; no decision after a deal shows one)."""
MAX_ENVS = 2**24
MaskMode = Literal["bool", "packed", "none"]
_MODES: dict[str, int] = {"none": 0, "packed": 1, "bool": 2}
_ENV_BYTES: int = _vector.ENV_BYTES + 200  # a game's state and streams, and its outputs (about)
_BITS = np.arange(ACTION_SIZE, dtype=np.uint32)
assert POLICY_STREAM == _vector.POLICY_KEY  # the samplers' key (docs/vector.md, "Seeds")


class IllegalActionError(IllegalMoveError):
    """An action that is not legal in its environment: ``env`` is its index, ``action`` the
    action. No environment was changed."""

    def __init__(self, message: str, env: int = -1, action: int = -1) -> None:
        super().__init__(message)
        self.env = env
        self.action = action


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


# -- seeds: the words of a root that precede a child's own key words ----------------------------
# (the same computation as genial.vector's, which this layer may not import)


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


def _seed_prefix(root: np.random.SeedSequence) -> npt.NDArray[np.uint32]:
    run = _entropy_words(root.entropy)
    run += [0] * (root.pool_size - len(run))  # a child always has a spawn key: padded
    return np.array(run + _entropy_words(list(root.spawn_key)), dtype=np.uint32)


def _root_of(seed: Any) -> np.random.SeedSequence:
    root = as_seed_sequence(seed)
    if not 4 <= root.pool_size <= 64:
        raise GenialError(f"seed: a SeedSequence pool_size of 4..64, got {root.pool_size}")
    return root


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    view: npt.NDArray[Any] = array.view()
    view.flags.writeable = False
    return view


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


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
_INFO = ("current_player", "legal_counts", "episode", "final_scores", "final_ranks")


class CardVectorEnv:
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

    def __init__(
        self,
        n_envs: int,
        rules: int | str | CardRules = 3,
        seed: Any = None,
        *,
        mask: MaskMode = "bool",
        max_turns: int | None = None,
    ) -> None:
        n = checked_int(n_envs, "n_envs", 1, MAX_ENVS)
        game_rules = CardRules.of(rules)
        if not isinstance(mask, str) or mask not in _MODES:
            raise GenialError(f"mask must be 'bool', 'packed' or 'none', got {excerpt(mask)}")
        turns = 0 if max_turns is None else checked_int(max_turns, "max_turns", 1, MAX_TURN_CAP)
        limit = _physical_memory()
        if limit is not None and n * _ENV_BYTES > limit // 2:
            raise GenialError(
                f"{n:,} environments need about {n * _ENV_BYTES / 2**30:,.1f} GiB, more than "
                f"half of this machine's {limit / 2**30:,.1f} GiB: use fewer"
            )
        self._rules = game_rules
        self._mask: MaskMode = mask
        self._max_turns = max_turns if max_turns is None else turns
        self._root = _root_of(seed)
        self._kernel = _vector.Kernel(game_rules.core(), n, _MODES[mask], turns)
        self._lock = threading.Lock()
        self._started = False
        self._actions = np.zeros(n, dtype=np.int32)
        arrays = self._kernel.arrays
        self._obs = {name: _read_only(arrays[name]) for name in _OBS}
        self._info = {name: _read_only(arrays[name]) for name in _INFO}
        self._masks: npt.NDArray[Any] | None = None
        if mask != "none":
            self._masks = _read_only(arrays["masks"])
            self._info["action_mask"] = self._masks
        self._rewards: npt.NDArray[np.float32] = _read_only(arrays["rewards"])
        self._terminated: npt.NDArray[np.bool_] = _read_only(arrays["terminated"])
        self._truncated: npt.NDArray[np.bool_] = _read_only(arrays["truncated"])

    # -- what it is ------------------------------------------------------------------------------
    @property
    def n_envs(self) -> int:
        return int(self._actions.shape[0])

    def __len__(self) -> int:
        return self.n_envs

    @property
    def rules(self) -> CardRules:
        return self._rules

    @property
    def players(self) -> int:
        return self._rules.players

    @property
    def mask_mode(self) -> MaskMode:
        return self._mask

    @property
    def max_turns(self) -> int | None:
        return self._max_turns

    @property
    def seed_sequence(self) -> np.random.SeedSequence:
        """The root of every stream (log ``seed_sequence.entropy`` to rerun an unseeded env)."""
        return self._root

    def __repr__(self) -> str:
        return (
            f"CardVectorEnv({self.n_envs}, rules={str(self._rules)!r}, mask={self._mask!r}, "
            f"max_turns={self._max_turns})"
        )

    # -- the buffers -----------------------------------------------------------------------------
    @property
    def observations(self) -> dict[str, npt.NDArray[Any]]:
        """The observation arrays of the player to move (read-only views; docs/vector.md)."""
        return dict(self._obs)

    @property
    def info(self) -> dict[str, npt.NDArray[Any]]:
        return dict(self._info)

    @property
    def masks(self) -> npt.NDArray[Any] | None:
        """The legal-action masks: ``bool (n_envs, 32)``, ``uint32 (n_envs,)`` packed, or None
        when made with ``mask="none"``."""
        return self._masks

    @property
    def legal_counts(self) -> npt.NDArray[np.int32]:
        """Legal actions per env."""
        return self._info["legal_counts"]

    @property
    def current_player(self) -> npt.NDArray[np.int8]:
        """The seat to move per env."""
        return self._info["current_player"]

    @property
    def episode(self) -> npt.NDArray[np.uint64]:
        """The index of each env's current game since the last seeding."""
        return self._info["episode"]

    def unpack_masks(self) -> npt.NDArray[np.bool_]:
        """The current masks as a new bool array ``(n_envs, 32)``."""
        if self._masks is None:
            raise GenialError("this CardVectorEnv writes no masks (mask='none')")
        if self._mask == "bool":
            full: npt.NDArray[np.bool_] = self._masks.copy()
            return full
        return unpack_masks(self._masks)

    # -- playing ---------------------------------------------------------------------------------
    def reset(
        self, seed: Any = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, npt.NDArray[Any]]]:
        """Start a new game in every env; return ``(observations, info)``.

        With a ``seed``, every stream is rooted there again and the games are episode 0; without
        one, the first call starts episode 0 of the constructor's seed and later calls start
        each env's next episode.
        """
        with self._lock:
            if seed is not None:
                self._root = _root_of(seed)
                self._seed()
                self._kernel.start(True)
            elif not self._started:
                self._seed()
                self._kernel.start(True)
            else:
                self._kernel.start(False)
            self._started = True
            return dict(self._obs), dict(self._info)

    def _seed(self) -> None:
        root = self._root
        self._kernel.seed(_seed_prefix(root), root.pool_size)
        # the kernel recomputes numpy's SeedSequence: check one child against numpy's own
        if self._kernel.pool(0, 0) != child_seed(root, 0, 0).pool.tolist():  # pragma: no cover
            raise RuntimeError("the vector kernel's seeding disagrees with numpy's SeedSequence")

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        dict[str, npt.NDArray[Any]],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, npt.NDArray[Any]],
    ]:
        """Play ``actions[i]`` in env ``i`` for every env; return ``(observations, rewards,
        terminated, truncated, info)``.

        ``rewards`` is ``float32 (n_envs, players)``, by absolute seat, nonzero only where a game
        ended this step. A finished env is restarted at once: its observations are already the
        new game's, and ``info["final_scores"]``/``info["final_ranks"]`` hold the old game's end.
        Raises ``IllegalActionError`` naming the first env whose action is not legal; then no
        env is changed.
        """
        with self._lock:
            if not self._started:
                raise GenialError("call reset() before step()")
            a = self._as_actions(actions)
            bad = self._kernel.check(a)
            if bad >= 0:
                raise self._illegal(int(bad), int(a[bad]))
            self._kernel.step(a)
            return (
                dict(self._obs),
                self._rewards,
                self._terminated,
                self._truncated,
                dict(self._info),
            )

    def sample_actions(self, out: npt.NDArray[np.int32] | None = None) -> npt.NDArray[np.int32]:
        """A uniformly random legal action per env (uniform over the legal action ids: a card
        type of the hand and an order; swap or keep on a fair coin), drawn in the kernel from
        each env's sampler stream. Written into ``out`` (an int32 array of ``n_envs``), or into
        a buffer of the env that the next call overwrites."""
        with self._lock:
            if not self._started:
                raise GenialError("call reset() before sample_actions()")
            if out is None:
                out = self._actions
            elif not (
                isinstance(out, np.ndarray)
                and out.dtype == np.int32
                and out.shape == (self.n_envs,)
                and out.flags.c_contiguous
                and out.flags.writeable
            ):
                raise GenialError(
                    f"out: a writeable contiguous int32 array of shape ({self.n_envs},), got "
                    f"{excerpt(out)}"
                )
            self._kernel.sample(out)
            return out

    def _as_actions(self, actions: npt.ArrayLike) -> npt.NDArray[np.int32]:
        n = self.n_envs
        if (
            isinstance(actions, np.ndarray)
            and actions.dtype == np.int32
            and actions.shape == (n,)
            and actions.flags.c_contiguous
        ):
            return actions
        try:
            arr = np.asarray(actions)
        except (TypeError, ValueError):
            arr = np.asarray(None)
        if arr.dtype.kind not in "iu":
            raise GenialError(
                f"actions: an integer array of {n} action ids, got {excerpt(actions)}"
            )
        if arr.shape != (n,):
            raise GenialError(f"actions: one action per env, shape ({n},), got shape {arr.shape}")
        outside = np.flatnonzero((arr < 0) | (arr >= ACTION_SIZE))
        if len(outside):
            i = int(outside[0])
            raise IllegalActionError(
                f"env {i}: action {excerpt(int(arr[i]))} is not legal: it is not an action id "
                f"(0..{ACTION_SIZE - 1}); no env was changed",
                i,
                int(arr[i]) if -(2**31) <= arr[i] < 2**31 else -1,
            )
        return np.ascontiguousarray(arr, dtype=np.int32)

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

    # -- copies and pickling ---------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            return {
                "n_envs": self.n_envs,
                "rules": self._rules,
                "mask": self._mask,
                "max_turns": self._max_turns,
                "root": self._root,
                "started": self._started,
                "kernel": self._kernel.snapshot() if self._started else None,
            }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            state["n_envs"],
            state["rules"],
            state["root"],
            mask=state["mask"],
            max_turns=state["max_turns"],
        )
        if state["started"]:
            self._kernel.restore(*state["kernel"])
            self._started = True

    def copy(self) -> CardVectorEnv:
        """An independent copy in the same state (games, streams and buffers)."""
        other: CardVectorEnv = pickle.loads(pickle.dumps(self))
        return other

    # -- one env as a CardGame -------------------------------------------------------------------
    def _check_env(self, i: object) -> int:
        if not self._started:
            raise GenialError("call reset() first")
        return checked_int(i, "env", 0, self.n_envs - 1)

    def episode_seed(self, i: int) -> np.random.SeedSequence:
        """The seed of env ``i``'s current game: ``CardGame(rules, seed=env.episode_seed(i))``
        deals the same cards, and the same moves draw the same cards."""
        with self._lock:
            k = self._check_env(i)
            return child_seed(self._root, k, int(self.episode[k]))

    def game(self, i: int) -> CardGame:
        """A ``CardGame`` at env ``i``'s current position, whose chance stream is the env's: the
        same moves draw the same cards (its history and ``stats()`` start here)."""
        with self._lock:
            return self._game(self._check_env(i))

    def _game(self, k: int) -> CardGame:
        game = CardGame.from_position(
            read(self._kernel.core(k), self._rules),
            seed=child_seed(self._root, k, int(self.episode[k])),
        )
        game._chance.state = self._kernel.stream_state(k)  # type: ignore[assignment]
        return game
