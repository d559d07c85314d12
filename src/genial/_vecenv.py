"""The shared base of the batched environments ``genial.vector.VectorEnv`` (board game) and
``genial.cards.vector.CardVectorEnv`` (card game): ``BatchedEnv``.

Both hold ``n_envs`` games in a compiled kernel with the same interface (``seed``, ``start``,
``step``, which checks its own copy of the actions and then applies it, ``sample``,
``snapshot``/``restore``) and the same buffers, seeding scheme and reward convention
(``docs/vector.md``). This module keeps what they share: the argument
checks, ``reset``/``step``/``sample_actions``, the seeding of the kernel from a numpy
``SeedSequence``, the masks, one env as a game, copies and pickling, and ``IllegalActionError``.
A subclass gives the game's rules, kernel and game types, its observation names and what
differs in its errors.

The kernels are seeded from ``genial.seeds.seed_prefix`` (a root's words before a child's key).
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from .errors import GenialError, IllegalMoveError, checked_int, excerpt
from .seeds import as_seed_sequence, child_seed, seed_prefix

__all__ = ["MAX_ENVS", "BatchedEnv", "IllegalActionError"]

MAX_ENVS = 2**24
MaskMode = Literal["packed", "bool", "none", "factored"]
_MODES: dict[str, int] = {"none": 0, "packed": 1, "bool": 2, "factored": 3}
_INFO = ("current_player", "legal_counts", "episode", "final_scores", "final_ranks")


class IllegalActionError(IllegalMoveError):
    """An action that is not legal in its environment: ``env`` is its index, ``action`` the
    action. No environment was changed."""

    def __init__(self, message: str, env: int = -1, action: int = -1) -> None:
        super().__init__(message)
        self.env = env
        self.action = action


def _root_of(seed: Any) -> np.random.SeedSequence:
    """``as_seed_sequence(seed)``, refused when its pool size is one the kernels do not take."""
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


# -- what a subclass brings ----------------------------------------------------------------------


class _Rules(Protocol):
    @property
    def players(self) -> int: ...


R = TypeVar("R", bound=_Rules)
G = TypeVar("G")  # the game type
E = TypeVar("E", bound="BatchedEnv[Any, Any]")

StepResult = tuple[
    dict[str, npt.NDArray[Any]],
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    dict[str, npt.NDArray[Any]],
]
"""What ``step`` and ``step_sampled`` return: ``(observations, rewards, terminated, truncated,
info)``."""


class BatchedEnv(Generic[R, G]):
    """``n_envs`` games of one kind stepped together in a compiled kernel under rules ``R``,
    each env's game readable as a game ``G``; the shared body of ``VectorEnv`` and
    ``CardVectorEnv`` (see their docstrings).

    A subclass sets ``_ACTION_SIZE``, ``_OBS`` (the kernel's observation arrays),
    ``_MASK_MODES`` (the mask modes it has, in the order its error message lists them),
    ``_MAX_TURNS``, its
    rules type (``_rules_type``, read with its ``of``), kernel type (``_kernel_type``, made from
    the rules' kernel state), game type (``_game_type``, a ``genial.base.GameBase``) and the
    function that unpacks its packed masks (``_unpack``), and defines ``_env_bytes`` and
    ``_illegal`` (annotating ``_kernel`` with its kernel's type). A game with factored masks
    also overrides ``_unfactor``.
    """

    _ACTION_SIZE: ClassVar[int]
    _OBS: ClassVar[tuple[str, ...]]
    _MASK_MODES: ClassVar[tuple[str, ...]] = ("packed", "bool", "none")
    _MAX_TURNS: ClassVar[int]
    _rules_type: ClassVar[Any]
    _kernel_type: ClassVar[Any]
    _game_type: ClassVar[Any]
    _unpack: ClassVar[Callable[..., npt.NDArray[np.bool_]]]

    def __init__(
        self,
        n_envs: int,
        rules: Any,
        seed: Any = None,
        *,
        mask: MaskMode,
        max_turns: int | None = None,
    ) -> None:
        n = checked_int(n_envs, "n_envs", 1, MAX_ENVS)
        game_rules = self._read_rules(rules)
        if not isinstance(mask, str) or mask not in self._MASK_MODES:
            *most, last = (repr(m) for m in self._MASK_MODES)
            raise GenialError(f"mask must be {', '.join(most)} or {last}, got {excerpt(mask)}")
        turns = 0 if max_turns is None else checked_int(max_turns, "max_turns", 1, self._MAX_TURNS)
        per_env = self._env_bytes(mask)
        limit = _physical_memory()
        if limit is not None and n * per_env > limit // 2:
            raise GenialError(
                f"{n:,} environments need about {n * per_env / 2**30:,.1f} GiB, more than half "
                f"of this machine's {limit / 2**30:,.1f} GiB: use fewer"
            )
        self._root = _root_of(seed)
        self._rules: R = game_rules
        self._mask: MaskMode = mask
        self._max_turns = max_turns if max_turns is None else turns
        self._kernel: Any = self._make_kernel(game_rules, n, _MODES[mask], turns)
        self._lock = threading.Lock()
        self._started = False
        self._actions = np.zeros(n, dtype=np.int32)
        self._actions_view = _read_only(self._actions)
        arrays = self._kernel.arrays
        self._obs: dict[str, npt.NDArray[Any]] = {
            name: _read_only(arrays[name]) for name in self._OBS
        }
        self._info: dict[str, npt.NDArray[Any]] = {name: _read_only(arrays[name]) for name in _INFO}
        self._masks: npt.NDArray[Any] | None = None
        if mask != "none":
            self._masks = _read_only(arrays["masks"])
            self._info["action_mask"] = self._masks
        self._rewards: npt.NDArray[np.float32] = _read_only(arrays["rewards"])
        self._terminated: npt.NDArray[np.bool_] = _read_only(arrays["terminated"])
        self._truncated: npt.NDArray[np.bool_] = _read_only(arrays["truncated"])

    def _read_rules(self, rules: Any) -> R:
        game_rules: R = self._rules_type.of(rules)
        return game_rules

    def _make_kernel(self, rules: R, n: int, mode: int, turns: int) -> Any:
        return self._kernel_type(rules.core(), n, mode, turns)  # type: ignore[attr-defined]

    # -- what a subclass defines -----------------------------------------------------------------

    def _env_bytes(self, mask: MaskMode) -> int:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _illegal(self, i: int, action: int) -> IllegalActionError:  # pragma: no cover
        raise NotImplementedError

    def _unfactor(self, masks: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:  # pragma: no cover
        raise NotImplementedError  # (only a game with factored masks is made with them)

    # -- what it is ------------------------------------------------------------------------------
    @property
    def n_envs(self) -> int:
        return int(self._actions.shape[0])

    def __len__(self) -> int:
        return self.n_envs

    @property
    def rules(self) -> R:
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
            f"{type(self).__name__}({self.n_envs}, rules={str(self._rules)!r}, "
            f"mask={self._mask!r}, max_turns={self._max_turns})"
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

    @property
    def masks(self) -> npt.NDArray[Any] | None:
        """The legal-action masks: bool ``(n_envs, ACTION_SIZE)``, bit-packed or factored (the
        layout of each game's is in its class's docstring and ``docs/vector.md``), or None when
        made with ``mask="none"``."""
        return self._masks

    def unpack_masks(self) -> npt.NDArray[np.bool_]:
        """The current masks as a new bool array ``(n_envs, ACTION_SIZE)``."""
        if self._masks is None:
            raise GenialError(f"this {type(self).__name__} writes no masks (mask='none')")
        if self._mask == "bool":
            full: npt.NDArray[np.bool_] = self._masks.copy()
            return full
        if self._mask == "factored":
            return self._unfactor(self._masks)
        return type(self)._unpack(self._masks)

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
        self._kernel.seed(seed_prefix(root), root.pool_size)
        # the kernel recomputes numpy's SeedSequence: check one child against numpy's own
        if self._kernel.pool(0, 0) != child_seed(root, 0, 0).pool.tolist():  # pragma: no cover
            raise RuntimeError("the vector kernel's seeding disagrees with numpy's SeedSequence")

    def step(self, actions: npt.ArrayLike) -> StepResult:
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
            # the kernel copies the actions, checks the copy and applies it: another thread
            # writing the caller's array meanwhile cannot put an unchecked id in the kernel
            bad = self._kernel.step(self._as_actions(actions))
            if bad >= 0:
                raise self._illegal(int(bad), int(self._kernel.last_actions()[bad]))
            return (
                dict(self._obs),
                self._rewards,
                self._terminated,
                self._truncated,
                dict(self._info),
            )

    def step_sampled(self, out: npt.NDArray[np.int32] | None = None) -> StepResult:
        """Sample a uniformly random legal action per env in the kernel and play it, in one
        kernel call: the same as ``env.step(env.sample_actions(out))`` (the same sampler
        draws, observations, masks, rewards), faster. Returns what ``step`` returns, with
        ``info["actions"]``: the actions played, in ``out`` (an int32 array of ``n_envs``,
        written, never read) or in a read-only view of a buffer of the env that the next call
        overwrites."""
        with self._lock:
            if not self._started:
                raise GenialError("call reset() before step_sampled()")
            if out is None:
                self._kernel.step_sampled(self._actions)
                actions = self._actions_view
            else:
                self._check_out(out)
                self._kernel.step_sampled(out)
                actions = out
            info = dict(self._info)
            info["actions"] = actions
            return dict(self._obs), self._rewards, self._terminated, self._truncated, info

    def sample_actions(self, out: npt.NDArray[np.int32] | None = None) -> npt.NDArray[np.int32]:
        """A uniformly random legal action per env (uniform over the legal action ids), drawn in
        the kernel from each env's sampler stream. Written into ``out`` (an int32 array of
        ``n_envs``), or into a buffer of the env that the next call overwrites."""
        with self._lock:
            if not self._started:
                raise GenialError("call reset() before sample_actions()")
            if out is None:
                out = self._actions
            else:
                self._check_out(out)
            self._kernel.sample(out)
            return out

    def _check_out(self, out: object) -> None:
        if not (
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
        outside = np.flatnonzero((arr < 0) | (arr >= self._ACTION_SIZE))
        if len(outside):
            i = int(outside[0])
            raise IllegalActionError(
                f"env {i}: action {excerpt(int(arr[i]))} is not legal: it is not an action id "
                f"(0..{self._ACTION_SIZE - 1}); no env was changed",
                i,
                int(arr[i]) if -(2**31) <= arr[i] < 2**31 else -1,
            )
        return np.ascontiguousarray(arr, dtype=np.int32)

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
            try:
                self._kernel.restore(*state["kernel"])
            except (TypeError, ValueError) as exc:
                raise GenialError(
                    f"a pickled {type(self).__name__} that is not one: {exc}"
                ) from None
            self._started = True

    def copy(self: E) -> E:
        """An independent copy in the same state (games, streams and buffers)."""
        other: E = pickle.loads(pickle.dumps(self))
        return other

    # -- one env ---------------------------------------------------------------------------------
    def _check_env(self, i: object) -> int:
        if not self._started:
            raise GenialError("call reset() first")
        return checked_int(i, "env", 0, self.n_envs - 1)

    def episode_seed(self, i: int) -> np.random.SeedSequence:
        """The seed of env ``i``'s current game: the game type (``Game``, ``CardGame``) made
        with the env's rules and ``seed=env.episode_seed(i)`` deals the same tiles or cards,
        and the same moves draw the same."""
        with self._lock:
            k = self._check_env(i)
            return child_seed(self._root, k, int(self.episode[k]))

    def game(self, i: int) -> G:
        """A game (``Game``, ``CardGame``) at env ``i``'s current position, whose chance stream
        is the env's: the same moves draw the same tiles or cards (its history, and the card
        game's ``stats()``, start here)."""
        with self._lock:
            return self._game(self._check_env(i))

    def _game(self, k: int) -> G:
        game: G = self._game_type._from_core(
            self._kernel.core(k), self._rules, child_seed(self._root, k, int(self.episode[k]))
        )
        game._chance.state = self._kernel.stream_state(k)  # type: ignore[attr-defined]
        return game
