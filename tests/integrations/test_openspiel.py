"""genial.integrations.openspiel: both games pass OpenSpiel's own random simulation test (every
player count and variant), their chance nodes are the exact piles (RULES §3.1, §3.5, §5.2,
§5.3), what a player is shown hides what RULES says it cannot see, and OpenSpiel's own ISMCTS and
MCTS bots play them through ``evaluate_bots``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402

import genial  # noqa: E402
from genial.cards import CardGame  # noqa: E402
from genial.errors import GenialError, IllegalMoveError  # noqa: E402
from genial.integrations.openspiel import GenialBot, load  # noqa: E402

CASES = [
    ("genial_board", {"players": 1}),
    ("genial_board", {"players": 2}),
    ("genial_board", {"players": 3}),
    ("genial_board", {"players": 4}),
    ("genial_board", {"rules": "4t"}),
    ("genial_board", {"rules": "2T"}),
    ("genial_board", {"rules": "2v"}),
    ("genial_board", {"rules": "1v"}),
    ("genial_board", {"rules": "2Tv"}),
    ("genial_cards", {"players": 2}),
    ("genial_cards", {"players": 3}),
    ("genial_cards", {"players": 4}),
]


def _chance(state, rng):
    """Resolve chance nodes by their own probabilities."""
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))


def _random_game(game, seed, stop=None):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        elif stop is not None and steps >= stop:
            break
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
    return state


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_random_sim_test(name, params):
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_game_types_and_infos():
    board = pyspiel.load_game("genial_board", {"players": 3})
    kind = board.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert board.num_distinct_actions() == genial.ACTION_SIZE == 15338
    assert board.max_chance_outcomes() == 21
    assert board.num_players() == 3
    assert board.observation_tensor_size() == 1236  # docs/rl.md: 3 players
    solo = load("genial_board", players=1)
    assert solo.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    cards = load("genial_cards", players=4)
    assert cards.num_distinct_actions() == 32
    assert cards.max_chance_outcomes() == 15
    assert cards.observation_tensor_size() == 177


def test_bad_parameters_are_genial_errors():
    with pytest.raises(GenialError, match="players must be"):
        pyspiel.load_game("genial_board", {"players": 7})
    with pytest.raises(GenialError, match="rules 'zz'"):
        pyspiel.load_game("genial_board", {"rules": "zz"})
    with pytest.raises(GenialError, match="unknown game"):
        load("chess")
    with pytest.raises(GenialError, match="team game is for 4 players"):
        pyspiel.load_game("genial_board", {"players": 2, "teams": True})
    with pytest.raises(GenialError, match="not both"):
        pyspiel.load_game("genial_board", {"rules": "2T", "tournament": True})


@pytest.mark.parametrize(
    ("params", "token"),
    [
        ({"players": 4, "teams": True}, "4t"),
        ({"players": 2, "tournament": True}, "2T"),
        ({"players": 2, "tiles": "travel"}, "2v"),
        ({"players": 1, "tiles": "travel"}, "1v"),
        ({"players": 2, "tournament": True, "tiles": "travel"}, "2Tv"),
        ({"rules": "4t"}, "4t"),
        ({"players": 3}, "3"),
    ],
)
def test_variants_as_parameters_or_one_token(params, token):
    """The board game's variants by keyword, as ``genial.Rules`` takes them, or as one token."""
    game = pyspiel.load_game("genial_board", params)
    assert game.genial_rules == genial.Rules.of(token)


def test_the_deal_is_chance_nodes_with_exact_probabilities():
    """RULES §3.1: 120 tiles, 6 of each two-colour tile and 5 of each double; the deal draws
    six for each seat in seat order, each draw from what is left."""
    game = pyspiel.load_game("genial_board", {"players": 2})
    state = game.new_initial_state()
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 21
    assert outcomes[0] == pytest.approx(5 / 120)  # RR, a double
    assert outcomes[1] == pytest.approx(6 / 120)  # RG
    state.apply_action(0)
    assert dict(state.chance_outcomes())[0] == pytest.approx(4 / 119)
    drawn = [0]
    for t in [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]:  # the fifth RR, then p0's sixth, p1's six
        state.apply_action(t)
        drawn.append(t)
        if t == 0 and drawn.count(0) == 5:
            assert 0 not in dict(state.chance_outcomes())  # no sixth RR
    assert not state.is_chance_node()
    tiles = genial.moves.TILES
    assert state.game.rack(0) == [tiles[t] for t in drawn[:6]]
    assert sorted(state.game.rack(1)) == sorted(tiles[t] for t in drawn[6:])
    with pytest.raises(IllegalMoveError, match="not in the pile"):
        game.new_initial_state().apply_action(21)


