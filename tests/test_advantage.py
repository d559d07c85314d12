"""genial.board.advantage: every seat's win rate per rules and policy, the fair share with shared
first places, the best seats, and ``genial advantage``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genial.board.advantage as advantage_module
from genial import GenialError, Rules, simulate
from genial.board.advantage import _row, advantage_text, first_player_advantage
from genial.cli import main
from genial.seeds import as_seed_sequence, child_seed
from genial.stats import best_set

from .depth import sized

pd = pytest.importorskip("pandas")

GAMES = 600


def sides(row: Any) -> int:
    return 2 if row["teams"] else int(row["players"])


def check_invariants(table: Any) -> None:
    """What every row must satisfy: the sides' win rates and the shared share add up to 1, the
    fair shares to the rest, the advantages to 0; every interval holds its estimate; seat 0's
    columns are the first player's; the best seats agree with the best words."""
    for row in table.to_dict("records"):
        k, n = sides(row), row["games"]
        rates = [row[f"seat{s}_win_rate"] for s in range(k)]
        assert sum(rates) + row["shared_first_rate"] == pytest.approx(1.0, abs=1e-12)
        assert sum(row[f"seat{s}_wins"] for s in range(k)) + row["shared_first"] == n
        assert k * row["fair_share"] + row["shared_first_rate"] == pytest.approx(1.0, abs=1e-12)
        assert sum(row[f"seat{s}_advantage"] for s in range(k)) == pytest.approx(0.0, abs=1e-12)
        for s in range(int(row["players"])):
            key = f"seat{s}_"
            assert row[key + "win_rate"] == row[key + "wins"] / n
            assert row[key + "win_rate_lo"] <= row[key + "win_rate"] <= row[key + "win_rate_hi"]
            assert row[key + "advantage"] == pytest.approx(
                row[key + "win_rate"] - row["fair_share"], abs=1e-12
            )
            if n > 1:  # one game has no spread: no interval (NaN bounds)
                assert row[key + "advantage_lo"] <= row[key + "advantage"]
                assert row[key + "advantage"] <= row[key + "advantage_hi"]
        for s in range(int(row["players"]), 4):
            if f"seat{s}_win_rate" in row:
                assert np.isnan(row[f"seat{s}_win_rate"]) and pd.isna(row[f"seat{s}_best"])
        assert row["first_wins"] == row["seat0_wins"]
        for name in ("win_rate", "win_rate_lo", "win_rate_hi"):
            assert row[f"first_{name}"] == row[f"seat0_{name}"]
        for name in ("", "_lo", "_hi"):
            assert row[f"advantage{name}"] == pytest.approx(
                row[f"seat0_advantage{name}"], nan_ok=True, abs=0
            )
        best = [s for s in range(int(row["players"])) if row[f"seat{s}_best"]]
        assert best and row["best_seats"] == " ".join(map(str, best))
        if row["teams"]:
            assert all(row[f"seat{s}_best"] == row[f"seat{s + 2}_best"] for s in (0, 1))


def test_columns_and_invariants() -> None:
    table = first_player_advantage((2, 3, "4t"), ("random", "greedy"), games=GAMES, seed=5)
    assert len(table) == 6
    assert table["rules"].tolist() == ["2", "2", "3", "3", "4t", "4t"]
    assert table["policy"].tolist() == ["random", "greedy"] * 3
    assert (table["games"] == GAMES).all()
    old = ["players", "first_wins", "first_win_rate", "first_win_rate_lo", "first_win_rate_hi"]
    old += ["fair_share", "advantage", "shared_first"]  # the columns of the function it replaces
    for column in old:
        assert column in table.columns
    seat_columns = [c for c in table.columns if c.startswith("seat")]
    assert len(seat_columns) == 4 * 8
    assert str(table["seat3_best"].dtype) == "boolean"
    check_invariants(table)
    row = table.iloc[4]  # the team game: seats 0 and 2 are team 0
    assert row["seat0_wins"] == row["seat2_wins"] and row["seat1_wins"] == row["seat3_wins"]
    assert row["fair_share"] == pytest.approx((1 - row["shared_first_rate"]) / 2)
    assert "teams" in row["best_words"]


def test_the_wins_are_those_of_the_games() -> None:
    """Row (i, j) plays child (i, j) of the seed: the same games as ``simulate`` with it."""
    table = first_player_advantage((2, 4), ("greedy", "random"), games=GAMES, seed=11, workers=1)
    root = as_seed_sequence(11)
    for i, players in enumerate((2, 4)):
        for j, policy in enumerate(("greedy", "random")):
            runs = simulate(GAMES, players, policy=policy, seed=child_seed(root, i, j))
            row = table.iloc[2 * i + j]
            for seat in range(players):
                assert row[f"seat{seat}_wins"] == int((runs.winner == seat).sum())
            assert row["shared_first"] == int((runs.winner == -1).sum())
            mask = best_set([runs.winner == s for s in range(players)], paired=True).mask
            assert [bool(row[f"seat{s}_best"]) for s in range(players)] == mask.tolist()
            words = best_set([runs.winner == s for s in range(players)]).words("seats")
            assert row["best_words"] == words
            assert words in advantage_text(table)


