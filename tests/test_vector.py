"""genial.board.vector.VectorEnv: the batched environment against Game, the reference of the rules.

Every env's k-th game is ``Game(rules, seed=child_seed(root, env, k))`` played with the same
moves (docs/vector.md, "Seeds"), so the tests replay envs as Games and compare everything the
env writes (observations, masks, counts, rewards, final scores) with what Game says.
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genial import ACTION_SIZE, EDGES, Game, GenialError, IllegalMoveError, Rules, _vector
from genial.board.geometry import SYMBOLS, area
from genial.board.moves import ACTION_KEEP, ACTION_SWAP, TILES
from genial.board.vector import MASK_BYTES, IllegalActionError, VectorEnv, unpack_masks
from genial.seeds import POLICY_STREAM, as_seed_sequence, child_seed

from .kernel_contract import replay_envs, scribbled_steps

ROOT = Path(__file__).resolve().parents[1]
TOKENS = ["1", "1v", "2", "2T", "2v", "2Tv", "3", "4", "4t"]


def expected_obs(game: Game) -> dict[str, Any]:
    """What the env should show for ``game``, computed from Game's public API only."""
    rules = game.rules
    cells = {cell: k for k, cell in enumerate(area(rules.radius))}
    board = np.zeros((6, len(cells)), dtype=np.uint8)
    for cell, colour in game.board.items():
        board[colour, cells[cell]] = 1
    for colour, cell in enumerate(SYMBOLS):
        board[colour, cells[cell]] = 1
    seat = game.current_player
    rack = np.zeros(21, dtype=np.uint8)
    for tile in game.rack(seat):
        rack[TILES.index(tile)] += 1
    order = [(seat + j) % game.players for j in range(game.players)]
    return {
        "board": board,
        "rack": rack,
        "scores": game.scores[order],
        "rack_sizes": np.array([len(game.rack(p)) for p in order]),
        "phase": {"place": 0, "swap": 1}[game.phase],
        "bonus": game.bonus_plays,
        "bag": game.bag_size,
    }


def expected_rewards(game: Game) -> list[float]:
    """+1 / 0 / -1 against each opponent (a seat of another counter set), averaged; solo: the
    lowest counter over the cap (docs/vector.md, "Rewards")."""
    rules = game.rules
    if rules.players == 1:
        return [float(game.scores[0].min()) / rules.cap]
    ranks = game.ranks()
    out = []
    for p in range(rules.players):
        opp = [q for q in range(rules.players) if rules.team_of(q) != rules.team_of(p)]
        out.append(sum(np.sign(ranks[q] - ranks[p]) for q in opp) / len(opp))
    return out


def assert_env_is(env: VectorEnv, i: int, game: Game) -> None:
    obs = env.observations
    want = expected_obs(game)
    for name, value in want.items():
        assert np.array_equal(obs[name][i], value), (name, i)
    assert env.current_player[i] == game.current_player
    legal = game.legal_actions()
    assert env.legal_counts[i] == len(legal)
    if env.mask_mode != "none":
        assert env.masks is not None
        mask = env.masks[i] if env.mask_mode == "bool" else env.unpack_masks()[i]
        assert np.array_equal(mask, game.action_mask())


def replay(token: str, n_envs: int, steps: int, watch: list[int], mask: str = "packed") -> int:
    """Step ``n_envs`` envs with sampled actions, replaying the ``watch`` envs as Games; return
    the number of finished games among the watched envs."""
    rules = Rules.parse(token)
    env = VectorEnv(n_envs, rules, seed=7, mask=mask)  # type: ignore[arg-type]
    env.reset()
    root = env.seed_sequence
    games = {i: Game(rules, seed=child_seed(root, i, 0)) for i in watch}
    for i in watch:
        assert_env_is(env, i, games[i])
    finished = 0
    for _ in range(steps):
        actions = env.sample_actions().copy()
        for i in watch:
            assert games[i].is_legal(int(actions[i]))
        _, rewards, terminated, truncated, info = env.step(actions)
        for i in watch:
            game = games[i]
            game.play(int(actions[i]))
            assert bool(terminated[i]) == game.is_over
            assert not truncated[i]
            if game.is_over:
                finished += 1
                assert info["final_ranks"][i].tolist() == game.ranks().tolist()
                assert np.array_equal(info["final_scores"][i], game.scores)
                assert rewards[i].tolist() == pytest.approx(expected_rewards(game))
                k = int(info["episode"][i])
                games[i] = Game(rules, seed=child_seed(root, i, k))
            else:
                assert not rewards[i].any()
            assert_env_is(env, i, games[i])
    return finished


