"""genial.arena: round robins on duplicate deals, and the Bradley-Terry (Elo) fit.

The fit is checked on synthetic results drawn from known ratings (it must recover them), and on
cases small enough to solve by hand; the arena against games replayed one by one through
``genial.batch`` (every game of a deal starts from the same chance stream).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from genial import GenialError
from genial.arena import ArenaResult, arena, bradley_terry, elo_probability
from genial.batch import prepare, run_chunk

pd = pytest.importorskip("pandas")


def _synthetic(
    elo: list[float], games: int, tie: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair plays ``games`` games: a tie with probability ``tie``, else a win of i with
    probability P_BT(i beats j) adjusted so that i's expected score is P_BT (ties count half)."""
    rng = np.random.default_rng(seed)
    n = len(elo)
    wins = np.zeros((n, n), dtype=np.int64)
    ties = np.zeros((n, n), dtype=np.int64)
    for i, j in itertools.combinations(range(n), 2):
        p = float(elo_probability(elo[i] - elo[j]))
        p_win = p - tie / 2
        assert 0 <= p_win <= 1 - tie
        w, t, _ = rng.multinomial(games, [p_win, tie, 1 - tie - p_win])
        wins[i, j], wins[j, i] = w, games - w - t
        ties[i, j] = ties[j, i] = t
    return wins, ties


@pytest.mark.parametrize(("tie", "seed"), [(0.0, 1), (0.05, 2)])
def test_the_fit_recovers_known_ratings(tie: float, seed: int) -> None:
    """Synthetic results from ratings 0, 150, 400, -200, 60 (4000 games a pair): the fit finds
    every rating within 30 Elo (about three standard errors)."""
    truth = [0.0, 150.0, 400.0, -200.0, 60.0]
    wins, ties = _synthetic(truth, 4000, tie, seed)
    fitted = bradley_terry(wins, ties)
    assert fitted[0] == 0.0
    assert np.abs(fitted - np.array(truth)).max() < 30
    centred = bradley_terry(wins, ties, anchor=None)
    assert abs(centred.sum()) < 1e-6
    assert np.allclose(centred - centred[0], fitted)


def test_the_fit_solves_small_cases_by_hand() -> None:
    """Two players: the rating difference is 400 log10(score ratio); a tie is half a win each;
    three players in a consistent cycle of ratios get ratings adding up exactly."""
    assert bradley_terry([[0, 60], [40, 0]])[1] == pytest.approx(-400 * math.log10(1.5))
    # 50 wins each way and 20 ties: level
    assert bradley_terry([[0, 50], [50, 0]], [[0, 20], [20, 0]])[1] == pytest.approx(0, abs=1e-9)
    # 30 wins, 40 ties, 30 losses: level too; 40 wins, 20 ties, 40 losses the same
    w = np.array([[0, 40], [10, 0]])
    t = np.array([[0, 20], [20, 0]])
    assert bradley_terry(w, t)[1] == pytest.approx(-400 * math.log10(50 / 20))
    # strengths 1 : 2 : 4, every pair with the exact expected results of 300 games
    s = np.array([1.0, 2.0, 4.0])
    exact = np.array(
        [[300 * s[i] / (s[i] + s[j]) if i != j else 0 for j in range(3)] for i in range(3)]
    )
    assert bradley_terry(exact) == pytest.approx(400 * np.log10(s), abs=1e-6)