@pytest.mark.parametrize(("name", "params"), CASES[1:4] + CASES[9:], ids=str)
def test_chance_outcomes_are_the_pile(name, params):
    """Every chance node's outcomes sum to 1 and are the pile's counts (the bag, or the deck,
    RULES §5.3 reshuffle included), for a whole random game."""
    game = pyspiel.load_game(name, params)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert all(p > 0 for _, p in outcomes)
            if state.game is not None and state.game.current_player is not None:
                pile = (
                    state.game.bag_size
                    if name == "genial_board"
                    else state.game.deck_size or state.game.discard_size
                )
                assert pile > 0
            actions, probs = zip(*outcomes, strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            nodes += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert nodes > 12
    assert sum(state.returns()) == pytest.approx(0.0)


def test_the_game_is_the_genial_game():
    """The moves and draws of an OpenSpiel game replay as a genial record to the same end."""
    game = pyspiel.load_game("genial_board", {"players": 2})
    state = _random_game(game, 5)
    record = state.game.to_record()
    again = genial.Game.from_record(record)
    assert again.to_text() == state.game.to_text()
    assert again.is_over
    ranks = again.ranks().tolist()
    expect = [1.0, -1.0] if ranks == [0, 1] else [-1.0, 1.0] if ranks == [1, 0] else [0.0, 0.0]
    assert state.returns() == expect  # RULES §3.7


def test_card_game_returns_rank_the_instant_winner():
    game = pyspiel.load_game("genial_cards", {"players": 3})
    state = _random_game(game, 2)
    ranks = state.game.ranks().tolist()
    returns = state.returns()
    assert sum(returns) == pytest.approx(0.0)
    best = ranks.index(0)
    assert returns[best] == max(returns) > 0
    assert isinstance(state.game, CardGame)


@pytest.mark.parametrize("name", ["genial_board", "genial_cards"])
def test_what_a_player_sees_hides_the_rest(name):
    """RULES §3.1/§5.2: racks and hands are hidden; a redeal of what seat 0 cannot see leaves
    its information state, observation string and tensor unchanged, and changes the others."""
    game = pyspiel.load_game(name, {"players": 2})
    state = _random_game(game, 7, stop=6)
    me = state.current_player()
    other = 1 - me
    info = state.information_state_string(me)
    assert "?" in info  # the other seat's draws
    mine = state.game.rack(me) if name == "genial_board" else state.game.hand(me)
    theirs = state.game.rack(other) if name == "genial_board" else state.game.hand(other)
    view = state.observation_string(me)
    assert view.count("?") == len(theirs)
    changed = 0
    for seed in range(5):
        sampled = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert sampled.information_state_string(me) == info
        assert sampled.observation_string(me) == view
        assert sampled.observation_tensor(me) == state.observation_tensor(me)
        assert sampled.legal_actions() == state.legal_actions()
        got = sampled.game.rack(me) if name == "genial_board" else sampled.game.hand(me)
        assert got == mine
        other_hand = (
            sampled.game.rack(other) if name == "genial_board" else sampled.game.hand(other)
        )
        assert len(other_hand) == len(theirs)
        changed += sorted(other_hand) != sorted(theirs)
        del seed
    assert changed >= 3
    with pytest.raises(GenialError, match="decision nodes"):
        game.new_initial_state().resample_from_infostate(0, None)


def test_a_swap_decision_is_public_and_its_draws_private():
    """RULES §3.5: the swap is a decision of the same player; the new tiles only it sees."""
    game = pyspiel.load_game("genial_board", {"players": 2})
    rng = np.random.default_rng(0)
    for seed in range(200):
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
                continue
            legal = state.legal_actions()
            if genial.moves.ACTION_SWAP in legal:
                mover = state.current_player()
                state.apply_action(genial.moves.ACTION_SWAP)
                assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
                _chance(state, rng)
                lines = state.information_state_string(1 - mover).splitlines()
                assert lines[-7] == f"p{mover} swap"
                assert lines[-6:] == [f"p{mover} draws ?"] * 6
                mine = state.information_state_string(mover).splitlines()
                assert "?" not in "".join(mine[-6:])
                return
            state.apply_action(int(rng.choice(legal)))
    pytest.fail("no swap decision in 200 random games")


def test_illegal_actions_raise_and_change_nothing():
    game = pyspiel.load_game("genial_board", {"players": 2})
    state = _random_game(game, 1, stop=0)
    before = (str(state), state.history(), state.information_state_string(0))
    with pytest.raises(IllegalMoveError, match="keep is not allowed"):
        state.apply_action(genial.moves.ACTION_KEEP)
    with pytest.raises(IllegalMoveError, match="outside"):
        state.apply_action(-3)
    assert (str(state), state.history(), state.information_state_string(0)) == before


def test_clone_and_serialisation_go_through_genial():
    game = pyspiel.load_game("genial_cards", {"players": 3})
    state = _random_game(game, 4, stop=10)
    state.apply_action(state.legal_actions()[0])  # perhaps waiting for its draws
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state)
    assert again.history() == state.history()
    for p in range(3):
        assert again.information_state_string(p) == state.information_state_string(p)
    clone = state.clone()
    _random_game_from(clone, 9)
    assert str(state) == str(again)  # the clone is independent
    data = pickle.loads(pickle.dumps(state._held))
    assert data.game.to_text() == state.game.to_text()