@pytest.mark.parametrize("token", TOKENS)
def test_envs_replay_as_games(token: str) -> None:
    """RULES §3, §4 through the env: observations, masks, counts, rewards, final scores and
    ranks equal Game's, across autoresets."""
    finished = replay(token, 16, 400, watch=[0, 5, 15])
    assert finished >= 3  # every watched env has finished a game at least once


@pytest.mark.parametrize("mask", ["bool", "factored", "none"])
def test_other_mask_modes_replay_as_games(mask: str) -> None:
    assert replay("2", 8, 200, watch=[1, 6], mask=mask) >= 2


def test_streams_are_numpys() -> None:
    """The kernel's PCG64/SeedSequence are numpy's, bit for bit (docs/vector.md, "Seeds")."""
    for seed in [0, 1, 2**100 + 3, [5, 2**40, 7], child_seed(as_seed_sequence(3), 9)]:
        env = VectorEnv(3, 2, seed=seed)
        env.reset()
        root = env.seed_sequence
        for i in range(3):
            dealt = Game(2, seed=child_seed(root, i, 0))  # the stream after the deal
            assert env._kernel.stream_state(i) == dealt._chance.state
            sampler = np.random.PCG64(child_seed(root, POLICY_STREAM, i)).state
            assert env._kernel.stream_state(i, True) == sampler
            for k in (1, 2**32 + 5):
                assert env._kernel.pool(i, k) == child_seed(root, i, k).pool.tolist()
    wide = np.random.SeedSequence(11, pool_size=8)
    env = VectorEnv(2, 2, seed=wide)
    env.reset()
    assert env._kernel.pool(1, 3) == child_seed(wide, 1, 3).pool.tolist()
    assert env._kernel.stream_state(1) == Game(2, seed=child_seed(wide, 1, 0))._chance.state