def test_infinite_ratings_need_a_prior() -> None:
    """A player that lost every game has no finite maximum-likelihood rating: refused with
    prior=0, finite (and far below) with a prior; the prior's pull shrinks with more games."""
    wins = [[0, 0], [25, 0]]
    with pytest.raises(GenialError, match="infinite"):
        bradley_terry(wins)
    few = bradley_terry(wins, prior=1.0)
    many = bradley_terry([[0, 0], [2500, 0]], prior=1.0)
    assert few[1] == pytest.approx(400 * math.log10(25.5 / 0.5))
    assert many[1] > few[1] > 500


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([[0, 1, 2]],), "square"),
        (([[0]],), "square"),
        (([[0, -1], [1, 0]],), "counts"),
        (([[0, 1], [1, 0]], [[0, 1], [2, 0]]), "symmetric"),
        (([[0, 1], [1, 0]], [[0, 1, 2]]), "shape"),
    ],
)
def test_the_fit_refuses_bad_counts(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(GenialError, match=message):
        bradley_terry(*args)  # type: ignore[arg-type]
    with pytest.raises(GenialError, match="prior"):
        bradley_terry([[0, 1], [1, 0]], prior=-1)
    with pytest.raises(GenialError, match="anchor"):
        bradley_terry([[0, 1], [1, 0]], anchor=2)


# -- arenas ------------------------------------------------------------------------------------


def test_greedy_is_clearly_stronger_than_random() -> None:
    result = arena(["random", "greedy"], games=150, seed=1, workers=1)
    assert isinstance(result, ArenaResult)
    assert result.games == 300 and result.deals == 150
    assert result.meetings[0, 1] == result.meetings[1, 0] == 300
    assert result.elo[0] == 0.0 and result.anchor == "random"
    assert result.elo_lo[1] > 300  # greedy far ahead, with the whole interval
    assert result.significant("greedy", "random")
    assert result.score_lo[1, 0] > 0.9
    assert result.score[0, 1] + result.score[1, 0] == pytest.approx(1.0)
    assert result.played.tolist() == [300, 300]
    assert result.lowest[1] > result.lowest[0]
    diff, lo, hi = result.difference("greedy", "random")
    assert lo <= diff <= hi and diff == pytest.approx(result.elo[1] - result.elo[0])


def test_arena_games_are_the_duplicate_deals_of_genial_batch() -> None:
    """Deal d at every table and rotation is game 0 of chunk d of the same seed: the arena's
    counts are those of the games replayed one by one, and both seat rotations of a deal
    start from the same racks (the first 12 tiles drawn), each policy holding each hand."""
    policies = ["greedy", "epsilon-greedy:0.5"]
    result = arena(policies, games=40, seed=9, workers=2)
    wins = np.zeros((2, 2), dtype=np.int64)
    ties = 0
    for d in range(40):
        draws = []
        for order in ((0, 1), (1, 0)):
            spec = prepare(1, 2, policy=[policies[i] for i in order], seed=9, records=True)
            chunk = run_chunk(spec, d, 1)
            ranks = chunk.rows["ranks"][0]
            a, b = order  # seat 0 plays policy a
            wins[a, b] += ranks[0] < ranks[1]
            wins[b, a] += ranks[1] < ranks[0]
            ties += ranks[0] == ranks[1]
            assert chunk.logs is not None
            log = chunk.logs[0]
            draws.append(log["draws"][: log["n_draws"]])
        assert (draws[0][:12] == draws[1][:12]).all()
    assert result.wins.tolist() == wins.tolist()
    assert result.ties[0, 1] == ties


def test_three_player_arena_rotates_every_seat() -> None:
    """Three policies at one table of three: every deal from three rotations; every pair meets
    in every game; ranks give pairwise results."""
    result = arena(["random", "greedy", "epsilon-greedy:0.3"], games=30, players=3, seed=2)
    assert result.games == 90
    off = ~np.eye(3, dtype=bool)
    assert (result.meetings[off] == 90).all()
    assert (result.wins + result.wins.T + result.ties)[off].tolist() == [90] * 6
    assert result.ratings()[0]["policy"] == "greedy"


def test_round_robin_of_four_policies_and_workers() -> None:
    """Four policies, two players: six tables; the same result whatever the workers."""
    names = ["random", "greedy", "epsilon-greedy:0.2", "epsilon-greedy:0.6"]
    one = arena(names, games=20, seed=5, workers=1, bootstrap=50)
    two = arena(names, games=20, seed=5, workers=2, bootstrap=50)
    assert one.games == 6 * 2 * 20
    assert one.wins.tolist() == two.wins.tolist()
    assert np.array_equal(one.elo, two.elo)
    assert np.array_equal(one.bootstrap, two.bootstrap)
    assert (one.meetings[~np.eye(4, dtype=bool)] == 40).all()
    assert one.bootstrap.shape == (50, 4)
    mean = arena(names, games=20, seed=5, anchor="mean", bootstrap=0)
    assert abs(mean.elo.sum()) < 1e-6 and np.isnan(mean.elo_lo).all()
    assert np.allclose(mean.elo - mean.elo[0], one.elo)


def test_arena_text_html_and_tables() -> None:
    result = arena(["random", "greedy"], games=20, seed=3, workers=1)
    text = str(result)
    assert "greedy" in text and "(anchor)" in text and "95% Wilson" in text
    swept = result.wins[0, 1] + result.ties[0, 1] == 0  # random never scored
    assert ("never scored" in text) == swept
    table = result.table
    assert isinstance(table, pd.DataFrame)
    assert table["policy"].tolist() == ["greedy", "random"]
    matrix = result.matrix
    assert matrix.loc["greedy", "random"] == pytest.approx(result.score[1, 0])
    assert np.isnan(matrix.loc["random", "random"])
    page = result._repr_html_()
    assert page.count("<table") == 2 and "greedy" in page


def test_the_card_game_has_arenas_too() -> None:
    result = arena(["random", "greedy"], games=30, players=2, seed=4, game="cards")
    assert result.games == 60
    assert result.elo[1] > result.elo[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"policies": ["random"]}, "at least 2"),
        ({"policies": "random"}, "sequence"),
        ({"policies": ["random", "random"]}, "twice"),
        ({"policies": ["random", "clever"]}, "unknown policy"),
        ({"policies": ["random", 3]}, "names"),
        ({"policies": ["random", "greedy"], "players": 1}, "solo"),
        ({"policies": ["random", "greedy"], "players": "4t"}, "team"),
        ({"policies": ["random", "greedy"], "players": 3}, "at least 3"),
        ({"policies": ["random", "greedy"], "games": 0}, "games"),
        ({"policies": ["random", "greedy"], "anchor": "clever"}, "anchor"),
        ({"policies": ["random", "greedy"], "prior": -1}, "prior"),
        ({"policies": ["random", "greedy"], "bootstrap": -1}, "bootstrap"),
        ({"policies": ["random", "greedy"], "workers": 0}, "workers"),
    ],
)
def test_wrong_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(GenialError, match=message):
        arena(games=kwargs.pop("games", 2), **kwargs)  # type: ignore[arg-type]


