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

import os
import pickle
import threading
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from . import _core, _vector
from .errors import GenialError, IllegalMoveError, checked_int, excerpt
from .game import Game
from .geometry import Cell, area
from .moves import ACTION_KEEP, ACTION_SIZE, ACTION_SWAP, MOVES, tile_text
from .notation import read
from .rules import Rules
from .seeds import POLICY_STREAM, as_seed_sequence, child_seed

__all__ = ["MASK_BYTES", "IllegalActionError", "VectorEnv", "unpack_masks"]

MASK_BYTES: int = _vector.MASK_SIZE
"""Bytes of a bit-packed mask: ``ceil(ACTION_SIZE / 8)`` (1,918). Action ``a`` is bit ``a % 8``
of byte ``a // 8`` (numpy's ``bitorder="little"``)."""
MAX_ENVS = 2**24
MaskMode = Literal["packed", "bool", "none"]
_MODES: dict[str, int] = {"none": 0, "packed": 1, "bool": 2}
_STATE_BYTES = 2_800  # a game's kernel state and streams, about (for the memory check)
assert POLICY_STREAM == _vector.POLICY_KEY  # the samplers' key (docs/vector.md, "Seeds")


class IllegalActionError(IllegalMoveError):
    """An action that is not legal in its environment: ``env`` is its index, ``action`` the
    action. No environment was changed."""

    def __init__(self, message: str, env: int = -1, action: int = -1) -> None:
        super().__init__(message)
        self.env = env
        self.action = action


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
    """The words of ``root``'s assembled entropy that precede a child's own key words."""
    run = _entropy_words(root.entropy)
    run += [0] * (root.pool_size - len(run))  # a child always has a spawn key: padded
    return np.array(run + _entropy_words(list(root.spawn_key)), dtype=np.uint32)


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    view: npt.NDArray[Any] = array.view()
    view.flags.writeable = False
    return view


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


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


class VectorEnv:
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
    mask : "packed", "bool" or "none"
        The legal-action masks written at every step: bit-packed ``uint8 (n_envs, 1918)``
        (default; ``unpack_masks``), ``bool (n_envs, 15338)``, or none (``legal_counts`` and
        ``sample_actions`` still work).
    max_turns : int or None
        Truncate a game still running when its turn counter passes this (no reward).

    Every array returned (observations, masks, rewards, flags, info) is a read-only view of a
    buffer that the next ``reset``/``step`` overwrites: copy what you keep.
    """

    def __init__(
        self,
        n_envs: int,
        rules: int | str | Rules = 2,
        seed: Any = None,
        *,
        mask: MaskMode = "packed",
        max_turns: int | None = None,
    ) -> None:
        n = checked_int(n_envs, "n_envs", 1, MAX_ENVS)
        game_rules = Rules.of(rules)
        if not isinstance(mask, str) or mask not in _MODES:
            raise GenialError(f"mask must be 'packed', 'bool' or 'none', got {excerpt(mask)}")
        turns = 0 if max_turns is None else checked_int(max_turns, "max_turns", 1, 32_766)
        per_env = _STATE_BYTES + {"none": 0, "packed": MASK_BYTES, "bool": ACTION_SIZE}[mask]
        limit = _physical_memory()
        if limit is not None and n * per_env > limit // 2:
            raise GenialError(
                f"{n:,} environments need about {n * per_env / 2**30:,.1f} GiB, more than half "
                f"of this machine's {limit / 2**30:,.1f} GiB: use fewer"
            )
        root = as_seed_sequence(seed)
        if not 4 <= root.pool_size <= 64:
            raise GenialError(f"seed: a SeedSequence pool_size of 4..64, got {root.pool_size}")
        self._rules = game_rules
        self._mask: MaskMode = mask
        self._max_turns = max_turns if max_turns is None else turns
        self._root = root
        self._kernel = _vector.Kernel(game_rules.core(), n, _MODES[mask], turns)
        self._lock = threading.Lock()
        self._started = False
        self._actions = np.zeros(n, dtype=np.int32)
        arrays = self._kernel.arrays
        self._obs: dict[str, npt.NDArray[Any]] = {
            name: _read_only(arrays[name])
            for name in ("board", "rack", "scores", "rack_sizes", "phase", "bonus", "bag")
        }
        self._info: dict[str, npt.NDArray[Any]] = {
            name: _read_only(arrays[name])
            for name in ("current_player", "legal_counts", "episode", "final_scores", "final_ranks")
        }
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
    def rules(self) -> Rules:
        return self._rules

    @property
    def players(self) -> int:
        return self._rules.players

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The cells of the board planes' columns: the area, row-major (``geometry.area``)."""
        return area(self._rules.radius)

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
            f"VectorEnv({self.n_envs}, rules={str(self._rules)!r}, mask={self._mask!r}, "
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
        """The legal-action masks: ``uint8 (n_envs, MASK_BYTES)`` bit-packed, ``bool (n_envs,
        ACTION_SIZE)``, or None when made with ``mask="none"``."""
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
        """The current masks as a new bool array ``(n_envs, ACTION_SIZE)``."""
        if self._masks is None:
            raise GenialError("this VectorEnv writes no masks (mask='none')")
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
                root = as_seed_sequence(seed)
                if not 4 <= root.pool_size <= 64:
                    raise GenialError(
                        f"seed: a SeedSequence pool_size of 4..64, got {root.pool_size}"
                    )
                self._root = root
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
        """A uniformly random legal action per env (uniform over the legal action ids), drawn in
        the kernel from each env's sampler stream. Written into ``out`` (an int32 array of
        ``n_envs``), or into a buffer of the env that the next call overwrites."""
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
        why = _core.ILLEGAL.get(self._kernel.reason(i, action), "unknown")
        core = self._kernel.core(i)
        move = MOVES[action] if 0 <= action < ACTION_SIZE else None
        tile = tile_text(move.tile) if move is not None and move.tile is not None else "?"
        text = _WHY.get(why, why).format(seat=core.current, tile=tile, last=ACTION_SIZE - 1)
        shown = f"action {action} ({move})" if move is not None else f"action {action}"
        return IllegalActionError(
            f"env {i}: {shown} is not legal: {text}; no env was changed", i, action
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

    def copy(self) -> VectorEnv:
        """An independent copy in the same state (games, streams and buffers)."""
        other: VectorEnv = pickle.loads(pickle.dumps(self))
        return other

    # -- one env as a Game -----------------------------------------------------------------------
    def _check_env(self, i: object) -> int:
        if not self._started:
            raise GenialError("call reset() first")
        return checked_int(i, "env", 0, self.n_envs - 1)

    def episode_seed(self, i: int) -> np.random.SeedSequence:
        """The seed of env ``i``'s current game: ``Game(rules, seed=env.episode_seed(i))``
        deals the same tiles, and the same moves draw the same tiles."""
        with self._lock:
            k = self._check_env(i)
            return child_seed(self._root, k, int(self.episode[k]))

    def game(self, i: int) -> Game:
        """A ``Game`` at env ``i``'s current position, whose chance stream is the env's: the same
        moves draw the same tiles (its history starts here)."""
        with self._lock:
            k = self._check_env(i)
            core = self._kernel.core(k)
            game = Game.from_position(
                read(core, self._rules),
                seed=child_seed(self._root, k, int(self.episode[k])),
                pair_tiles=True,
            )
            game._chance.state = self._kernel.stream_state(k)  # type: ignore[assignment]
            return game
