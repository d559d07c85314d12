"""The vector envs' incremental outputs and the fused ``step_sampled``.

A step rewrites only what the move changed (the board planes' two cells, the mask's edges whose
part changed); a restored env (``copy``: snapshot, then restore) computes every observation and
mask again from its state. Over thousands of random steps with resets the two must agree byte
for byte, and the masks must be the rules' legal actions. ``step_sampled`` must be exactly
``step(sample_actions())``: the same draws, the same outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from genial import GenialError, Rules, _vector
from genial.board.moves import ACTION_SIZE
from genial.board.vector import EDGES, FACTORED_SIZE, VectorEnv, unfactor_masks
from genial.cards import CardRules
from genial.cards import _vector as _cards_vector
from genial.cards.vector import CardVectorEnv

BOARD = ["1", "2", "2T", "3", "4", "4t", "2v"]


def _outputs(env: Any) -> dict[str, np.ndarray]:
    out = {name: array.copy() for name, array in env.observations.items()}
    out.update({name: array.copy() for name, array in env.info.items() if name != "actions"})
    return out


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray], where: str) -> None:
    assert a.keys() == b.keys(), where
    for name in a:
        assert np.array_equal(a[name], b[name]), f"{where}: {name}"


def _check_masks(env: Any, rows: range) -> None:
    """The masks of ``rows`` are the rules' legal actions of each env's game."""
    masks = env.unpack_masks()
    for i in rows:
        legal = np.zeros(masks.shape[1], dtype=bool)
        legal[env.game(i).legal_actions()] = True
        assert np.array_equal(masks[i], legal), f"env {i}"
        assert env.legal_counts[i] == legal.sum()


def _run(env: Any, steps: int, every: int, fused: bool) -> None:
    env.reset()
    for s in range(steps):
        if s and s % 500 == 0:
            env.reset()  # every env's next episode: everything rewritten
        if fused:
            env.step_sampled()
        else:
            env.step(env.sample_actions())
        if s % every == 0:
            _same(_outputs(env), _outputs(env.copy()), f"step {s}")
            if env.mask_mode != "none" and s % (4 * every) == 0:
                _check_masks(env, range(0, env.n_envs, 5))


@pytest.mark.parametrize("token", BOARD)
@pytest.mark.parametrize("mask", ["packed", "bool", "factored"])
def test_board_incremental_equals_fresh(token: str, mask: str) -> None:
    env = VectorEnv(24, Rules.parse(token), seed=11, mask=mask)  # type: ignore[arg-type]
    _run(env, 1_200, 40, fused=token in ("2", "4t"))


def test_board_incremental_truncated() -> None:
    """Games cut by ``max_turns`` restart mid-board: the planes and masks of the new game."""
    env = VectorEnv(16, Rules(3), seed=5, mask="packed", max_turns=9)
    _run(env, 600, 13, fused=True)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("mask", ["packed", "bool"])
def test_cards_incremental_equals_fresh(players: int, mask: str) -> None:
    env = CardVectorEnv(24, CardRules(players), seed=11, mask=mask)  # type: ignore[arg-type]
    _run(env, 1_200, 40, fused=players == 3)


def _pair(kind: str, token: str, mask: str, seed: int) -> tuple[Any, Any]:
    if kind == "board":
        make = lambda: VectorEnv(33, Rules.parse(token), seed=seed, mask=mask)  # noqa: E731
    else:
        make = lambda: CardVectorEnv(33, CardRules(int(token)), seed=seed, mask=mask)  # noqa: E731
    a, b = make(), make()
    a.reset()
    b.reset()
    return a, b


@pytest.mark.parametrize(
    ("kind", "token", "mask"),
    [
        ("board", "2", "packed"),
        ("board", "1", "bool"),
        ("board", "4t", "none"),
        ("board", "3", "packed"),
        ("board", "2T", "factored"),
        ("cards", "2", "bool"),
        ("cards", "4", "packed"),
        ("cards", "3", "none"),
    ],
)
def test_step_sampled_is_sample_then_step(kind: str, token: str, mask: str) -> None:
    a, b = _pair(kind, token, mask, seed=21)
    out = np.full(a.n_envs, -7, dtype=np.int32)
    for s in range(300):
        actions = a.sample_actions().copy()
        _, ra, ta, tra, _ = a.step(actions)
        if s % 2:
            _, rb, tb, trb, info = b.step_sampled(out)
            assert info["actions"] is out
        else:
            _, rb, tb, trb, info = b.step_sampled()
            assert not info["actions"].flags.writeable
        assert np.array_equal(info["actions"], actions)
        assert np.array_equal(b._kernel.last_actions(), actions)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(tra, trb)
        _same(_outputs(a), _outputs(b), f"step {s}")
    # the sampler streams stayed in step: both envs draw the same next actions
    assert np.array_equal(a.sample_actions(), b.sample_actions())


def test_step_sampled_checks() -> None:
    env = VectorEnv(4, 2, seed=1)
    with pytest.raises(GenialError, match="reset"):
        env.step_sampled()
    env.reset()
    for bad in (np.zeros(4, dtype=np.int64), np.zeros(5, dtype=np.int32), [0, 0, 0, 0]):
        with pytest.raises(GenialError, match="out"):
            env.step_sampled(bad)  # type: ignore[arg-type]
    frozen = np.zeros(4, dtype=np.int32)
    frozen.flags.writeable = False
    with pytest.raises(GenialError, match="out"):
        env.step_sampled(frozen)
    with pytest.raises(ValueError, match="one action per env"):
        env._kernel.step_sampled(np.zeros(3, dtype=np.int32))
    obs, _, _, _, info = env.step_sampled()
    assert set(info) == set(env.info) | {"actions"}
    assert obs.keys() == env.observations.keys()
    # the actions returned are legal ids the env played: replaying them gives the same state
    other = VectorEnv(4, 2, seed=1)
    other.reset()
    other.step(info["actions"].copy())
    _same(_outputs(env), _outputs(other), "replayed")


def test_step_sampled_pickles_midway() -> None:
    """A copy made between fused steps goes on exactly as the original."""
    env = VectorEnv(8, 3, seed=2, mask="bool")
    env.reset()
    for _ in range(37):
        env.step_sampled()
    twin = env.copy()
    for s in range(100):
        _, ra, _, _, ia = env.step_sampled()
        _, rb, _, _, ib = twin.step_sampled()
        assert np.array_equal(ia["actions"], ib["actions"]) and np.array_equal(ra, rb)
        _same(_outputs(env), _outputs(twin), f"step {s}")


@pytest.mark.parametrize("token", ["2", "3", "4t", "2v"])
def test_factored_masks_are_the_packed_ones(token: str) -> None:
    """The factored masks (allowed edges x the rack's pairs, swap and keep) give the same legal
    actions as the bit-packed ones at every step of the same games, first placements (RULES
    §3.2, §4.3) and swap decisions (§3.5) included; the words past the last edge stay 0."""
    rules = Rules.parse(token)
    packed = VectorEnv(12, rules, seed=3, mask="packed")
    factored = VectorEnv(12, rules, seed=3, mask="factored")
    packed.reset()
    factored.reset()
    swaps = 0
    for s in range(700):
        assert factored.masks is not None and factored.masks.dtype == np.uint64
        assert factored.masks.shape == (12, FACTORED_SIZE)
        assert np.array_equal(factored.unpack_masks(), packed.unpack_masks()), f"step {s}"
        assert not (factored.masks[:, 6] >> np.uint64(EDGES - 6 * 64)).any()
        assert not (factored.masks[:, 7] >> np.uint64(38)).any()
        swaps += int((factored.masks[:, 7] >> np.uint64(36) & np.uint64(1)).sum())
        actions = packed.sample_actions().copy()
        packed.step(actions)
        factored.step(actions)
    assert swaps > 0  # the swap decision was met and masked


def test_factored_only_for_the_board() -> None:
    """The card game's 32 actions have nothing to factor: its env and kernel refuse the mode."""
    with pytest.raises(GenialError, match="mask must be"):
        CardVectorEnv(2, CardRules(2), mask="factored")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no factored masks"):
        _cards_vector.Kernel(CardRules(2).core(), 2, 3, 0)
    with pytest.raises(ValueError, match="bad mask mode"):
        _vector.Kernel(Rules(2).core(), 2, 4, 0)


def test_unfactor_masks_checks_its_input() -> None:
    good = np.zeros((3, FACTORED_SIZE), dtype=np.uint64)
    assert unfactor_masks(good).shape == (3, ACTION_SIZE) and not unfactor_masks(good).any()
    for bad, why in [
        (np.zeros((3, FACTORED_SIZE), dtype=np.int64), "uint64"),
        (np.zeros((3, 7), dtype=np.uint64), "8 words"),
        (np.uint64(0), "uint64 array"),
        ([0] * FACTORED_SIZE, "uint64 array"),
    ]:
        with pytest.raises(GenialError, match=why):
            unfactor_masks(bad)  # type: ignore[arg-type]