def test_outcomes_of_rows_without_colours() -> None:
    """A game whose adapter has no ``colours`` needs only the rows' ``ranks`` and ``winner``."""
    from genial.arena import _outcomes

    dtype = np.dtype([("ranks", "i1", (4,)), ("winner", "i1")])
    rows = np.zeros((2, 1, 2), dtype=dtype)  # 2 deals, 1 table, 2 rotations
    rows["ranks"][0, 0, 0, :2], rows["winner"][0, 0, 0] = (0, 1), 0  # deal 0: seat 0 first
    rows["ranks"][0, 0, 1, :2], rows["winner"][0, 0, 1] = (1, 0), 1  # then seat 1
    rows["winner"][1] = -1  # deal 1: shared firsts (every rank 0)
    wins, ties, first, played, lowest = _outcomes(2, [(0, 1)], rows, colours=False)
    assert not lowest.any() and played.tolist() == [[2, 2], [2, 2]]
    # deal 0: policy 0 sits in seat 0 of rotation 0 and in seat 1 of rotation 1: first twice
    assert first.tolist() == [[2, 0], [0, 0]] and wins[0].tolist() == [[0, 2], [0, 0]]
    assert ties[1].tolist() == [[0, 2], [2, 0]]


def test_genial_arena_is_the_function_whatever_was_imported_first() -> None:
    """``genial.arena`` names both a submodule and its function: importing the submodule first
    (``from genial.arena import ...``) must not turn ``from genial import arena`` into the
    module (a fresh interpreter, so that no test has imported either yet)."""
    import subprocess
    import sys

    code = (
        "from genial.arena import ArenaResult\n"
        "import genial.arena\n"
        "from genial import arena\n"
        "import genial, sys\n"
        "assert callable(arena) and arena is genial.arena, arena\n"
        "assert sys.modules['genial.arena'].ArenaResult is ArenaResult\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