def test_best_matches_best_set_in_the_team_game() -> None:
    table = first_player_advantage(rules="4t", policies="greedy", games=GAMES, seed=3)
    runs = simulate(GAMES, "4t", policy="greedy", seed=child_seed(as_seed_sequence(3), 0, 0))
    mask = best_set([runs.winner == t for t in (0, 1)], paired=True).mask.tolist()
    row = table.iloc[0]
    assert [bool(row[f"seat{s}_best"]) for s in range(4)] == mask + mask


def test_reproducible_whatever_the_workers() -> None:
    one = first_player_advantage((2, 3), "greedy", games=GAMES, seed=7, workers=1)
    two = first_player_advantage((2, 3), "greedy", games=GAMES, seed=7, workers=2)
    again = first_player_advantage((2, 3), "greedy", games=GAMES, seed=7, workers=1)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, again)
    other = first_player_advantage((2, 3), "greedy", games=GAMES, seed=8, workers=1)
    assert not one.equals(other)


@pytest.mark.parametrize(
    ("kwargs", "rules"),
    [
        ({"players": 4, "teams": True}, ["4t"]),
        ({"teams": True}, ["4t"]),  # the default counts: those the variant allows
        ({"players": 2, "tournament": True}, ["2T"]),
        ({"tournament": True}, ["2T"]),
        ({"players": (2,), "tiles": "travel"}, ["2v"]),
        ({"players": ["2Tv", 3]}, ["2Tv", "3"]),
        ({"rules": Rules(2, tournament=True, tiles="travel")}, ["2Tv"]),
        ({"rules": ["4t", Rules(3)]}, ["4t", "3"]),
        ({"players": Rules(4)}, ["4"]),
        ({"players": np.int64(3)}, ["3"]),
    ],
)
def test_every_variant_runs(kwargs: dict[str, Any], rules: list[str]) -> None:
    table = first_player_advantage(policies=("greedy",), games=300, seed=1, workers=1, **kwargs)
    assert table["rules"].tolist() == rules
    check_invariants(table)


def test_the_search_policies_run() -> None:
    table = first_player_advantage(2, ["mc:2", "epsilon-greedy"], games=16, seed=1, workers=1)
    assert table["policy"].tolist() == ["mc:2", "epsilon-greedy:0.1"]
    check_invariants(table)


