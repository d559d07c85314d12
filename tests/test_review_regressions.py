"""Regression tests for defects found in review: each failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import genial
from genial import Game, GenialError, Move, PositionError, RecordError, simulate, wilson_interval
from genial.openings import analyse


def test_replay_uses_the_exact_epsilon() -> None:
    """Policy names round epsilon for display; replays must use the exact value."""
    runs = simulate(1100, policy="epsilon-greedy", epsilon=0.1234564999, seed=11)
    assert runs.policies[0] == "epsilon-greedy:0.123456"
    for row in (3, 700, 1099):
        assert runs.replay(row).scores.tolist() == runs.scores[row].tolist()


def test_team_rows_are_marked_won() -> None:
    """RULES §4.2: both partners of the winning team are marked as having won."""
    pytest.importorskip("pandas")
    runs = simulate(200, 4, teams=True, seed=1)
    frame = runs.to_pandas()
    wins = frame.groupby("seat")["won"].sum().tolist()
    team = [int((runs.winner == t).sum()) for t in (0, 1)]
    assert wins == [team[0], team[1], team[0], team[1]]


def test_wilson_interval_holds_the_proportion_at_the_ends() -> None:
    lo, hi = wilson_interval(0, 3)
    assert float(lo) == 0.0
    lo, hi = wilson_interval(7, 7)
    assert float(hi) == 1.0


def test_plot_with_extreme_win_rates(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    result = analyse(2, games_per_opening=2, seed=1, workers=1)
    assert (result.table["win_rate"] == 0).any() or (result.table["win_rate"] == 1).any()
    result.plot(tmp_path / "x.png")


def _fields() -> list[str]:
    return Game(2, seed=1).to_text().split()


def test_tile_types_counted_over_racks_and_bag() -> None:
    fields = _fields()
    fields[3] = "RR" * 6 + "/" + "RR" * 6
    fields[4] = "5" + "0" * 20
    with pytest.raises(PositionError, match="RR tiles"):
        Game.from_text(" ".join(fields))


@pytest.mark.parametrize(
    ("index", "value"),
    [(9, "40000"), (9, "2147483648"), (9, "\u00b2"), (5, "\u00b2"), (7, "\u00b2"), (9, "0")],
)
def test_numeric_fields_are_checked(index: int, value: str) -> None:
    fields = _fields()
    fields[index] = value
    before = " ".join(fields)
    with pytest.raises(PositionError):
        Game.from_text(before)
    record = Game(2, seed=1).to_record()
    record["start"] = before
    with pytest.raises(RecordError):
        Game.from_record(record)


def test_turn_saturates_at_the_last_int16() -> None:
    fields = _fields()
    fields[9] = "32767"
    game = Game.from_text(" ".join(fields), seed=1)
    game.play(game.choose("greedy"))
    assert game.turn == 32767
    assert Game.from_text(game.to_text()) == game


@pytest.mark.parametrize(
    "call",
    [
        lambda: Game(seed="abc"),
        lambda: Game(seed=1.5),
        lambda: simulate(5, policy=None),
        lambda: simulate(5, openings=5),
        lambda: simulate(5, policy="epsilon-greedy", epsilon="0.2"),
        lambda: simulate(3).replay(1.5),
        lambda: Move.place(((0.9, -4.2), (1, -4)), (0, 2)),
    ],
)
def test_odd_inputs_raise_genial_errors(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(GenialError):
        call()


def test_row_index_out_of_range() -> None:
    runs = simulate(3, seed=1)
    with pytest.raises(IndexError):
        runs[5]
    assert len(runs[-1]) == 1
    assert np.array_equal(runs[-1].scores, runs.scores[-1:])
    assert genial.Rules(2) == runs.game_rules