def _random_game_from(state, seed):
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            _chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


class _ISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTSBot with the two calls ``evaluate_bots`` makes of every bot
    (the class leaves them to C++, which refuses: it keeps no state between moves)."""

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass


class _MCTS(mcts.MCTSBot):
    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass


def _ismcts(game, sims, seed):
    rs = np.random.RandomState(seed)
    bot = _ISMCTS(
        game,
        mcts.RandomRolloutEvaluator(1, rs),
        2.0,
        sims,
        random_state=rs,
        allow_inconsistent_action_sets=True,  # another seat's racks differ between worlds
    )
    # OpenSpiel's default resampler draws from a sampler seeded by the OS: seeded here instead,
    # so that the games replay
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.uniform))
    return bot


@pytest.mark.slow
def test_ismcts_beats_uniform_random_on_the_board():
    """The issue's bar: ISMCTS with 100 random-rollout simulations wins at least 8 of 10
    two-player board games against OpenSpiel's uniform random bot, seats alternated."""
    game = pyspiel.load_game("genial_board", {"players": 2})
    wins = 0
    for i in range(10):
        seat = i % 2
        bots = [None, None]
        bots[seat] = _ismcts(game, 100, i)
        bots[1 - seat] = pyspiel.make_uniform_random_bot(1 - seat, 100 + i)
        returns = evaluate_bots.evaluate_bots(
            game.new_initial_state(), bots, np.random.RandomState(1000 + i)
        )
        wins += returns[seat] > 0
    assert wins >= 8


@pytest.mark.parametrize("name", ["genial_board", "genial_cards"])
def test_openspiel_bots_play_both_games(name):
    """ISMCTS, MCTS (random rollouts) and genial's own policy through ``evaluate_bots``."""
    game = pyspiel.load_game(name, {"players": 2})
    rs = np.random.RandomState(0)
    bots = [_ismcts(game, 10, 1), _MCTS(game, 2.0, 5, mcts.RandomRolloutEvaluator(1, rs))]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    bots = [GenialBot("greedy", seed=3), pyspiel.make_uniform_random_bot(1, 4)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_genial_bot_uses_its_own_stream():
    game = pyspiel.load_game("genial_board", {"players": 2})
    state = _random_game(game, 3, stop=0)
    picks = {GenialBot("random", seed=s).step(state) for s in range(8)}
    assert len(picks) > 1
    assert GenialBot("mc:20", seed=1).step(state) == GenialBot("mc:20", seed=1).step(state)
    with pytest.raises(GenialError, match="decision node"):
        GenialBot().step(game.new_initial_state())


def test_the_docs_examples_run():
    """The Python blocks of docs/openspiel.md run as written."""
    from ..docs import run_examples

    result = run_examples("openspiel.md")
    assert result.attempted >= 10 and result.failed == 0