def test_portable_pcg_step_agrees() -> None:
    """The 128-bit step written with 64-bit words (compilers without __int128) is the same."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        words = [int(w) for w in rng.integers(0, 2**64, size=4, dtype=np.uint64)]
        assert _vector.pcg_step_agrees(*words, 100)


def test_same_seed_same_trajectories_and_independent_of_n_envs() -> None:
    def run(n: int, seed: int) -> list[np.ndarray]:
        env = VectorEnv(n, 3, seed=seed)
        env.reset()
        out = []
        for _ in range(150):
            a = env.sample_actions().copy()
            obs, rewards, _, _, _ = env.step(a)
            out.append(np.concatenate([a[:4], obs["rack"][:4].ravel(), rewards[:4].ravel()]))
        return out

    a, b = run(4, 99), run(8, 99)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = run(4, 98)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_reset_seed_restarts_and_reset_continues() -> None:
    env = VectorEnv(3, 2, seed=5)
    first = {k: v.copy() for k, v in env.reset()[0].items()}
    env.step(env.sample_actions())
    again = env.reset(seed=5)[0]
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert env.episode.tolist() == [0, 0, 0]
    _, info = env.reset()
    assert info["episode"].tolist() == [1, 1, 1]
    root = env.seed_sequence
    for i in range(3):
        assert_env_is(env, i, Game(2, seed=child_seed(root, i, 1)))
        assert env.episode_seed(i).spawn_key == (i, 1)


def test_illegal_action_names_the_env_and_changes_nothing() -> None:
    env = VectorEnv(4, 2, seed=3)
    env.reset()
    before = env._kernel.core(2).snapshot()
    obs_before = {k: v.copy() for k, v in env.observations.items()}
    actions = env.sample_actions().copy()
    actions[2] = ACTION_SWAP  # a placement is due
    with pytest.raises(IllegalActionError, match=r"env 2: action 15336 \(swap\)") as err:
        env.step(actions)
    assert err.value.env == 2 and err.value.action == ACTION_SWAP
    assert isinstance(err.value, IllegalMoveError)
    assert env._kernel.core(2).snapshot() == before
    assert all(np.array_equal(obs_before[k], env.observations[k]) for k in obs_before)
    # a covered cell, a missing tile, an id outside the action space
    legal = env.unpack_masks()[0]
    covered = np.flatnonzero(~legal[:ACTION_SWAP])
    actions[2] = env.sample_actions()[2]
    actions[0] = covered[0]
    with pytest.raises(IllegalActionError, match="env 0: action"):
        env.step(actions)
    actions[0] = ACTION_SIZE
    with pytest.raises(
        IllegalActionError,
        match=r"env 0: action 15338 is not legal: it is not an action id \(0\.\.15337\)",
    ):
        env.step(actions)
    actions[0] = -1
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(actions.astype(np.int64))
    assert env._kernel.core(2).snapshot() == before


def test_a_thread_writing_the_actions_cannot_corrupt_the_envs() -> None:
    """An actor thread writes ids into the array ``step`` is given, while ``step`` runs (issue
    17, item 1: the env checked the caller's array, then applied it again as it was then). The
    ids written are never legal: out of the action space, or on cells outside the area; so
    every step applies exactly its sampled actions or is refused whole, and every env still
    replays as its Games."""
    env = VectorEnv(64, 2, seed=3)
    env.reset()
    inside = set(area(5))
    outside = [e * 36 for e, (a, b) in enumerate(EDGES) if a not in inside or b not in inside]
    never = np.array([-1, ACTION_SIZE, 2**31 - 1, -(2**31), *outside[::20]], dtype=np.int32)
    steps = scribbled_steps(env, never, seconds=2.5, max_steps=1000)
    root = env.seed_sequence
    replay_envs(env, steps, lambda i, k: Game(2, seed=child_seed(root, i, k)), assert_env_is)


def test_error_names_the_rule() -> None:
    env = VectorEnv(1, 2, seed=1)
    env.reset()
    game = env.game(0)
    rack = game.rack(0)
    missing = next(t for t in TILES if t not in rack)
    free = next(a for a in game.legal_actions())  # a legal cell pair, then a missing tile
    edge = free // 36
    with pytest.raises(IllegalActionError, match="has no"):
        env.step(np.array([edge * 36 + missing[0] * 6 + missing[1]]))
    # the first placement must touch a symbol (RULES §3.2): a legal tile on a central pair
    tile = rack[0]
    centre = next(e for e, (a, b) in enumerate(EDGES) if a == (0, 0) or b == (0, 0))
    with pytest.raises(IllegalActionError, match=r"first placement.*§3\.2"):
        env.step(np.array([centre * 36 + tile[0] * 6 + tile[1]]))


def test_swap_decisions_are_steps() -> None:
    """RULES §3.5 through the env: a swap phase shows in the observation and the mask holds only
    swap and keep."""
    env = VectorEnv(64, 2, seed=2)
    env.reset()
    seen = 0
    for _ in range(300):
        obs, *_ = env.step(env.sample_actions())
        swapping = np.flatnonzero(obs["phase"] == 1)
        for i in swapping[:3]:
            seen += 1
            assert env.legal_counts[i] == 2
            assert np.flatnonzero(env.unpack_masks()[i]).tolist() == [ACTION_SWAP, ACTION_KEEP]
    assert seen > 0


def _chi_square_uniform(env: VectorEnv, draws_per_action: int = 40) -> None:
    """Sample env 0's (unchanged) position many times: only legal actions come, and their
    counts pass a chi-square test of uniformity (6 standard deviations: about 1e-9 to fail)."""
    mask = env.unpack_masks()[0]
    k = int(env.legal_counts[0])
    n = draws_per_action * k
    tally = np.zeros(ACTION_SIZE, dtype=np.int64)
    for _ in range(n):
        tally[int(env.sample_actions()[0])] += 1
    assert not tally[~mask].any()
    observed = tally[mask]
    chi2 = float(((observed - n / k) ** 2 / (n / k)).sum())
    assert chi2 < (k - 1) + 6 * np.sqrt(2 * (k - 1))


def test_sampler_is_uniform_over_legal_actions() -> None:
    """The sampler draws uniformly over the legal action ids: at a first placement (RULES §3.2,
    the kernel's legal list) and mid-game (free edges times the rack's placements)."""
    env = VectorEnv(1, 2, seed=4)
    env.reset()
    _chi_square_uniform(env)
    for _ in range(6):
        env.step(env.sample_actions())
    while env.observations["phase"][0] != 0:
        env.step(env.sample_actions())
    _chi_square_uniform(env)


def test_max_turns_truncates_without_reward() -> None:
    env = VectorEnv(4, 2, seed=1, max_turns=3)
    env.reset()
    root = env.seed_sequence
    truncated_seen = False
    games = [Game(2, seed=child_seed(root, i, 0)) for i in range(4)]
    for _ in range(20):
        a = env.sample_actions().copy()
        _, rewards, terminated, truncated, info = env.step(a)
        for i in range(4):
            games[i].play(int(a[i]))
            if truncated[i]:
                truncated_seen = True
                assert games[i].turn == 4 and not terminated[i]
                assert not rewards[i].any()
                assert np.array_equal(info["final_scores"][i], games[i].scores)
                games[i] = Game(2, seed=child_seed(root, i, int(info["episode"][i])))
            assert_env_is(env, i, games[i])
    assert truncated_seen


def test_game_of_an_env_continues_like_it() -> None:
    env = VectorEnv(2, 4, seed=6)
    env.reset()
    for _ in range(30):
        env.step(env.sample_actions())
    game = env.game(1)
    for _ in range(40):
        a = env.sample_actions().copy()
        game.play(int(a[1]))
        _, _, term, _, _ = env.step(a)
        if term[1]:
            break
        assert_env_is(env, 1, game)


def test_outputs_are_read_only_views_reused() -> None:
    env = VectorEnv(2, 2, seed=1)
    obs, _ = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        obs["board"][0, 0, 0] = 1
    obs2, rewards, *_ = env.step(env.sample_actions())
    assert np.shares_memory(obs["rack"], obs2["rack"])
    assert not rewards.flags.writeable


@pytest.mark.parametrize("token", ["2", "3", "4"])
def test_board_columns_are_the_area(token: str) -> None:
    env = VectorEnv(1, token)
    radius = Rules.parse(token).radius
    assert env.cells == area(radius) == tuple(_vector.area_cells(radius))
    assert env.observations["board"].shape == (1, 6, len(area(radius)))


def test_unpack_masks_matches_packbits() -> None:
    env = VectorEnv(3, 3, seed=2)
    env.reset()
    assert env.masks is not None and env.masks.shape == (3, MASK_BYTES)
    full = env.unpack_masks()
    assert np.array_equal(np.packbits(full, axis=1, bitorder="little"), env.masks)
    assert np.array_equal(unpack_masks(env.masks), full)
    with pytest.raises(GenialError, match="bytes a mask"):
        unpack_masks(np.zeros((2, 5), dtype=np.uint8))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_envs": 0}, "n_envs must be in"),
        ({"n_envs": 2.5}, "n_envs must be an int"),
        ({"n_envs": 2, "rules": 5}, "players must be"),
        ({"n_envs": 2, "mask": "bits"}, "mask must be"),
        ({"n_envs": 2, "max_turns": 0}, "max_turns must be in"),
        ({"n_envs": 2, "seed": "x"}, "seed"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(GenialError, match=message):
        VectorEnv(**kwargs)


def test_bad_calls() -> None:
    env = VectorEnv(3, 2, seed=1)
    with pytest.raises(GenialError, match="reset"):
        env.step(np.zeros(3, dtype=np.int32))
    with pytest.raises(GenialError, match="reset"):
        env.sample_actions()
    env.reset()
    with pytest.raises(GenialError, match="shape"):
        env.step(np.zeros(4, dtype=np.int32))
    with pytest.raises(GenialError, match="integer array"):
        env.step(np.zeros(3, dtype=np.float64))
    with pytest.raises(GenialError, match="integer array"):
        env.step(np.zeros(3, dtype=bool))
    with pytest.raises(GenialError, match="out:"):
        env.sample_actions(np.zeros(3, dtype=np.int64))
    with pytest.raises(GenialError, match="env must be in"):
        env.game(3)
    none = VectorEnv(2, 2, seed=1, mask="none")
    none.reset()
    assert none.masks is None and "action_mask" not in none.info
    with pytest.raises(GenialError, match="no masks"):
        none.unpack_masks()
    out = np.empty(2, dtype=np.int32)
    assert none.sample_actions(out) is out


def test_illegal_action_error_pickles() -> None:
    err = pickle.loads(pickle.dumps(IllegalActionError("env 1: no", 1, 5)))
    assert str(err) == "env 1: no"


def test_docs_examples_run() -> None:
    """The Python blocks of docs/vector.md run as written."""
    text = (ROOT / "docs" / "vector.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, "docs/vector.md", "exec"), namespace)


def test_pickle_and_copy_continue_identically() -> None:
    env = VectorEnv(5, 3, seed=12, mask="bool")
    assert pickle.loads(pickle.dumps(env)).n_envs == 5  # not started: nothing to copy
    env.reset()
    for _ in range(37):
        env.step(env.sample_actions())
    twin = pickle.loads(pickle.dumps(env))
    other = env.copy()
    for _ in range(60):
        a = env.sample_actions().copy()
        assert np.array_equal(a, twin.sample_actions())
        assert np.array_equal(a, other.sample_actions())
        out = env.step(a)
        for e in (twin, other):
            got = e.step(a)
            assert all(np.array_equal(out[0][k], got[0][k]) for k in out[0])
            assert all(np.array_equal(x, y) for x, y in zip(out[1:4], got[1:4], strict=True))
            assert all(np.array_equal(out[4][k], got[4][k]) for k in out[4])
