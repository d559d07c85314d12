"""genial.cards.vector.CardVectorEnv: the batched card-game environment against CardGame.

Every env's k-th game is ``CardGame(rules, seed=child_seed(root, env, k))`` played with the same
moves (docs/vector.md, "Card game"), so the tests replay envs as CardGames and compare
everything the env writes (observations, masks, counts, rewards, final markers and ranks) with
what CardGame says: its ``view()`` of the mover, ``action_mask()``, ``ranks()``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from genial import GenialError, IllegalMoveError
from genial.cards import ACTION_KEEP, ACTION_SIZE, ACTION_SWAP, CARDS, CardGame, CardRules
from genial.cards.moves import COLOURS
from genial.cards.vector import EMPTY_SLOT, CardVectorEnv, IllegalActionError, unpack_masks
from genial.seeds import POLICY_STREAM, as_seed_sequence, child_seed

from ..kernel_contract import replay_envs, scribbled_steps


def expected_obs(game: CardGame) -> dict[str, Any]:
    """What the env should show for ``game``, from ``CardGame.view`` of the mover only."""
    seat = game.current_player
    view = game.view(seat)
    n = view.players
    order = [(seat + j) % n for j in range(n)]
    hand = np.zeros(len(CARDS), dtype=np.uint8)
    for card in view.hand:
        hand[CARDS.index(card)] += 1
    colours = np.zeros(len(COLOURS), dtype=np.uint8)
    for display in view.displays:
        for a, b in display:
            colours[a] += 1
            colours[b] += 1
    return {
        "hand": hand,
        "hand_sizes": np.array([view.hand_sizes[p] for p in order]),
        "displays": np.array([[CARDS.index(c) for c in view.displays[p]] for p in order]),
        "display_colours": colours,
        "markers": np.array([view.markers[p] for p in order]),
        "deck_size": view.deck_size,
        "discard_size": view.discard_size,
        "phase": {"play": 0, "swap": 1}[view.phase],
        "bonus": view.bonus_turns,
        "turn": view.turn,
    }


def expected_rewards(game: CardGame) -> list[float]:
    """+1 / 0 / -1 against each opponent by ``ranks()``, averaged (docs/vector.md)."""
    ranks = game.ranks()
    n = game.players
    return [
        sum(float(np.sign(ranks[q] - ranks[p])) for q in range(n) if q != p) / (n - 1)
        for p in range(n)
    ]


def assert_env_is(env: CardVectorEnv, i: int, game: CardGame) -> None:
    obs = env.observations
    for name, value in expected_obs(game).items():
        assert np.array_equal(obs[name][i], value), (name, i)
    assert env.current_player[i] == game.current_player
    assert env.legal_counts[i] == len(game.legal_actions())
    if env.mask_mode != "none":
        assert env.masks is not None
        mask = env.unpack_masks()[i] if env.mask_mode == "packed" else env.masks[i]
        assert np.array_equal(mask, game.action_mask())


def replay(
    rules: CardRules, n_envs: int, steps: int, watch: list[int], mask: str = "bool"
) -> dict[str, int]:
    """Step ``n_envs`` envs with sampled actions, replaying the ``watch`` envs as CardGames;
    return how many watched games ended won and truncated."""
    env = CardVectorEnv(n_envs, rules, seed=7, mask=mask)  # type: ignore[arg-type]
    env.reset()
    root = env.seed_sequence
    games = {i: CardGame(rules=rules, seed=child_seed(root, i, 0)) for i in watch}
    for i in watch:
        assert_env_is(env, i, games[i])
    ends = {"won": 0, "truncated": 0}
    for _ in range(steps):
        actions = env.sample_actions().copy()
        for i in watch:
            assert games[i].is_legal(int(actions[i]))
        _, rewards, terminated, truncated, info = env.step(actions)
        for i in watch:
            game = games[i]
            game.play(int(actions[i]))
            assert bool(terminated[i] or truncated[i]) == game.is_over
            if game.is_over:
                assert bool(truncated[i]) == game.truncated
                ends["truncated" if game.truncated else "won"] += 1
                assert info["final_ranks"][i].tolist() == game.ranks().tolist()
                assert np.array_equal(info["final_scores"][i], game.scores)
                if game.truncated:  # no reward for a truncated game, as in VectorEnv
                    assert not rewards[i].any()
                else:
                    assert rewards[i].tolist() == pytest.approx(expected_rewards(game))
                    assert rewards[i, game.winner()] == 1.0  # RULES §5.7: the instant winner
                k = int(info["episode"][i])
                games[i] = CardGame(rules=rules, seed=child_seed(root, i, k))
            else:
                assert not rewards[i].any()
            assert_env_is(env, i, games[i])
    return ends


@pytest.mark.parametrize("players", [2, 3, 4])
def test_envs_replay_as_card_games(players: int) -> None:
    """RULES §5 through the env: observations, masks, counts, rewards, final markers and ranks
    equal CardGame's, across autoresets (same seeds: the same deals and draws)."""
    ends = replay(CardRules(players), 12, 500, watch=[0, 5, 11])
    assert ends["won"] >= 3


