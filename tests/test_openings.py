"""genial.board.openings: symmetry classes of first placements (RULES §1.6, §3.2) and their
analysis."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from genial import SYMBOLS, Game, GenialError, Move, Position, Rules, simulate
from genial.board.geometry import area
from genial.board.openings import (
    analyse,
    first_placements,
    first_player_advantage,
    holm,
    map_move,
    observe,
    opening_classes,
    symmetries,
)
from genial.cli import main

pd = pytest.importorskip("pandas")


def test_group_of_twelve() -> None:
    """RULES §1.6: rotations and mirror images map the printed symbols onto each other, with the
    matching relabelling of colours; the 12 maps are distinct and closed under composition."""
    group = symmetries()
    assert len(group) == 12
    cells = area(7)
    images = {tuple(g.cell(c) for c in cells) for g in group}
    assert len(images) == 12
    for g, h in itertools.product(group, group):
        composed = tuple(g.cell(h.cell(c)) for c in cells)
        assert composed in images
    for g in group:
        assert sorted(g.cell(c) for c in cells) == sorted(cells)  # the board maps onto itself
        for colour, cell in enumerate(SYMBOLS):
            assert SYMBOLS[g.colour(colour)] == g.cell(cell)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_group_maps_openings_to_openings_with_equal_points(players: int) -> None:
    """RULES §1.6, §3.2, §3.3: a symmetry of a legal opening is a legal opening scoring the same
    points."""
    rules = Rules(players)
    game = Game.from_position(
        Position.empty(rules).replace(racks=(((0, 0),),) * players, bag=(0,) * 21)
    )
    openings = first_placements(players)
    legal = set(openings)
    for move in openings:
        for g in symmetries():
            image = map_move(g, move)
            assert image in legal
            assert sum(game.gains(image)) == sum(game.gains(move))
            assert sorted(game.gains(image)) == sorted(game.gains(move))


@pytest.mark.parametrize(
    ("players", "openings", "classes"), [(2, 1944, 164), (3, 3672, 308), (4, 5184, 436)]
)
def test_classes_partition_the_openings(players: int, openings: int, classes: int) -> None:
    """RULES §1.5: 54 cell pairs x 36 ways (15 pairs both ways round, 6 doubles) = 1,944 first
    placements on the 2-player board; the classes are disjoint orbits that cover them all."""
    all_openings = first_placements(players)
    assert len(all_openings) == openings
    found = opening_classes(players)
    assert len(found) == classes
    members = [m for c in found for m in c.members]
    assert len(members) == len(set(members)) == openings
    assert set(members) == set(all_openings)
    for c in found:
        assert 12 % c.size == 0
        assert c.representative == min(c.members, key=lambda m: m.action)
        assert {map_move(g, c.representative) for g in symmetries()} == set(c.members)
    assert len({c.description for c in found}) == classes  # every class has its own words


def test_class_descriptions_by_hand() -> None:
    """Classes described by hand (RULES §3.3): a red double along the rim from the red symbol
    scores 1 (only the half next to the symbol sees it; the halves never count for each other);
    a red double with both halves touching the symbol scores 2."""
    by_move = {m: c for c in opening_classes(2) for m in c.members}
    along = by_move[Move.parse("R1,-5+R2,-5")]
    assert along.points == 1
    assert along.symbol_halves == 2
    assert along.touching == 1
    assert "further along the ring" in along.description
    both = by_move[Move.parse("R1,-5+R0,-4")]
    assert both.points == 2
    assert both.touching == 2
    assert by_move[Move.parse("G5,-4+G4,-4")] is by_move[Move.parse("R1,-5+R0,-4")]
    opposite = by_move[Move.parse("O0,-4+O0,-3")]
    assert opposite.size == 6  # on the red symbol's axis: the mirror fixes it
    assert opposite.points == 0
    assert opposite.others == "opposite"


def test_holm_known_values() -> None:
    """Holm's step-down: sorted p (0.01, 0.03, 0.04) x (3, 2, 1) = (0.03, 0.06, 0.04), made
    monotone -> (0.03, 0.06, 0.06), back in the input order."""
    assert holm([0.04, 0.01, 0.03]).round(6).tolist() == [0.06, 0.03, 0.06]
    assert holm([0.5]).tolist() == [0.5]
    assert holm([0.9, 0.8]).tolist() == [1.0, 1.0]


def test_analysis_table_and_reproducibility() -> None:
    first = analyse(2, games_per_opening=8, seed=4, workers=1)
    again = analyse(2, games_per_opening=8, seed=4, workers=2)
    pd.testing.assert_frame_equal(first.table, again.table)
    table = first.table
    assert len(table) == 164
    for column in (
        "games",
        "wins",
        "win_rate",
        "win_rate_lo",
        "win_rate_hi",
        "description",
        "lowest",
        "margin",
        "p_holm",
        "differs",
    ):
        assert column in table.columns
    assert (table["games"] == 8).all()
    assert table["win_rate"].is_monotonic_decreasing
    assert (
        (table["win_rate_lo"] <= table["win_rate"]) & (table["win_rate"] <= table["win_rate_hi"])
    ).all()
    assert first.average == pytest.approx(table["wins"].sum() / table["games"].sum())
    other = analyse(2, games_per_opening=8, seed=5, workers=1)
    assert not table["wins"].equals(other.table["wins"])
    # a bare analysis at a prompt is one line, not a dump of every class (issue 11)
    assert repr(first) == (
        "<OpeningAnalysis: rules 2, seat 0, 164 classes, 8 games each, "
        "policies ('greedy', 'greedy'), seed 4>"
    )


def test_analysis_plays_the_class_openings() -> None:
    """Each class's games begin with its representative: replayed records show it. Unpaired,
    class ``i`` is the root's ``i``-th child's batch; paired (the default), every class plays
    the root's paired games (game ``j`` on ``child_seed(root, j, 0 or 1)``)."""
    from dataclasses import replace

    from genial.batch import prepare, run_many

    for paired in (False, True):
        result = analyse(2, games_per_opening=3, seed=1, workers=1, paired=paired)
        cls = result.classes[17]
        seed = np.random.SeedSequence(result.seed.entropy, spawn_key=() if paired else (17,))
        spec = prepare(3, 2, policy="greedy", seed=seed,
                       options={"openings": [cls.representative]})  # fmt: skip
        (runs,) = run_many([(replace(spec, paired=paired), 3)], workers=1)
        row = result.table[result.table["class"] == 17].iloc[0]
        assert row["wins"] == int((runs.winner == 0).sum())
        assert (runs.opening[:, 0] == cls.representative.action).all()
        if not paired:
            alone = simulate(3, 2, policy="greedy", seed=seed,
                             options={"openings": [cls.representative]})  # fmt: skip
            assert alone.winner.tolist() == runs.winner.tolist()


