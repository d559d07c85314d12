"""The PettingZoo environments (``genial.integrations.pettingzoo``, docs/rl.md): PettingZoo's own
``api_test`` and ``seed_test`` for every player count, variant and the card game; the spaces;
the observation layout read back against the game; what an agent cannot see; turns with bonus
plays and swaps; rewards from hand-made end positions; truncation; errors; the example script.
Colours: R G B O Y P = 0..5."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import genial
from genial import GenialError, IllegalMoveError, Move, Position, Rules
from genial.board.geometry import SYMBOLS, area
from genial.board.moves import tile_id
from genial.cards import ACTION_SIZE as CARD_ACTION_SIZE
from genial.cards import CardGame, CardMove, CardPosition, CardRules
from genial.integrations.pettingzoo import (
    BOARD_CELLS,
    BoardEnv,
    CardEnv,
    env,
    ranking_rewards,
    raw_env,
)

R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pettingzoo_random_vs_greedy.py"

# api_test warns about two things every environment with PettingZoo's own action-mask
# convention (a Dict observation of "observation" and "action_mask") does, unless its name is on
# the test's list of PettingZoo's classic games: the observation is a dict, not an array, and
# its space is a Dict, not a Box. Both are the documented convention, so only these two are
# ignored; any other warning still fails the test (filterwarnings = error).
IGNORE_DICT_OBSERVATION = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array:UserWarning"
)
IGNORE_DICT_SPACE = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably should be gymnasium.spaces.box:UserWarning"
)

BOARD_RULES = ["1", "1v", "2", "3", "4", "4t", "2T", "2v", "2Tv"]
CARD_PLAYERS = [2, 3, 4]
ALL = [("board", r) for r in BOARD_RULES] + [("cards", p) for p in CARD_PLAYERS]


def random_episode(e: Any, seed: int, on_step: Any = None) -> int:
    """Play an episode with uniformly random legal actions; ``on_step(e)`` after each action.
    Returns the number of actions."""
    rng = np.random.default_rng(seed)
    actions = 0
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, f"{agent} is to move with no legal action"
        e.step(int(rng.choice(legal)))
        actions += 1
        if on_step is not None:
            on_step(e)
    return actions


def field(e: Any, obs: dict[str, np.ndarray], name: str) -> list[int]:
    out: list[int] = obs["observation"][e.unwrapped.layout[name]].tolist()
    return out


# -- PettingZoo's own tests ------------------------------------------------------------------------


@IGNORE_DICT_OBSERVATION
@IGNORE_DICT_SPACE
@pytest.mark.parametrize(("game", "players"), ALL)
def test_api_test(game: str, players: Any) -> None:
    api_test(env(game, players), num_cycles=1000, verbose_progress=False)


@pytest.mark.parametrize(("game", "players"), ALL)
def test_seed_test(game: str, players: Any) -> None:
    seed_test(lambda: env(game, players), num_cycles=500)


@IGNORE_DICT_OBSERVATION
@IGNORE_DICT_SPACE
def test_api_test_with_a_turn_cap() -> None:
    """Truncated episodes pass too (the board game cut after 3 turns, the card game after 2)."""
    api_test(env("board", 2, max_turns=3), num_cycles=100)
    api_test(env("cards", 3, max_turns=2), num_cycles=100)


# -- spaces ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), ALL)
def test_spaces_are_fixed_and_returned_as_the_same_object(game: str, players: Any) -> None:
    e = raw_env(game, players)
    size = genial.ACTION_SIZE if game == "board" else CARD_ACTION_SIZE
    for agent in e.possible_agents:
        assert e.action_space(agent) is e.action_space(agent)
        assert e.observation_space(agent) is e.observation_space(agent)
        assert e.action_space(agent) == spaces.Discrete(size)
        space = e.observation_space(agent)
        assert isinstance(space, spaces.Dict)
        assert space["action_mask"] == spaces.Box(0, 1, (size,), np.int8)
        assert space["observation"].dtype == np.int8
    # agents have equal, but separate, spaces (seeding one does not seed another)
    a, b = e.possible_agents[0], e.possible_agents[-1]
    assert e.observation_space(a) == e.observation_space(b)
    if a != b:
        assert e.action_space(a) is not e.action_space(b)
    e.reset(seed=1)
    assert e.action_space(a) is e.action_spaces[a]  # reset keeps them


def test_board_observation_size_is_the_documented_layout() -> None:
    # docs/rl.md: 7 planes x 169 cells, 21 rack counts, then per seat: rack size, 6 scores,
    # seat and to-move one-hots (4 per seat in all), and bag size, 3 phases, bonus plays
    for players in (1, 2, 3, 4):
        e = BoardEnv(players)
        assert e.observation_space("player_0")["observation"].shape == (
            7 * 169 + 21 + 9 * players + 5,
        )
    # cards: 15 hand counts; per seat a hand size, (display + 1) slots x 15, 6 markers, two
    # one-hots; deck, discard, 3 phases, bonus turns
    for players, display in ((2, 2), (3, 1), (4, 1)):
        e2 = CardEnv(players)
        assert e2.observation_space("player_0")["observation"].shape == (
            15 + players * (1 + (display + 1) * 15 + 6 + 2) + 6,
        )


# -- the observation, read back against the game --------------------------------------------------


def check_board_observation(e: Any) -> None:
    """Every field of every agent's observation against the game (a copy: e.game)."""
    game = e.unwrapped.game
    rules = game.rules
    board = game.board
    covered = {**board, **{cell: c for c, cell in enumerate(SYMBOLS)}}
    inside = set(area(rules.radius))
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        assert e.observation_space(agent).contains(obs)
        planes = np.array(field(e, obs, "board")).reshape(7, len(BOARD_CELLS))
        for i, cell in enumerate(BOARD_CELLS):
            expected = [int(covered.get(cell) == c) for c in range(6)]
            expected.append(int(cell in inside and cell not in covered))
            assert planes[:, i].tolist() == expected, cell
        counts = [0] * 21
        for t in game.rack(seat):
            counts[tile_id(t)] += 1
        assert field(e, obs, "rack") == counts
        assert field(e, obs, "rack_sizes") == [len(game.rack(q)) for q in range(rules.players)]
        assert field(e, obs, "scores") == game.scores.reshape(-1).tolist()
        assert field(e, obs, "bag_size") == [game.bag_size]
        assert field(e, obs, "phase") == [int(game.phase == ph) for ph in ("place", "swap", "over")]
        assert field(e, obs, "bonus_plays") == [game.bonus_plays]
        assert field(e, obs, "seat") == [int(q == seat) for q in range(rules.players)]
        assert field(e, obs, "to_move") == [
            int(q == game.current_player) for q in range(rules.players)
        ]
        mask = obs["action_mask"]
        if seat == game.current_player and not game.is_over:
            assert np.flatnonzero(mask).tolist() == game.legal_actions().tolist()
        else:
            assert not mask.any()