@pytest.mark.parametrize("mask", ["packed", "none"])
def test_other_mask_modes_replay_as_card_games(mask: str) -> None:
    assert replay(CardRules(2), 6, 250, watch=[1, 4], mask=mask)["won"] >= 2


def test_turn_cap_truncates_as_card_game_without_reward() -> None:
    """RULES §5.7 Decision: the rules' turn cap ends a game as truncated, exactly when CardGame's
    does; ranks are those of §3.7 on the markers, and no reward is given."""
    ends = replay(CardRules(3, turn_cap=6), 6, 120, watch=[0, 2, 3, 5])
    assert ends["truncated"] >= 8


def test_max_turns_truncates_without_reward() -> None:
    env = CardVectorEnv(4, 2, seed=1, max_turns=3)
    env.reset()
    root = env.seed_sequence
    games = [CardGame(2, seed=child_seed(root, i, 0)) for i in range(4)]
    seen = 0
    for _ in range(40):
        a = env.sample_actions().copy()
        _, rewards, terminated, truncated, info = env.step(a)
        for i in range(4):
            games[i].play(int(a[i]))
            if truncated[i]:
                seen += 1
                assert games[i].turn == 4 and not games[i].is_over and not terminated[i]
                assert not rewards[i].any()
                assert np.array_equal(info["final_scores"][i], games[i].scores)
                assert info["final_ranks"][i].tolist() == games[i].ranks().tolist()
                games[i] = CardGame(2, seed=child_seed(root, i, int(info["episode"][i])))
            assert_env_is(env, i, games[i])
    assert seen >= 4


def test_streams_are_numpys() -> None:
    """The kernel's PCG64/SeedSequence are numpy's, bit for bit (docs/vector.md, "Seeds")."""
    for seed in [0, 1, 2**100 + 3, [5, 2**40, 7], child_seed(as_seed_sequence(3), 9)]:
        env = CardVectorEnv(3, 3, seed=seed)
        env.reset()
        root = env.seed_sequence
        for i in range(3):
            dealt = CardGame(3, seed=child_seed(root, i, 0))  # the stream after the deal
            assert env._kernel.stream_state(i) == dealt._chance.state
            sampler = np.random.PCG64(child_seed(root, POLICY_STREAM, i)).state
            assert env._kernel.stream_state(i, True) == sampler
            for k in (1, 2**32 + 5):
                assert env._kernel.pool(i, k) == child_seed(root, i, k).pool.tolist()
    wide = np.random.SeedSequence(11, pool_size=8)
    env = CardVectorEnv(2, 2, seed=wide)
    env.reset()
    assert env._kernel.pool(1, 3) == child_seed(wide, 1, 3).pool.tolist()
    assert env._kernel.stream_state(1) == CardGame(2, seed=child_seed(wide, 1, 0))._chance.state


def test_same_seed_same_trajectories_and_independent_of_n_envs() -> None:
    def run(n: int, seed: int) -> list[np.ndarray]:
        env = CardVectorEnv(n, 3, seed=seed)
        env.reset()
        out = []
        for _ in range(200):
            a = env.sample_actions().copy()
            obs, rewards, _, _, _ = env.step(a)
            out.append(np.concatenate([a[:4], obs["hand"][:4].ravel(), rewards[:4].ravel()]))
        return out

    a, b = run(4, 99), run(9, 99)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = run(4, 98)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_reset_seed_restarts_and_reset_continues() -> None:
    env = CardVectorEnv(3, 4, seed=5)
    first = {k: v.copy() for k, v in env.reset()[0].items()}
    env.step(env.sample_actions())
    again = env.reset(seed=5)[0]
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert env.episode.tolist() == [0, 0, 0]
    _, info = env.reset()
    assert info["episode"].tolist() == [1, 1, 1]
    root = env.seed_sequence
    for i in range(3):
        assert_env_is(env, i, CardGame(4, seed=child_seed(root, i, 1)))
        assert env.episode_seed(i).spawn_key == (i, 1)
        assert CardGame(4, seed=env.episode_seed(i)) == env.game(i)


def _snapshots(env: CardVectorEnv) -> list[bytes]:
    return [env._kernel.core(i).snapshot() for i in range(env.n_envs)]


