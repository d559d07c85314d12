"""The opening analysis's best set and confirmation stage (issue 41): the classes that may be
best at 95% (multiple comparisons with the best), and their estimates from fresh games on a
stream that took no part in selecting them."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genial import GenialError
from genial.batch import prepare, run_many
from genial.board import openings as module
from genial.board.openings import CONFIRM_KEY, BookError, analyse, book, read_book
from genial.board.pictures import openings_html
from genial.cli import main
from genial.seeds import child_seed
from genial.stats import best_set, best_set_of_means


@pytest.fixture(scope="module")
def checked() -> module.OpeningAnalysis:
    return analyse(2, games_per_opening=96, seed=7, confirm=80, workers=2)


def _games(analysis: module.OpeningAnalysis, games: int, key: tuple[int, ...]) -> list[np.ndarray]:
    """Every class's wins, game by game, played again from the analysis's paired streams."""
    specs = [
        replace(
            prepare(
                games,
                analysis.rules,
                policy="greedy",
                seed=child_seed(analysis.seed, *key),
                options={"openings": [cls.representative]},
            ),
            paired=True,
        )
        for cls in analysis.classes
    ]
    runs = run_many([(spec, games) for spec in specs], workers=2)
    return [(r.winner == 0).astype(np.float64) for r in runs]


def test_the_best_set_is_the_multiple_comparison_with_the_best_on_paired_games(
    checked: module.OpeningAnalysis,
) -> None:
    t = checked.table.sort_values("class")
    wins = _games(checked, 96, ())
    assert [int(w.sum()) for w in wins] == t["wins"].tolist()  # the analysis's very games
    assert t["best"].tolist() == best_set(wins, paired=True).mask.tolist()
    t = checked.table
    assert bool(t["best"].iloc[0])  # the leader always may be best
    size = int(t["best"].sum())
    assert 1 <= size < len(t)  # 96 games a class cannot tell every class apart, but some
    assert checked.best_words == (
        f"{size} of 164 classes are statistically tied for first (95%)"
        if size > 1
        else "1 of 164 classes is best (95%): no other may be"
    )


def test_the_members_and_only_they_are_confirmed(checked: module.OpeningAnalysis) -> None:
    t = checked.table
    members, others = t[t["best"]], t[~t["best"]]
    assert (members["confirm_games"] == 80).all()
    assert (others["confirm_games"] == 0).all() and others["confirmed"].isna().all()
    for _, row in members.iterrows():
        assert row["confirm_wins"] + row["confirm_shared"] <= 80
        assert row["confirmed"] == pytest.approx(row["confirm_wins"] / 80)
        assert row["confirmed_lo"] <= row["confirmed"] <= row["confirmed_hi"]
    assert checked.confirm == 80


def test_the_confirmation_games_are_fresh_and_independent_of_the_workers(
    checked: module.OpeningAnalysis,
) -> None:
    """The confirmation of class ``i`` is ``child_seed(root, CONFIRM_KEY, i)``'s games: the same
    whatever the workers, and other games than the selection's (a class confirmed on its own
    selection games would show the same wins)."""
    again = analyse(2, games_per_opening=96, seed=7, confirm=80, workers=1)
    columns = ["class", "best", "confirm_games", "confirm_wins", "confirm_lowest"]
    assert again.table[columns].fillna(-1).equals(checked.table[columns].fillna(-1))
    members = checked.table[checked.table["best"]]
    fresh = _games(checked, 80, (CONFIRM_KEY,))
    for _, row in members.iterrows():
        assert int(fresh[int(row["class"])].sum()) == int(row["confirm_wins"])
    selection = _games(checked, 80, ())
    assert any(
        not np.array_equal(fresh[int(c)], selection[int(c)]) for c in members["class"]
    )  # (other games than the selection's)


def test_the_confirmation_removes_the_winners_curse(checked: module.OpeningAnalysis) -> None:
    """The top of a table of noisy estimates is biased upward; the fresh games are not: over
    the best set, the selection's mean win rate exceeds the confirmed one, which sits at the
    average of all classes (greedy play: the classes differ by a few points at most)."""
    members = checked.table[checked.table["best"]]
    top = members.head(10)
    assert top["win_rate"].mean() > top["confirmed"].mean() + 0.05
    pooled = members["confirm_wins"].sum() / members["confirm_games"].sum()
    assert abs(pooled - checked.average) < 0.05


def test_summary_html_and_figure_mark_the_best_set(checked: module.OpeningAnalysis) -> None:
    text = checked.summary(rows=3)
    assert checked.best_words in text and "each confirmed on 80 fresh games" in text
    lines = text.splitlines()
    assert lines[3].lstrip().startswith("1*")
    assert "confirmed (fresh games)" in lines[2]
    page = openings_html(checked)
    assert "1*</td>" in page and checked.best_words in page and "confirmed (80 fresh games)" in page


def test_a_confirmed_book_round_trips(tmp_path: Path, checked: module.OpeningAnalysis) -> None:
    checked.to_book(tmp_path / "b")
    back = read_book(tmp_path / "b")
    columns = ["class", "best", *module._CONFIRM_TABLE]
    assert back.table[columns].fillna(-1).equals(checked.table[columns].fillna(-1))
    assert back.confirm == 80 and back.provenance is not None and back.provenance["confirm"] == 80


def _rewrite(where: Path, edit) -> None:  # type: ignore[no-untyped-def]
    import hashlib

    table = pd.read_csv(where / "table.csv")
    edit(table)
    text = table.to_csv(index=False, lineterminator="\n")
    (where / "table.csv").write_text(text)
    meta = json.loads((where / "book.json").read_text())
    meta["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    (where / "book.json").write_text(json.dumps(meta))


def test_a_book_whose_confirmed_classes_are_not_its_best_set_is_refused(
    tmp_path: Path, checked: module.OpeningAnalysis
) -> None:
    where = tmp_path / "b"
    checked.to_book(where)
    last = len(checked.table) - 1  # (the worst class: never in the best set here)
    assert not checked.table["best"].iloc[last]

    def confirm_the_worst(table: pd.DataFrame) -> None:
        table.loc[last, ["confirm_games", "confirm_wins", "confirm_lowest"]] = [80, 40, 9.0]
        table.loc[last, "confirm_lowest_sd"] = 1.0

    _rewrite(where, confirm_the_worst)
    with pytest.raises(BookError, match="not the table's best set"):
        read_book(where)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("confirm_games", 79, "bad counts of its confirmation"),
        ("confirm_wins", 81, "bad counts of its confirmation"),
        ("confirm_lowest", 99.0, "confirm_lowest outside"),
        ("confirm_lowest_sd", -1.0, "confirm_lowest_sd: negative"),
    ],
)
def test_a_book_with_bad_confirmation_counts_is_refused(
    tmp_path: Path, checked: module.OpeningAnalysis, column: str, value: float, message: str
) -> None:
    where = tmp_path / "b"
    checked.to_book(where)

    def damage(table: pd.DataFrame) -> None:
        table.loc[0, column] = value

    _rewrite(where, damage)
    with pytest.raises(BookError, match=message):
        read_book(where)


def test_a_book_without_a_confirmation_field_still_reads_and_has_a_best_set() -> None:
    two = book(2)
    assert two.confirm == 0 and "confirm" not in (two.provenance or {})
    assert 1 <= int(two.table["best"].sum()) <= len(two.table)
    assert "best set:" in two.summary()


def test_a_raced_table_draws_its_best_set_from_the_classes_raced_to_the_end() -> None:
    table = pd.DataFrame(
        {
            "games": [1000, 1000, 1000, 256],
            "win_rate": [0.55, 0.54, 0.40, 0.56],
            "stopped_after": [-1, -1, -1, 0],
        }
    )
    assert module._best(table, "win_rate").tolist() == [True, True, False, False]


def test_a_solo_analysis_confirms_its_result(tmp_path: Path) -> None:
    solo = analyse(1, games_per_opening=24, seed=2, confirm=16, workers=2)
    members = solo.table[solo.table["best"]]
    assert (members["confirm_games"] == 16).all()
    for _, row in members.iterrows():
        assert row["confirmed"] == row["confirm_lowest"]
        half = 1.959963984540054 * row["confirm_lowest_sd"] / math.sqrt(16)
        assert row["confirmed_hi"] == pytest.approx(row["confirmed"] + half)
    solo.to_book(tmp_path / "s")
    back = read_book(tmp_path / "s")
    assert np.allclose(back.table["confirmed"].fillna(-1), solo.table["confirmed"].fillna(-1))


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3", 10**10])
def test_bad_confirm_is_refused_before_any_game(bad: object) -> None:
    with pytest.raises(GenialError, match="confirm"):
        analyse(2, games_per_opening=10**12, confirm=bad)  # type: ignore[arg-type]


def test_the_command_line_confirms(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["openings", "--games-per-opening", "24", "--confirm", "24", "--seed", "3", "--rows", "2"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "each confirmed on 24 fresh games" in out and "statistically tied for first" in out
    assert main(["openings", "--confirm", "-2"]) == 2


def test_unpaired_classes_use_the_independent_means() -> None:
    independent = analyse(2, games_per_opening=64, seed=3, paired=False, workers=2)
    t = independent.table
    n = t["games"].to_numpy(dtype=float)
    p = t["win_rate"].to_numpy()
    expected = best_set_of_means(p, p * (1 - p) * n / (n - 1), n).mask
    assert t["best"].tolist() == expected.tolist() and not independent.paired
    with pytest.raises(GenialError, match="paired"):
        analyse(2, games_per_opening=10**12, paired="yes")  # type: ignore[arg-type]


def test_a_paired_book_keeps_its_best_set(tmp_path: Path, checked: module.OpeningAnalysis) -> None:
    """A paired table's best set needs its games, which a book does not keep: the book keeps
    the set itself (column ``best``), checked when read."""
    where = tmp_path / "b"
    checked.to_book(where)
    assert read_book(where).table["best"].tolist() == checked.table["best"].tolist()

    def drop(table: pd.DataFrame) -> None:
        del table["best"]

    _rewrite(where, drop)
    with pytest.raises(BookError, match="column best: missing"):
        read_book(where)
    checked.to_book(where)

    def nobody(table: pd.DataFrame) -> None:
        table["best"] = False

    _rewrite(where, nobody)
    with pytest.raises(BookError, match="best: no class"):
        read_book(where)


def test_the_command_line_plays_paired_or_independent_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["openings", "--games-per-opening", "16", "--seed", "4", "--rows", "1", "--workers", "1"]
    assert main(argv) == 0
    paired = capsys.readouterr().out
    assert main([*argv, "--no-paired"]) == 0
    independent = capsys.readouterr().out
    for text, flag in ((paired, True), (independent, False)):
        expected = analyse(2, games_per_opening=16, seed=4, paired=flag, workers=1)
        assert expected.best_words in text
        assert f"seat 0 wins {expected.average:.2%}" in text


# -- a long confirmation on disk, resumable (the books' confirmations run for hours) ---------------

_RACED = {"games_per_opening": 64, "seed": 11, "workers": 2, "adaptive": True,
          "policy": "mc:1:k1", "batch": 32, "confirm": 40}  # fmt: skip


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """A confirmation step of one chunk (16 games of mc:1:k1): 3 steps a class at confirm=40."""
    monkeypatch.setattr(module, "_CONFIRM_STEP_CHUNKS", 1)


def test_an_interrupted_confirmation_resumes_to_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_steps: None
) -> None:
    whole = analyse(2, **_RACED)  # no directory: every class's confirmation in one call
    members = [int(c) for c in whole.table.loc[whole.table["best"], "class"]]
    assert len(members) >= 2 and (whole.table.loc[whole.table["best"], "confirm_games"] == 40).all()
    real = module.run_many
    calls = {"confirm": 0}

    def interrupted(jobs, **kwargs):  # type: ignore[no-untyped-def]
        if jobs[0][0].seed.spawn_key[-1:] == (CONFIRM_KEY,):  # a confirmation step
            calls["confirm"] += 1
            if calls["confirm"] == 5:
                raise KeyboardInterrupt
        return real(jobs, **kwargs)

    monkeypatch.setattr(module, "run_many", interrupted)
    with pytest.raises(KeyboardInterrupt):
        analyse(2, out=tmp_path / "book", **_RACED)
    monkeypatch.setattr(module, "run_many", real)
    manifest = json.loads((tmp_path / "book" / "confirm" / "manifest.json").read_text())
    steps = manifest["steps"]
    assert len(steps) == 4  # the confirmation steps finished before Ctrl-C are kept
    assert [s["info"] for s in steps] == [
        {"class": members[0], "first": 0},
        {"class": members[0], "first": 16},
        {"class": members[0], "first": 32},
        {"class": members[1], "first": 0},
    ]
    assert manifest["params"]["members"] == members and manifest["params"]["confirm"] == 40
    resumed = analyse(2, out=tmp_path / "book", resume=True, **_RACED)
    assert resumed.table.equals(whole.table)  # the very games of one uninterrupted call
    # finished: it resumes to itself without playing a game
    monkeypatch.setattr(module, "run_many", None)
    again = analyse(2, out=tmp_path / "book", resume=True, **_RACED)
    assert again.table.equals(whole.table)
    monkeypatch.setattr(module, "run_many", real)
    with pytest.raises(module.CheckpointError, match="another analysis"):
        analyse(2, out=tmp_path / "book", resume=True, **{**_RACED, "confirm": 48})


def test_a_tampered_confirmation_step_is_refused(tmp_path: Path, small_steps: None) -> None:
    analyse(2, out=tmp_path / "book", **_RACED)
    where = tmp_path / "book" / "confirm"
    manifest = json.loads((where / "manifest.json").read_text())
    manifest["steps"][1]["info"]["first"] = 17  # a step claimed for other games
    (where / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(module.CheckpointError, match="step 1 is not a step of this confirm"):
        analyse(2, out=tmp_path / "book", resume=True, **_RACED)
    manifest["steps"][1]["info"]["first"] = 16
    n = len(manifest["steps"])  # a well-formed step more than the confirmation makes
    (where / f"step-{n:06d}.npz").write_bytes((where / "step-000000.npz").read_bytes())
    manifest["steps"].append({**manifest["steps"][0], "file": f"step-{n:06d}.npz"})
    (where / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(module.CheckpointError, match="more steps than this confirmation"):
        analyse(2, out=tmp_path / "book", resume=True, **_RACED)
    manifest["steps"].pop()
    (where / "manifest.json").write_text(json.dumps(manifest))
    (where / "step-000000.npz").write_bytes(b"PK\x03\x04 not an archive")
    with pytest.raises(module.CheckpointError, match="checksum"):
        analyse(2, out=tmp_path / "book", resume=True, **_RACED)


def test_the_command_line_confirms_into_its_book_and_resumes(
    tmp_path: Path, small_steps: None
) -> None:
    where = tmp_path / "book"
    argv = ["openings", "--players", "2", "--games-per-opening", "64", "--policy", "mc:1:k1",
            "--adaptive", "--batch", "32", "--seed", "11", "--confirm", "40", "--no-progress",
            "--rows", "1", "--out", str(where)]  # fmt: skip
    assert main(argv) == 0
    written = read_book(where)
    assert written.confirm == 40
    assert written.table.equals(analyse(2, **_RACED).table[written.table.columns])
    assert main([*argv, "--resume"]) == 0  # finished: the same book, no game played
    assert read_book(where).table.equals(written.table)


# -- the agreement of two tables' rankings (the skill ladder) --------------------------------------


def test_the_agreement_of_two_tables(checked: module.OpeningAnalysis) -> None:
    """Kendall's tau between the classes' win rates (matched by class, whatever the tables'
    order) and the overlap of the top 10, with bootstrap intervals; refused across rules."""
    from genial.stats import kendall_tau

    other = analyse(2, games_per_opening=96, seed=8, workers=2)
    found = checked.agreement(other, draws=200, seed=3)
    a, b = checked.table.sort_values("class"), other.table.sort_values("class")
    assert found.tau == kendall_tau(a["win_rate"], b["win_rate"])
    top_a = set(checked.table["class"].iloc[:10])
    top_b = set(other.table["class"].iloc[:10])
    assert found.candidates == 164 and found.top == 10
    assert abs(found.overlap - len(top_a & top_b)) <= 2  # (ties at the 10th broken otherwise)
    assert found.tau_lo <= found.tau_hi and found.overlap_lo <= found.overlap_hi
    assert found == checked.agreement(other, draws=200, seed=3)  # the seed decides
    itself = checked.agreement(checked, draws=50)
    assert itself.tau == 1.0 and itself.overlap == 10
    assert found.tau < itself.tau_same  # 96 games a class: noise, so two seeds agree less
    with pytest.raises(GenialError, match="same classes"):
        checked.agreement(analyse(3, games_per_opening=2, seed=1, workers=2))
    with pytest.raises(GenialError, match="another OpeningAnalysis"):
        checked.agreement("book")  # type: ignore[arg-type]
    with pytest.raises(GenialError, match="top must be"):
        checked.agreement(other, top=0)