@pytest.mark.parametrize("rules", ["2", "3", "4t", "1", "2Tv"])
def test_board_observation_matches_the_game_through_a_whole_game(rules: str) -> None:
    e = raw_env("board", rules)
    e.reset(seed=11)
    check_board_observation(e)
    random_episode(e, 11, on_step=check_board_observation)


def check_card_observation(e: Any) -> None:
    game = e.unwrapped.game
    n = game.players
    slots = game.rules.display_size + 1
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        assert e.observation_space(agent).contains(obs)
        counts = [0] * 15
        for c in game.hand(seat):
            counts[genial.cards.CARDS.index(c)] += 1
        assert field(e, obs, "hand") == counts
        assert field(e, obs, "hand_sizes") == [len(game.hand(q)) for q in range(n)]
        displays = np.array(field(e, obs, "displays")).reshape(n, slots, 15)
        for q in range(n):
            shown = game.display(q)
            for j in range(slots):
                expected = [0] * 15
                if j < len(shown):
                    expected[genial.cards.CARDS.index(shown[j])] = 1
                assert displays[q, j].tolist() == expected, (q, j)
        assert field(e, obs, "markers") == game.scores.reshape(-1).tolist()
        assert field(e, obs, "deck_size") == [game.deck_size]
        assert field(e, obs, "discard_size") == [game.discard_size]
        assert field(e, obs, "phase") == [int(game.phase == ph) for ph in ("play", "swap", "over")]
        assert field(e, obs, "bonus_turns") == [game.bonus_turns]
        assert field(e, obs, "seat") == [int(q == seat) for q in range(n)]
        assert field(e, obs, "to_move") == [int(q == game.current_player) for q in range(n)]
        mask = obs["action_mask"]
        if seat == game.current_player and not game.is_over:
            assert np.flatnonzero(mask).tolist() == game.legal_actions().tolist()
        else:
            assert not mask.any()