def test_illegal_action_names_the_env_and_changes_nothing() -> None:
    env = CardVectorEnv(4, 3, seed=3)
    env.reset()
    for _ in range(5):
        env.step(env.sample_actions())
    before = _snapshots(env)
    streams = [env._kernel.stream_state(i) for i in range(4)]
    obs_before = {k: v.copy() for k, v in env.observations.items()}
    actions = env.sample_actions().copy()
    phase = env.observations["phase"]
    play = int(np.flatnonzero(phase == 0)[0])
    actions[play] = ACTION_SWAP  # a card is to be played (RULES §5.5: swap only when offered)
    with pytest.raises(IllegalActionError, match=rf"env {play}: action 30 \(swap\)") as err:
        env.step(actions)
    assert err.value.env == play and err.value.action == ACTION_SWAP
    assert isinstance(err.value, IllegalMoveError)
    # a card not in the hand, an id outside the action space, a negative one
    actions[play] = env.sample_actions()[play]
    missing = int(np.flatnonzero(env.observations["hand"][play] == 0)[0])
    actions[play] = 2 * missing + 1
    card = "".join(COLOURS[c] for c in reversed(CARDS[missing]))
    with pytest.raises(IllegalActionError, match=rf"env {play}: action \d+ \({card}\).*has no"):
        env.step(actions)
    actions[play] = env.sample_actions()[play]
    actions[1] = ACTION_SIZE
    for wrong in (actions, actions.astype(np.int64)):  # the kernel's check, then Python's
        with pytest.raises(IllegalActionError, match=r"env 1: action 32 is not legal.*0\.\.31"):
            env.step(wrong)
    actions[1] = -1
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(actions.astype(np.int64))
    assert _snapshots(env) == before
    assert [env._kernel.stream_state(i) for i in range(4)] == streams
    assert all(np.array_equal(obs_before[k], env.observations[k]) for k in obs_before)


def test_a_thread_writing_the_actions_cannot_corrupt_the_envs() -> None:
    """An actor thread writes ids into the array ``step`` is given, while ``step`` runs (issue
    17, item 1: a card env once held display card 100 and a 7-card hand). The ids written are
    never legal (outside 0..31), so every step applies exactly its sampled actions or is
    refused whole, and every env still replays as its CardGames."""
    rules = CardRules(3)
    env = CardVectorEnv(64, rules, seed=3)
    env.reset()
    never = np.array([-1, ACTION_SIZE, 100, 2**31 - 1, -(2**31)], dtype=np.int32)
    steps = scribbled_steps(env, never, seconds=2.5, max_steps=1000)
    root = env.seed_sequence
    replay_envs(
        env, steps, lambda i, k: CardGame(rules=rules, seed=child_seed(root, i, k)), assert_env_is
    )


def test_play_during_the_swap_decision_is_refused() -> None:
    """RULES §5.5 through the env: a swap phase shows in the observation, its mask holds only
    swap and keep, and a card play is refused saying so."""
    env = CardVectorEnv(32, 3, seed=2)
    env.reset()
    seen = 0
    for _ in range(200):
        obs, *_ = env.step(env.sample_actions())
        for i in np.flatnonzero(obs["phase"] == 1)[:2]:
            seen += 1
            assert env.legal_counts[i] == 2
            assert np.flatnonzero(env.unpack_masks()[i]).tolist() == [ACTION_SWAP, ACTION_KEEP]
    assert seen > 0
    while not (env.observations["phase"] == 1).any():
        env.step(env.sample_actions())
    i = int(np.flatnonzero(env.observations["phase"] == 1)[0])
    before = _snapshots(env)
    actions = env.sample_actions().copy()
    actions[i] = 0
    with pytest.raises(IllegalActionError, match=r"decide on the swap.*§5\.5"):
        env.step(actions)
    assert _snapshots(env) == before


def test_sampler_draws_only_legal_actions_uniformly() -> None:
    """Over many positions only legal ids come; at one fixed position the counts pass a
    chi-square test of uniformity (6 standard deviations: about 1e-9 to fail)."""
    env = CardVectorEnv(64, 2, seed=4)
    env.reset()
    for _ in range(200):
        a = env.sample_actions()
        assert env.masks is not None
        assert env.masks[np.arange(64), a].all()
        env.step(a)
    one = CardVectorEnv(1, 2, seed=4)
    one.reset()
    mask = one.unpack_masks()[0]
    k = int(one.legal_counts[0])
    n = 400 * k
    tally = np.bincount([int(one.sample_actions()[0]) for _ in range(n)], minlength=ACTION_SIZE)
    assert not tally[~mask].any()
    chi2 = float(((tally[mask] - n / k) ** 2 / (n / k)).sum())
    assert chi2 < (k - 1) + 6 * np.sqrt(2 * (k - 1))


