"""The kernel's playout policies (genial.simulate's docs): what they choose and how uniformly."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import genial
from genial import Game, Move


def chi_square_ok(counts: list[int], expected: list[float]) -> bool:
    """A chi-square goodness-of-fit test at the 1e-4 level (normal approximation)."""
    stat = sum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))
    dof = len(counts) - 1
    return stat < dof + 5.0 * (2 * dof) ** 0.5 + 10  # about 4 standard deviations


def sample(game: Game, policy: str, n: int) -> Counter[Move]:
    return Counter(game.choose(policy) for _ in range(n))


@pytest.mark.parametrize("tournament", [False, True])
def test_random_first_placement_is_uniform(tournament: bool) -> None:
    """A uniformly random rack slot, a uniformly random allowed pair of cells (RULES §3.2, or
    §4.3 under tournament rules: touching a symbol or the first tile), a random way round."""
    game = Game(2, seed=4, tournament=tournament)
    game.play(game.choose("greedy"))
    if game.phase == "swap":
        game.play("keep")
    legal = game.legal_moves()
    pairs = sorted({m.cells for m in legal if m.cells is not None})
    picks = sample(game, "random", 30_000)
    assert set(picks) <= set(legal)
    by_pair = Counter(m.cells for m in picks.elements())
    assert chi_square_ok([by_pair[p] for p in pairs], [30_000 / len(pairs)] * len(pairs))
    rack = Counter(game.rack(game.current_player))
    by_tile = Counter(m.tile for m in picks.elements())
    assert chi_square_ok([by_tile[t] for t in rack], [30_000 * k / 6 for k in rack.values()])
    ways = Counter(
        m.colours[0] < m.colours[1] for m in picks.elements() if len(set(m.colours)) == 2
    )  # type: ignore[arg-type]
    assert chi_square_ok([ways[True], ways[False]], [ways.total() / 2] * 2)


def test_random_midgame_pairs_are_uniform() -> None:
    game = Game(3, seed=8)
    for _ in range(20):
        game.play(game.choose("random"))
    while game.phase == "swap":
        game.play("keep")
    pairs = sorted({m.cells for m in game.legal_moves() if m.cells is not None})
    assert len(pairs) == game.free_pairs
    picks = sample(game, "random", 40_000)
    by_pair = Counter(m.cells for m in picks.elements())
    assert chi_square_ok([by_pair[p] for p in pairs], [40_000 / len(pairs)] * len(pairs))


def test_random_swap_decision_is_a_fair_coin() -> None:
    for seed in range(100):
        game = Game(2, seed=seed)
        while not game.is_over and game.phase != "swap":
            game.play(game.choose("random"))
        if game.phase == "swap":
            break
    picks = sample(game, "random", 4000)
    assert set(picks) == {Move.swap(), Move.keep()}
    assert chi_square_ok([picks[Move.swap()], picks[Move.keep()]], [2000.0, 2000.0])
    assert sample(game, "greedy", 50) == Counter({Move.swap(): 50})  # greedy always swaps


def objective(game: Game, move: Move) -> int:
    """sum over colours of -(18 - s)^2 after the move, for the current player (RULES §3.3)."""
    scores = game.scores[game.current_player].astype(int).copy()
    assert move.colours is not None
    for colour, points in zip(move.colours, game.gains(move), strict=True):
        scores[colour] += points
    return int(-((18 - np.minimum(scores, 18)) ** 2).sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_greedy_maximises_the_objective_with_uniform_ties(seed: int) -> None:
    game = Game(2, seed=seed)
    for _ in range(12):
        game.play(game.choose("random"))
    while game.phase == "swap":
        game.play("keep")
    values = {m: objective(game, m) for m in game.legal_moves()}
    best = max(values.values())
    argmax = {m for m, v in values.items() if v == best}
    picks = sample(game, "greedy", 3000)
    assert set(picks) <= argmax
    if len(argmax) > 1:
        assert chi_square_ok([picks[m] for m in argmax], [3000 / len(argmax)] * len(argmax))


def test_a_callable_policy_points_to_the_vector_environment() -> None:
    """simulate plays only the kernel's policies; a Python callable (alone or for one seat)
    gets an error saying where such a policy runs, not a bare type error."""
    for policy in (lambda game: 0, [lambda game: 0, "random"]):
        with pytest.raises(genial.GenialError, match=r"is a callable: .*genial\.vector\.VectorEnv"):
            genial.simulate(10, policy=policy)  # type: ignore[arg-type]
    with pytest.raises(genial.GenialError, match="are the board game's policies"):
        genial.simulate(10, game="cards", policy="mc:10")


def test_the_unknown_policy_message_and_help_name_every_family() -> None:
    """Issue 41: ``value``, ``value:kK`` and the value rollouts of ``mc``/``mcts`` are named
    where a user who typed a wrong policy looks (the error, ``--help``); the card game's
    message names only its own."""
    import contextlib
    import io

    from genial.cli import main
    from genial.errors import GenialError
    from genial.policies import parse_policy

    with pytest.raises(GenialError) as board:
        parse_policy("clever")
    for family in ("value:kK", "mc:N", "mcts:N", "mc:200:value", "epsilon-greedy:EPS"):
        assert len(str(board.value)) < 300
        assert family in str(board.value)
    with pytest.raises(GenialError) as cards:
        parse_policy("clever", search=False)
    assert "value" not in str(cards.value) and "epsilon-greedy:EPS" in str(cards.value)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", "--help"]) == 0
    text = " ".join(out.getvalue().split())
    for family in ("value:kK", "mc:N:value", "mcts:N:value"):
        assert family in text


def test_the_strong_preset_is_its_policy_everywhere() -> None:
    """Issue 41: ``strong`` names the strongest policy affordable for whole opening tables;
    it parses to ``mc:40:value`` (chosen along the ladder, docs/search.md), plays exactly as
    that name does, is named in the error message, and is refused by a game without search
    policies."""
    from genial.errors import GenialError
    from genial.policies import PRESETS, parse_policies, parse_policy

    assert PRESETS["strong"] == "mc:40:value"
    assert parse_policy("strong") == parse_policy("mc:40:value")
    assert parse_policies("strong", 2)[0] == ("mc:40:value", "mc:40:value")
    a = genial.simulate(4, 2, policy="strong", seed=3, workers=1)
    b = genial.simulate(4, 2, policy="mc:40:value", seed=3, workers=1)
    assert a.policies == ("mc:40:value", "mc:40:value")
    assert a.winner.tolist() == b.winner.tolist() and a.scores.tobytes() == b.scores.tobytes()
    with pytest.raises(GenialError, match="strong"):
        parse_policy("clever")
    with pytest.raises(GenialError, match="preset of the board game"):
        parse_policy("strong", search=False)
    with pytest.raises(GenialError, match="preset of the board game"):
        genial.simulate(2, game="cards", policy="strong")