@pytest.mark.parametrize("players", CARD_PLAYERS)
def test_card_observation_matches_the_game_through_a_whole_game(players: int) -> None:
    e = raw_env("cards", players)
    e.reset(seed=5)
    check_card_observation(e)
    random_episode(e, 5, on_step=check_card_observation)


def test_observations_are_fresh_arrays() -> None:
    e = raw_env("board", 2)
    e.reset(seed=1)
    first = e.observe("player_0")
    kept = first["observation"].copy()
    e.step(int(np.flatnonzero(first["action_mask"])[0]))
    assert np.array_equal(first["observation"], kept)  # the step did not write into it
    assert not np.array_equal(e.observe("player_0")["observation"], kept)


# -- what an agent cannot see ----------------------------------------------------------------------


def board_position(rules: Rules, racks: list[list[str]], **changes: Any) -> Position:
    """An empty board with these racks and every other tile in the bag."""
    tiles = [[genial.board.moves.parse_tile(t) for t in rack] for rack in racks]
    bag = list(rules.tile_counts)
    for rack in tiles:
        for t in rack:
            bag[tile_id(t)] -= 1
    return Position.empty(rules).replace(
        racks=tuple(tuple(r) for r in tiles), bag=tuple(bag), **changes
    )


def test_board_observation_hides_the_other_racks_and_the_bag() -> None:
    rules = Rules(3)
    mine = ["RR", "RG", "GB", "OY", "YP", "PP"]
    a = board_position(
        rules, [mine, ["RB", "RB", "GO", "GO", "BB", "YY"], ["OO", "OO", "OP", "OP", "RY", "RY"]]
    )
    # player 1 holds other tiles (and so the bag holds others): player 0 sees nothing change
    b = board_position(
        rules, [mine, ["GG", "GG", "GG", "BO", "BO", "PP"], ["OO", "OO", "OP", "OP", "RY", "RY"]]
    )
    ea, eb = raw_env("board", rules), raw_env("board", rules)
    ea.reset(seed=1, options={"position": a.to_text()})
    eb.reset(seed=1, options={"position": b})
    for agent in ("player_0", "player_2"):
        oa, ob = ea.observe(agent), eb.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
    # ... while player 1's own view does change (the test can fail)
    assert not np.array_equal(
        ea.observe("player_1")["observation"], eb.observe("player_1")["observation"]
    )


def test_card_observation_hides_the_other_hands_and_the_deck() -> None:
    rules = CardRules(3)
    displays = [["RG"], ["BO"], ["YP"]]
    mine = ["RB", "RB", "GO", "GY", "OP", "YP"]
    a = CardPosition.build(
        rules,
        hands=[mine, ["RO"] * 4 + ["GB"] * 2, ["BY", "BY", "BY", "OY", "OY", "OY"]],
        displays=displays,
    )
    b = CardPosition.build(
        rules,
        hands=[mine, ["RY"] * 4 + ["GP"] * 2, ["BY", "BY", "BY", "OY", "OY", "OY"]],
        displays=displays,
    )
    ea, eb = raw_env("cards", rules), raw_env("cards", rules)
    ea.reset(seed=1, options={"position": a})
    eb.reset(seed=1, options={"position": b.to_text()})
    for agent in ("player_0", "player_2"):
        assert np.array_equal(ea.observe(agent)["observation"], eb.observe(agent)["observation"])
    assert not np.array_equal(
        ea.observe("player_1")["observation"], eb.observe("player_1")["observation"]
    )