def test_game_of_an_env_continues_like_it() -> None:
    env = CardVectorEnv(2, 4, seed=6)
    env.reset()
    for _ in range(30):
        env.step(env.sample_actions())
    game = env.game(1)
    assert_env_is(env, 1, game)
    for _ in range(60):
        a = env.sample_actions().copy()
        game.play(int(a[1]))
        _, _, term, trunc, _ = env.step(a)
        if term[1] or trunc[1]:
            break
        assert_env_is(env, 1, game)


def test_displays_are_full_and_rotated() -> None:
    """RULES §5.2, §5.8: two display cards a seat with two players, one otherwise; row 0 is the
    mover's, and no empty slot shows at a decision."""
    for players, size in [(2, 2), (3, 1), (4, 1)]:
        env = CardVectorEnv(3, players, seed=1)
        obs, _ = env.reset()
        assert obs["displays"].shape == (3, players, size)
        for _ in range(20):
            obs, *_ = env.step(env.sample_actions())
            assert (obs["displays"] != EMPTY_SLOT).all()
            assert (obs["display_colours"].sum(axis=1) == 2 * players * size).all()


def test_outputs_are_read_only_views_reused() -> None:
    env = CardVectorEnv(2, 2, seed=1)
    obs, _ = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        obs["hand"][0, 0] = 1
    obs2, rewards, *_ = env.step(env.sample_actions())
    assert np.shares_memory(obs["markers"], obs2["markers"])
    assert not rewards.flags.writeable


def test_unpack_masks_matches_bool_masks() -> None:
    packed = CardVectorEnv(5, 3, seed=2, mask="packed")
    full = CardVectorEnv(5, 3, seed=2)
    packed.reset()
    full.reset()
    for _ in range(30):
        assert packed.masks is not None and packed.masks.dtype == np.uint32
        assert full.masks is not None and full.masks.dtype == np.bool_
        assert np.array_equal(packed.unpack_masks(), full.masks)
        assert np.array_equal(unpack_masks(packed.masks), full.unpack_masks())
        a = full.sample_actions()
        packed.step(a)
        full.step(a)
    with pytest.raises(GenialError, match="uint32"):
        unpack_masks(np.zeros(2, dtype=np.uint8))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_envs": 0}, "n_envs must be in"),
        ({"n_envs": 2.5}, "n_envs must be an int"),
        ({"n_envs": 2, "rules": 5}, "2, 3 or 4 players"),
        ({"n_envs": 2, "rules": "2"}, "card rules"),
        ({"n_envs": 2, "mask": "bits"}, "mask must be"),
        ({"n_envs": 2, "max_turns": 0}, "max_turns must be in"),
        ({"n_envs": 2, "seed": "x"}, "seed"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(GenialError, match=message):
        CardVectorEnv(**kwargs)


def test_bad_calls() -> None:
    env = CardVectorEnv(3, 2, seed=1)
    with pytest.raises(GenialError, match="reset"):
        env.step(np.zeros(3, dtype=np.int32))
    with pytest.raises(GenialError, match="reset"):
        env.sample_actions()
    with pytest.raises(GenialError, match="reset"):
        env.game(0)
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
    none = CardVectorEnv(2, 2, seed=1, mask="none")
    none.reset()
    assert none.masks is None and "action_mask" not in none.info
    with pytest.raises(GenialError, match="no masks"):
        none.unpack_masks()
    out = np.empty(2, dtype=np.int32)
    assert none.sample_actions(out) is out
    assert repr(none) == "CardVectorEnv(2, rules='c2', mask='none', max_turns=None)"


def test_pickle_and_copy_continue_identically() -> None:
    env = CardVectorEnv(5, 3, seed=12, mask="packed", max_turns=40)
    assert pickle.loads(pickle.dumps(env)).n_envs == 5  # not started: nothing to copy
    env.reset()
    for _ in range(37):
        env.step(env.sample_actions())
    twin = pickle.loads(pickle.dumps(env))
    other = env.copy()
    for _ in range(120):
        a = env.sample_actions().copy()
        assert np.array_equal(a, twin.sample_actions())
        assert np.array_equal(a, other.sample_actions())
        out = env.step(a)
        for e in (twin, other):
            got = e.step(a)
            assert all(np.array_equal(out[0][k], got[0][k]) for k in out[0])
            assert all(np.array_equal(x, y) for x, y in zip(out[1:4], got[1:4], strict=True))
            assert all(np.array_equal(out[4][k], got[4][k]) for k in out[4])
