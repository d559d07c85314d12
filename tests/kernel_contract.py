"""Checks every game's kernel passes (``genial._core``, ``genial.cards._kernel`` and their vector
environments): the parts of ``run_chunk`` that the batch layers and the analyses rely on, and a
vector env's ``step`` against a thread writing its actions, written once for both games."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from genial.board.vector import IllegalActionError


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


# -- the vector environments: a second thread writing the actions of step() --------------------


def scribbled_steps(
    env: Any, never_legal: npt.NDArray[np.int32], seconds: float, max_steps: int
) -> list[npt.NDArray[np.int32]]:
    """Step ``env`` (started) with its sampled actions for ``seconds`` (at most ``max_steps``
    steps) while a second thread keeps writing ids of ``never_legal`` (ids no env can ever play)
    into the very array each ``step`` is given, as an actor thread sharing a buffer would.

    Each step must apply exactly the sampled actions, or be refused whole with the
    ``IllegalActionError`` of a scribbled id: the env checks and applies its own copy of the
    actions, so no id can change between the check and the step. Returns the actions of the
    steps applied, for replaying every env (``replay_envs``)."""
    n = env.n_envs
    shared = np.zeros(n, dtype=np.int32)
    sampled = np.empty(n, dtype=np.int32)
    rng = np.random.default_rng(0)
    where = rng.integers(0, n, 4096)
    what = never_legal[rng.integers(0, len(never_legal), 4096)]
    stop = threading.Event()

    def scribble() -> None:
        k = 0
        while not stop.is_set():
            shared[where[k]] = what[k]
            k = (k + 1) & 4095

    applied: list[npt.NDArray[np.int32]] = []
    refused: list[int] = []
    thread = threading.Thread(target=scribble, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end and len(applied) < max_steps:
            env.sample_actions(sampled)
            shared[:] = sampled
            try:
                env.step(shared)
            except IllegalActionError as exc:  # a scribbled id reached the env's copy
                refused.append(exc.action)
                continue
            applied.append(sampled.copy())
            time.sleep(0.001)  # the other thread runs, and runs on into the next step
    finally:
        stop.set()
        thread.join()
    assert set(refused) <= set(never_legal.tolist())
    assert applied
    return applied


def replay_envs(
    env: Any,
    steps: list[npt.NDArray[np.int32]],
    new_game: Callable[[int, int], Any],
    assert_env_is: Callable[[Any, int, Any], None],
) -> None:
    """Replay every env of ``env`` as its games (``new_game(i, k)``: env ``i``'s game ``k``)
    through the actions of ``steps`` (each legal there), then check that every env shows its
    replay's position (``assert_env_is``) and episode."""
    for i in range(env.n_envs):
        k = 0
        game = new_game(i, 0)
        for actions in steps:
            game.play(int(actions[i]))
            if game.is_over:
                k += 1
                game = new_game(i, k)
        assert int(env.episode[i]) == k, i
        assert_env_is(env, i, game)