# -- turns: bonus plays and swaps are ordinary steps of the same agent ----------------------------


@pytest.mark.parametrize("game", ["board", "cards"])
def test_bonus_plays_and_swaps_keep_the_agent(game: str) -> None:
    seen = {"bonus": 0, "swap": 0}
    for seed in range(30):
        e = raw_env(game, 2)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while e.agents:
            agent = e.agent_selection
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            # greedy play (which swaps whenever allowed) earns bonus plays; a random move now
            # and then varies the games
            e.step(e.unwrapped.choose("greedy") if rng.random() < 0.9 else int(rng.choice(legal)))
            g = e.unwrapped.game
            assert e.agent_selection == f"player_{g.current_player}"
            if g.is_over:
                continue
            owed = g.bonus_plays if game == "board" else g.bonus_turns
            if owed or g.phase == "swap":
                assert e.agent_selection == agent  # the same agent plays on
                seen["bonus" if owed else "swap"] += 1
    assert seen["bonus"] > 0 and seen["swap"] > 0, seen


# -- rewards ---------------------------------------------------------------------------------------


def test_ranking_rewards() -> None:
    # (below - above) / (n - 1): a sole winner +1, a sole loser -1, ties equal, the sum 0
    assert ranking_rewards([0, 1]) == [1.0, -1.0]
    assert ranking_rewards([1, 0]) == [-1.0, 1.0]
    assert ranking_rewards([0, 0]) == [0.0, 0.0]
    assert ranking_rewards([0, 0, 2]) == [0.5, 0.5, -1.0]  # 1 below, 0 above: 1/2
    assert ranking_rewards([2, 0, 1, 3]) == pytest.approx([-1 / 3, 1.0, 1 / 3, -1.0])
    assert ranking_rewards([0, 1, 1, 1]) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])
    with pytest.raises(GenialError):
        ranking_rewards([0])


def finish(e: Any, action: int) -> dict[str, float]:
    """Play ``action``, which must end the game, and return each agent's reward from last()."""
    e.step(action)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    out = {}
    while e.agents:
        agent = e.agent_selection
        obs, reward, terminated, _, info = e.last()
        assert terminated and not obs["action_mask"].any()
        assert info["rank"] == e.unwrapped.game.ranks()[int(agent[-1])]
        out[agent] = reward
        e.step(None)
    return out


def instant_win_action(position: Position) -> int:
    """A placement of player 0's purple double next to the purple symbol: it scores purple."""
    game = genial.Game.from_position(position)
    return next(m.action for m in game.legal_moves() if m.tile == (P, P) and game.gains(m)[0] > 0)


def test_rewards_of_an_instant_win_with_two_players() -> None:
    # RULES §3.6: six counters at 18 win at once; player 0 is at 18 everywhere but purple (17)
    # and places purple next to the purple symbol: player 0 ranks first alone (+1), player 1 -1
    pos = board_position(
        Rules(2), [["PP"], ["RR"]], scores=((18, 18, 18, 18, 18, 17), (5, 5, 5, 5, 5, 5))
    )
    e = raw_env("board", 2)
    e.reset(options={"position": pos})
    assert finish(e, instant_win_action(pos)) == {"player_0": 1.0, "player_1": -1.0}