def test_one_game() -> None:
    """One game: no spread, so the advantage has no interval and every seat may be best."""
    table = first_player_advantage(3, "random", games=1, seed=1, workers=1)
    row = table.iloc[0]
    assert row["best_seats"] == "0 1 2" and np.isnan(row["advantage_lo"])


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"players": 0}, r"players: expected 2, 3 or 4 .*got 0"),
        ({"players": 7}, r"got 7"),
        ({"players": (2, 7)}, r"got 7"),
        ({"players": 1}, r"got 1"),
        ({"players": "1v"}, r"solo game \('1v'\)"),
        ({"players": 2.0}, r"players: expected .*got 2\.0"),
        ({"players": True}, r"got True"),
        ({"players": "9"}, r"rules '9'"),
        ({"players": "4x"}, r"rules '4x'"),
        ({"players": ()}, r"players: give at least one"),
        ({"players": (2, 2)}, r"'2' are given twice"),
        ({"players": {2, 3}}, r"players: expected .*got \{2, 3\}"),
        ({"players": 3, "teams": True}, r"team game is for 4 players"),
        ({"players": 4, "tournament": True}, r"tournament rules .*not 4"),
        ({"players": 3, "tiles": "travel"}, r"travel set .*not 3"),
        ({"tiles": "big"}, r"tiles must be 'standard' or 'travel', got 'big'"),
        ({"teams": "yes"}, r"teams must be True or False, got 'yes'"),
        ({"players": "4t", "teams": True}, r"drop teams"),
        ({"players": (2,), "rules": "4t"}, r"either rules= or players="),
        ({"rules": 4}, r"rules: a genial.Rules or a rules token .*got 4"),
        ({"rules": "4q"}, r"rules '4q'"),
        ({"rules": []}, r"rules: give at least one"),
        ({"policies": "clever"}, r"unknown policy 'clever': expected random, greedy"),
        ({"policies": ("greedy", "mc:0")}, r"mc:0"),
        ({"policies": 5}, r"policies: a policy name or a sequence .*got 5"),
        ({"policies": ["greedy", 5]}, r"policies: each is a policy name .*got 5"),
        ({"policies": []}, r"policies: give at least one"),
        ({"policies": ("greedy", "greedy")}, r"'greedy' is given twice"),
        ({"games": 0}, r"games must be >= 1 .*got 0"),
        ({"games": -3}, r"games must be >= 1 .*got -3"),
        ({"games": True}, r"games must be an int >= 1 .*got True"),
        ({"games": 2.5}, r"games must be an int >= 1 .*got 2\.5"),
        ({"games": 10**13}, r"n_games must be at most"),
        ({"workers": 1.5}, r"workers must be an int .*got 1\.5"),
        ({"workers": "2"}, r"workers must be an int .*got '2'"),
        ({"workers": 0}, r"workers must be 1\.\.1024, or -1 .*got 0"),
        ({"workers": True}, r"workers must be an int .*got True"),
        ({"progress": "yes"}, r"progress must be True or False, got 'yes'"),
        ({"seed": -1}, r"seed"),
        ({"backend": "gpu"}, r"backend must be one of .*got 'gpu'"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], named: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad argument: a ``GenialError`` naming it and what is allowed, before any game."""

    def never(*args: Any, **kw: Any) -> None:
        raise AssertionError("games were played")

    monkeypatch.setattr(advantage_module, "run_many", never)
    arguments: dict[str, Any] = {"games": 10, "seed": 1, "workers": 1, **kwargs}
    with pytest.raises(GenialError, match=named):
        first_player_advantage(**arguments)


def test_progress_shows_a_bar(capsys: pytest.CaptureFixture[str]) -> None:
    first_player_advantage(2, "random", games=200, seed=1, workers=1, progress=True)
    assert "200" in capsys.readouterr().err
    first_player_advantage(2, "random", games=200, seed=1, workers=1)
    assert capsys.readouterr().err == ""


@settings(max_examples=sized("GENIAL_ADVANTAGE_EXAMPLES", 500, 40), deadline=None)
@given(
    st.sampled_from(["2", "3", "4", "4t", "2T"]),
    st.lists(st.integers(-1, 3), min_size=1, max_size=60),
)
def test_a_row_of_any_results(token: str, drawn: list[int]) -> None:
    """The row of any winners (random ones, including all shared or one game): the sums and
    intervals hold, and the best seats are those of ``best_set``."""
    rules = Rules.parse(token)
    winner = np.array([w if w < rules.counter_sets else -1 for w in drawn], dtype=np.int8)
    row = _row(rules, "greedy", winner, 4)
    check_invariants(pd.DataFrame([row]))
    mask = best_set([winner == s for s in range(rules.counter_sets)]).mask
    assert [row[f"seat{s}_best"] for s in range(rules.counter_sets)] == mask.tolist()


# -- the command line ----------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_table_and_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "advantage.csv"
    argv = ["advantage", "--players", "2,3", "--players", "4t", "--policy", "random,greedy"]
    argv += ["--games", "500", "--seed", "4", "--workers", "2", "--no-progress"]
    code, text, err = run([*argv, "--out", str(out)], capsys)
    assert code == 0 and err == ""
    table = first_player_advantage((2, 3, "4t"), ("random", "greedy"), games=500, seed=4, workers=1)
    assert text == advantage_text(table) + f"\n6 rows written to {out}\n"
    assert "rules 4t, policy greedy: 500 games" in text and "seat 3 (team 1)" in text
    written = pd.read_csv(out, dtype={"rules": str, "best_seats": str})
    assert written.columns.tolist() == table.columns.tolist()
    assert written["rules"].tolist() == table["rules"].tolist()
    pd.testing.assert_series_equal(written["seat0_win_rate"], table["seat0_win_rate"])
    assert written["seat3_best"].isna().tolist() == [True] * 4 + [False] * 2
    code, _, err = run([*argv, "--policy", "greedy"], capsys)
    assert code == 2 and "'greedy' is given twice" in err


def test_cli_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run(["advantage", "--teams", "--policy", "greedy", "--games", "200"], capsys)
    assert code == 0 and text.startswith("rules 4t, policy greedy: 200 games")
    code, text, _ = run(
        ["advantage", "--players", "2", "--tournament", "--tiles", "travel", "--games", "100"],
        capsys,
    )
    assert code == 0 and "rules 2Tv, policy random" in text and "rules 2Tv, policy greedy" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "7"], "argument --players: expected player counts 2, 3, 4"),
        (["--players", "1"], "got '1'"),
        (["--players", "2,x"], "got 'x'"),
        (["--players", "2", "--teams"], "the team game is for 4 players"),
        (["--players", "4t", "--teams"], "drop teams"),
        (["--policy", "clever"], "argument --policy: unknown policy 'clever'"),
        (["--policy", "greedy,mc:0"], "argument --policy: 'mc:0'"),
        (["--games", "0"], "argument --games: must be at least 1"),
        (["--games", "1.5"], "argument --games: expected a whole number"),
        (["--workers", "0"], "argument --workers"),
        (["--seed", "-1"], "argument --seed"),
        (["--tiles", "big"], "argument --tiles"),
        (["--out", "table.parquet"], "unsupported extension '.parquet' (accepted: .csv)"),
        (["--out", "missing/table.csv"], "does not exist"),
        (["--out", ""], "--out: empty path"),
        (["--frobnicate"], "unrecognized arguments"),
    ],
)
def test_cli_bad_arguments(
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)

    def never(*args: Any, **kw: Any) -> None:
        raise AssertionError("games were played")

    monkeypatch.setattr(advantage_module, "run_many", never)
    code, out, err = run(["advantage", "--games", "10", "--no-progress", *argv], capsys)
    assert code == 2 and out == ""
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("genial advantage: error: ") and message in err
    assert list(tmp_path.iterdir()) == []