def test_replies() -> None:
    first = Move.parse("R0,-4+R1,-5")
    classes = opening_classes(2, reply_to=first)
    members = [m for c in classes for m in c.members]
    # 5 symbols left, 9 cell pairs each, 36 ways: the mirror through the red symbol fixes the
    # opening, so classes are orbits of a group of 2
    assert len(members) == 5 * 9 * 36
    assert all(c.size in (1, 2) for c in classes)
    result = analyse(2, games_per_opening=2, seed=1, workers=1, reply_to=str(first))
    assert result.seat == 1
    assert result.reply_to == str(first)
    assert int(result.table["games"].sum()) == 2 * len(classes)


def test_observe_groups_playouts() -> None:
    runs = simulate(2000, 2, policy="epsilon-greedy:0.5", seed=3)
    result = observe(runs)
    assert int(result.table["games"].sum()) == 2000
    assert int(result.table["wins"].sum()) == int((runs.winner == 0).sum())
    with pytest.raises(ValueError, match="seat 0"):
        observe(runs, seat=1)
    with pytest.raises(ValueError, match="not a seat"):
        observe(runs, seat=2)


def test_first_player_advantage() -> None:
    table = first_player_advantage((2, 3), ("random", "greedy"), games=1500, seed=2, workers=1)
    assert len(table) == 4
    assert (table["first_win_rate_lo"] <= table["first_win_rate"]).all()
    assert np.allclose(table["fair_share"], (1 - table["shared_first_rate"]) / table["players"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"policy": "clever"}, "unknown policy"),
        ({"games_per_opening": 0}, "games_per_opening must be >= 1"),
        ({"games_per_opening": -5}, "games_per_opening must be >= 1"),
        ({"games_per_opening": 2.5}, "must be an int"),
        ({"reply_to": "R0,0+R1,0"}, "not a legal first placement"),
        ({"reply_to": "swap"}, "not a legal first placement"),
        ({"reply_to": "R0,-4+R2,-4"}, "not adjacent"),
        ({"workers": 0}, "workers"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        analyse(2, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="players"):
        analyse(5)


def test_cli_end_to_end(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A reduced analysis from the command line writes a readable Parquet file and a PNG."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    out, plot = tmp_path / "openings.parquet", tmp_path / "openings.png"
    code = main(
        [
            "openings",
            "--players",
            "2",
            "--games-per-opening",
            "4",
            "--seed",
            "1",
            "--workers",
            "2",
            "--out",
            str(out),
            "--plot",
            str(plot),
            "--no-progress",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "164 classes" in text and "win rate" in text
    table = pd.read_parquet(out)
    assert len(table) == 164
    assert table["games"].sum() == 4 * 164
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = tmp_path / "openings.csv"
    assert (
        main(
            [
                "openings",
                "--games-per-opening",
                "1",
                "--seed",
                "1",
                "--out",
                str(csv),
                "--no-progress",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert len(pd.read_csv(csv)) == 164


def test_cli_bad_arguments(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["openings", "--policy", "clever"]) == 2
    assert main(["openings", "--games-per-opening", "0", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "clever" in err and "games-per-opening" in err and "Traceback" not in err


@pytest.mark.parametrize("token", ["1", "1v", "2T", "2v", "4t"])
def test_variant_opening_classes(token: str) -> None:
    """RULES §1.6 holds in every variant: the group maps openings to openings; solo and the
    2-player variants share the 2-player board's 1,944 openings, teams the 4-player board's."""
    rules = Rules.parse(token)
    classes = opening_classes(rules)
    total = sum(c.size for c in classes)
    assert total == (5184 if rules.players == 4 else 1944)
    assert set(first_placements(rules)) == {m for c in classes for m in c.members}


def test_solo_analysis_ranks_by_result() -> None:
    """RULES §4.1: solo openings are compared by the result (the lowest counter)."""
    result = analyse(1, games_per_opening=6, seed=1, workers=1)
    assert result.metric == "lowest"
    assert result.table["lowest"].is_monotonic_decreasing
    assert (result.table["win_rate"] == 1.0).all()
    assert "mean result" in result.summary()
    with pytest.raises(ValueError, match="solo game has no second player"):
        analyse(1, games_per_opening=2, reply_to="R0,-4+R1,-5")


def test_team_analysis_counts_team_wins() -> None:
    result = analyse(4, teams=True, games_per_opening=2, seed=1, workers=2)
    assert len(result.table) == 436
    assert result.rules == __import__("genial").Rules(4, teams=True)
    assert int(result.table["wins"].sum()) <= int(result.table["games"].sum())


def test_tournament_replies_may_touch_the_same_symbol() -> None:
    """RULES §4.3: under tournament rules a reply may touch the opener's symbol or tile."""
    rules = __import__("genial").Rules(2, tournament=True)
    classes = opening_classes(rules, reply_to="R0,-4+R1,-5")
    members = {m for c in classes for m in c.members}
    assert Move.parse("R1,-4+R2,-5") in members  # touches the opener's tile and red symbol
    assert Move.parse("B0,-3+B1,-3") in members  # touches only the opener's tile
    base = {m for c in opening_classes(2, reply_to="R0,-4+R1,-5") for m in c.members}
    assert Move.parse("R1,-4+R2,-5") not in base
    assert base < members


def test_plot_with_extreme_win_rates(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    result = analyse(2, games_per_opening=2, seed=1, workers=1)
    assert (result.table["win_rate"] == 0).any() or (result.table["win_rate"] == 1).any()
    result.plot(tmp_path / "x.png")


def test_an_analysis_too_big_for_memory_is_refused_up_front(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """164 classes x 60 million games would need ~600 GiB of result rows: refused at once,
    before any chunk is played or any result array allocated (no clock: a busy machine would
    make it lie)."""
    import importlib
    import tracemalloc

    run = importlib.import_module("genial.batch.chunks")
    monkeypatch.setattr(run, "run_chunk", lambda *args: pytest.fail("a chunk was played"))
    tracemalloc.start()
    try:
        with pytest.raises(GenialError, match="GiB"):
            analyse(2, games_per_opening=60_000_000, workers=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak:,} bytes allocated before refusing"


def test_an_all_hatched_heatmap_says_why_on_the_picture() -> None:
    """A first run too small to show any difference does not draw a blank picture in silence:
    the heatmap's title says no cell differs at that many games a class, and to play more;
    a run that finds differences says nothing of the kind (issue 22)."""
    pytest.importorskip("matplotlib")
    import dataclasses

    from genial.board.pictures import cell_statistics, opening_figure

    small = analyse(2, games_per_opening=4, seed=1, workers=1)
    assert not cell_statistics(small).significant
    title = opening_figure(small).axes[0].get_title()
    assert "no cell differs detectably at 4 games a class: play more games" in title
    # the same classes measured as if to +-0.1 points (a run far larger than a test plays)
    table = small.table.copy()
    table["win_rate_lo"] = table["win_rate"] - 0.001
    table["win_rate_hi"] = table["win_rate"] + 0.001
    precise = dataclasses.replace(small, table=table)
    assert cell_statistics(precise).significant
    assert "no cell differs" not in opening_figure(precise).axes[0].get_title()