def test_rewards_share_a_tied_place() -> None:
    # 3 players: player 0 wins at once (as above); players 1 and 2 have equal counters, so they
    # share second place (RULES §3.7): 0 below and 1 above each, (0 - 1) / 2 = -0.5
    pos = board_position(
        Rules(3),
        [["PP"], ["RR"], ["GG"]],
        scores=((18, 18, 18, 18, 18, 17), (3, 4, 5, 6, 7, 8), (8, 7, 6, 5, 4, 3)),
    )
    e = raw_env("board", 3)
    e.reset(options={"position": pos})
    rewards = finish(e, instant_win_action(pos))
    assert rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_team_rewards_go_to_both_partners() -> None:
    # RULES §4.2: a team with all six at 36 wins at once; seats 0 and 2 share counters at 36
    # but purple (35): player 0's purple placement wins for the team (+1 each), 1 and 3 get -1
    winners = (36, 36, 36, 36, 36, 35)
    losers = (20, 20, 20, 20, 20, 20)
    pos = board_position(
        Rules(4, teams=True),
        [["PP"], ["RR"], ["GG"], ["BB"]],
        scores=(winners, losers, winners, losers),
    )
    e = raw_env("board", "4t")
    e.reset(options={"position": pos})
    rewards = finish(e, instant_win_action(pos))
    assert rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}


def test_solo_reward_is_the_lowest_counter_over_the_cap() -> None:
    e = raw_env("board", 1)
    e.reset(seed=4)
    random_episode(e, 4)
    game = e.unwrapped.game
    assert game.is_over
    # docs/rl.md: solo (RULES §4.1, higher is better) rewards lowest counter / 36
    assert e.unwrapped.final_rewards == [min(game.scores[0].tolist()) / 36]


def test_card_rewards_of_an_instant_win() -> None:
    # RULES §5.7: all six markers at 7 or more win at once. Player 0 has 7 everywhere but purple
    # (6) and plays PR scoring purple first: player 1's display YP shows purple once, 6 -> 7.
    # Players 1 and 2 have equal markers and share second place: -0.5 each.
    pos = CardPosition.build(
        CardRules(3),
        hands=[["RP", "GB"], ["RG"], ["RB"]],
        displays=[["GB"], ["YP"], ["GO"]],
        markers=[[7, 7, 7, 7, 7, 6], [2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2]],
    )
    e = raw_env("cards", 3)
    e.reset(options={"position": pos})
    rewards = finish(e, CardMove.parse("PR").action)
    assert rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


@pytest.mark.parametrize("game", ["board", "cards"])
def test_rewards_come_once_at_the_end_and_sum_to_zero(game: str) -> None:
    e = raw_env(game, 3)
    e.reset(seed=8)
    paid: dict[str, float] = dict.fromkeys(e.possible_agents, 0.0)
    rng = np.random.default_rng(8)
    while e.agents:
        agent = e.agent_selection
        obs, reward, terminated, truncated, _ = e.last()
        paid[agent] += reward
        if not (terminated or truncated):
            assert reward == 0.0
        e.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    final = e.unwrapped.final_rewards
    assert [paid[a] for a in e.possible_agents] == final
    assert final == ranking_rewards(e.unwrapped.game.ranks().tolist())
    assert sum(final) == pytest.approx(0.0)


# -- truncation ------------------------------------------------------------------------------------


def test_card_game_truncates_at_its_turn_cap() -> None:
    e = raw_env("cards", 3, max_turns=4)
    assert e.rules == CardRules(3, turn_cap=4)
    e.reset(seed=2)
    turns_seen = {e.unwrapped.game.turn}
    random_episode(e, 2, on_step=lambda e: turns_seen.add(e.unwrapped.game.turn))
    game = e.unwrapped.game
    # four turns played (RULES §5.7 Decision: the cap takes effect after the fourth's refill)
    assert game.truncated and turns_seen == {1, 2, 3, 4}
    assert e.unwrapped.final_rewards == ranking_rewards(game.ranks().tolist())


def test_board_game_truncates_after_max_turns() -> None:
    e = raw_env("board", 2, max_turns=3)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    turns_seen = set()
    while not any(e.truncations.values()):
        obs = e.observe(e.agent_selection)
        turns_seen.add(e.unwrapped.game.turn)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = e.unwrapped.game
    # three turns done, the fourth started: every agent truncated, none terminated
    assert turns_seen == {1, 2, 3} and game.turn == 4 and not game.is_over
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert not e.observe(e.agent_selection)["action_mask"].any()
    assert e.unwrapped.final_rewards == ranking_rewards(game.ranks().tolist())
    while e.agents:
        e.step(None)


# -- seeding ---------------------------------------------------------------------------------------


def trajectory(e: Any, seed: int | None, steps: int = 30) -> list[bytes]:
    if seed is not None:
        e.reset(seed=seed)
    else:
        e.reset()
    out = []
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs = e.observe(e.agent_selection)
        out.append(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("game", ["board", "cards"])
def test_reset_with_a_seed_is_reproducible(game: str) -> None:
    a, b = raw_env(game, 2), raw_env(game, 2)
    first = trajectory(a, 7)
    assert trajectory(b, 7) == first
    assert trajectory(a, 8) != first
    # a reset without a seed starts the next game of the seed's stream: another game, the same
    # one in every environment seeded alike
    after_a = trajectory(a, None)
    trajectory(b, 8)
    assert trajectory(b, None) == after_a
    assert after_a != trajectory(a, 8)


def test_reset_seed_plays_the_game_of_that_seed() -> None:
    e = raw_env("board", 3)
    e.reset(seed=42)
    assert e.unwrapped.game == genial.Game(3, seed=42)
    c = raw_env("cards", 3)
    c.reset(seed=42)
    assert c.unwrapped.game == CardGame(3, seed=42)


# -- the game, choose, render ----------------------------------------------------------------------


def test_game_is_a_copy_and_choose_is_a_legal_policy_move() -> None:
    e = raw_env("board", 2)
    e.reset(seed=3)
    copy = e.game
    copy.play(copy.choose("greedy"))
    assert e.game == genial.Game(2, seed=3)  # playing on the copy left the env's game alone
    action = e.choose("greedy")
    assert e.game.is_legal(action)


def test_render() -> None:
    e = raw_env("board", 2, render_mode="ansi")
    e.reset(seed=1)
    assert e.render() == str(genial.Game(2, seed=1))
    h = raw_env("cards", 2, render_mode="human")
    h.reset(seed=1)
    assert h.render() is None
    h.close()


def test_render_without_a_mode_warns_and_draws_nothing() -> None:
    e = raw_env("board", 2)
    e.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e.render() is None


def test_render_prints_in_human_mode(capsys: pytest.CaptureFixture[str]) -> None:
    h = raw_env("cards", 2, render_mode="human")
    h.reset(seed=1)
    h.render()
    assert capsys.readouterr().out == str(CardGame(2, seed=1)) + "\n"


# -- errors ----------------------------------------------------------------------------------------


def test_illegal_actions_raise_and_change_nothing() -> None:
    e = raw_env("board", 2)
    e.reset(seed=1)
    before = e.observe("player_0")
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    for bad in (illegal, -1, genial.ACTION_SIZE, None, "R1,-5+R0,-4", 1.0, True):
        with pytest.raises(IllegalMoveError):
            e.step(bad)
        assert e.agent_selection == "player_0"
        after = e.observe("player_0")
        assert np.array_equal(after["observation"], before["observation"])
        assert np.array_equal(after["action_mask"], before["action_mask"])
    e.step(np.int32(np.flatnonzero(before["action_mask"])[0]))  # numpy ints are actions


def test_finished_agents_are_stepped_with_none() -> None:
    e = raw_env("cards", 2)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    while not any(e.terminations.values()):
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(IllegalMoveError, match="None"):
        e.step(0)
    e.step(None)
    e.step(None)
    assert e.agents == []
    with pytest.raises(GenialError, match="reset"):
        e.step(0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: raw_env("chess"),
        lambda: raw_env("board", 5),
        lambda: raw_env("cards", 1),
        lambda: raw_env("board", 2, render_mode="rgb_array"),
        lambda: raw_env("board", 2, max_turns=0),
        lambda: raw_env("board", 2, max_turns=2.5),
        lambda: raw_env("cards", rules="c3:50", max_turns=20),
    ],
)
def test_bad_arguments_raise(make: Any) -> None:
    with pytest.raises(GenialError):
        make()


def test_bad_agents_positions_and_order_raise() -> None:
    e = raw_env("board", 2)
    with pytest.raises(GenialError, match="reset"):
        e.observe("player_0")
    with pytest.raises(GenialError, match="unknown agent"):
        e.action_space("player_2")
    with pytest.raises(GenialError, match="unknown agent"):
        e.observation_space(0)
    with pytest.raises(GenialError, match="3 game"):
        e.reset(options={"position": genial.Game(3, seed=1).to_text()})
    with pytest.raises(GenialError, match="position"):
        e.reset(options={"position": 12})
    over = genial.Game(2, seed=1)
    while not over.is_over:
        over.play(over.choose("random"))
    with pytest.raises(GenialError, match="over"):
        e.reset(options={"position": over.to_text()})
    with pytest.raises(genial.PositionError):
        e.reset(options={"position": "2 nonsense"})
    e.reset(seed=1, options={"ignored": True})  # other options are ignored (api_test passes one)
    assert e.agents == ["player_0", "player_1"]
    with pytest.raises(GenialError, match=r"cards\.CardPosition"):
        raw_env("cards", 3).reset(options={"position": Move.parse("swap")})


WRAPPINGS = [pytest.param(env, id="env"), pytest.param(raw_env, id="raw_env")]


@pytest.mark.parametrize("make", WRAPPINGS)
@pytest.mark.parametrize(
    ("game", "players"),
    [("board", 2), ("board", 3), ("board", 4), ("cards", 2), ("cards", 3), ("cards", 4)],
)
@pytest.mark.parametrize("options", [[1], "position", ("position", 1), 0])
def test_options_that_are_not_a_dict_are_refused(
    make: Any, game: str, players: int, options: Any
) -> None:
    """reset(options=[1]) is a GenialError (options are a dict or None), before or after a
    first reset, and the environment is as it was: the same agent, the same observation, the
    same next game."""
    e = make(game, players)
    with pytest.raises(GenialError, match=r"options must be a dict \(or None\), got"):
        e.reset(options=options)
    with pytest.raises(GenialError, match="reset"):  # still never reset
        e.observe("player_0")
    e.reset(seed=3)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    before = (e.agent_selection, e.observe(e.agent_selection)["observation"].tobytes())
    with pytest.raises(GenialError, match="options must be a dict"):
        e.reset(seed=5, options=options)
    assert (e.agent_selection, e.observe(e.agent_selection)["observation"].tobytes()) == before
    e.reset()  # the next game of seed 3's stream, as without the refused call
    twin = make(game, players)
    twin.reset(seed=3)
    twin.reset()
    assert (
        e.observe(e.agent_selection)["observation"].tobytes()
        == twin.observe(twin.agent_selection)["observation"].tobytes()
    )


def play_until_done(e: Any, seed: int) -> None:
    """Random legal actions until the game is over (every agent terminated or truncated)."""
    rng = np.random.default_rng(seed)
    while not any(e.terminations.values()) and not any(e.truncations.values()):
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def episode_state(e: Any) -> tuple[Any, ...]:
    u = e.unwrapped
    return (
        list(u.agents),
        u.agent_selection,
        dict(u.rewards),
        dict(u._cumulative_rewards),
        dict(u.terminations),
        dict(u.truncations),
        {k: dict(v) for k, v in u.infos.items()},
        u.game.to_text(),
    )


@pytest.mark.parametrize("make", WRAPPINGS)
@pytest.mark.parametrize(
    ("game", "players", "max_turns"), [*[(*a, None) for a in ALL], ("board", 2, 3), ("cards", 3, 2)]
)
def test_stepping_a_finished_agent_with_an_action_is_an_illegal_move(
    make: Any, game: str, players: Any, max_turns: int | None
) -> None:
    """docs/rl.md: a finished agent is stepped with None; anything else (0 included, an id its
    all-zero mask does not allow) raises IllegalMoveError, naming why, and changes nothing."""
    e = make(game, players, max_turns=max_turns)
    e.reset(seed=4)
    play_until_done(e, 4)
    done = "truncated" if max_turns else "terminated"
    before = episode_state(e)
    for action in (0, np.int64(1), -1, "swap", 2.0):
        with pytest.raises(IllegalMoveError, match=rf"player_\d is {done}: step it with None"):
            e.step(action)
        assert episode_state(e) == before
    while e.agents:
        e.step(None)


@pytest.mark.parametrize("make", WRAPPINGS)
@pytest.mark.parametrize(("game", "players"), ALL)
def test_calls_before_reset_raise_genial_errors(make: Any, game: str, players: Any) -> None:
    """step, observe, last (with or without the observation), agent_iter and render before the
    first reset(): a GenialError saying to call reset(), wrapped or bare (PettingZoo's wrapper
    raised AssertionError, or AttributeError for last())."""
    e = make(game, players, render_mode="ansi")
    calls = [
        lambda: e.step(0),
        lambda: e.step(None),
        lambda: e.observe("player_0"),
        lambda: e.last(),
        lambda: e.last(observe=False),
        lambda: e.agent_iter(),
        lambda: e.render(),
    ]
    for call in calls:
        with pytest.raises(GenialError, match=r"call reset\(\) first"):
            call()
    e.reset(seed=1)  # and nothing was spoiled
    assert e.agent_selection == "player_0" and e.last()[1:4] == (0.0, False, False)


@pytest.mark.parametrize("make", WRAPPINGS)
@pytest.mark.parametrize(("game", "players"), ALL)
def test_last_and_step_after_the_episode_raise_genial_errors(
    make: Any, game: str, players: Any
) -> None:
    """Once every agent has been stepped with None (no agents left), last() and step() raise
    a GenialError saying the episode is over (last() raised KeyError; the wrapper's step only
    logged a warning); observe() still shows the final position; reset() starts again."""
    e = make(game, players)
    e.reset(seed=2)
    random_episode(e, 2)
    assert e.agents == []
    for call in (e.last, lambda: e.last(observe=False), lambda: e.step(None), lambda: e.step(0)):
        with pytest.raises(GenialError, match=r"the episode is over: .* call reset\(\)"):
            call()
    assert not e.observe("player_0")["action_mask"].any()
    e.reset(seed=3)
    assert e.last()[2:4] == (False, False)


def test_wrapped_env_enforces_the_order() -> None:
    """PettingZoo's own, documented in docs/rl.md: env()'s wrapper refuses reading the episode's
    attributes before reset() (AttributeError, which hasattr relies on; the bare environment
    has them empty); neither has a global state() (NotImplementedError)."""
    names = ["agents", "rewards", "terminations", "truncations", "infos", "agent_selection"]
    for game in ("board", "cards"):
        e = env(game)
        for name in [*names, "num_agents"]:
            with pytest.raises(AttributeError, match="before reset"):
                getattr(e, name)
        bare = raw_env(game)
        assert all(not getattr(bare, name) for name in names[:-1])
        for made in (e, bare):
            made.reset(seed=1)
            with pytest.raises(NotImplementedError):
                made.state()
        assert isinstance(e, OrderEnforcingWrapper)
    e = env("board", 2)
    e.reset(seed=1)
    assert str(e) == "genial_board_v0" and str(env("cards")) == "genial_cards_v0"


# -- the example -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_example_plays_random_against_greedy(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(seed)
    out = capsys.readouterr().out
    assert "player_0 (random)" in out and "player_1 (greedy)" in out
    rewards = result["rewards"]
    assert sorted(rewards) == ["player_0", "player_1"]
    assert sum(rewards.values()) == 0.0
    assert result["ranks"]["player_1"] == 0  # greedy beats random in these two games
    # replayed outside the environment: the steps are the game's moves, both agents took some
    assert result["steps"]["player_0"] > 10 and result["steps"]["player_1"] > 10
    cards = main(seed, game="cards", verbose=False)
    assert sum(cards["rewards"].values()) == 0.0
