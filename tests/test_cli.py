"""The ``genial`` command line (it only calls the library)."""

from __future__ import annotations

import json

import pytest

from genial import Game
from genial.cli import main


def test_play_prints_a_whole_game(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["play", "--players", "3", "--seed", "4", "--policy", "random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("turn   1  player 0 (random): ")
    assert "game over after" in out


def test_play_writes_a_record_that_replays(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "game.json"
    args = ["play", "--seed", "2", "--quiet", "--record", str(path)]
    assert main([*args, "--policy", "greedy", "--policy", "random"]) == 0
    game = Game.from_record(json.loads(path.read_text()))
    assert game.is_over
    assert str(game) in capsys.readouterr().out


@pytest.mark.parametrize(
    "flags",
    [["--players", "1"], ["--players", "4", "--teams"], ["--tournament", "--tiles", "travel"]],
)
def test_play_variants(flags: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["play", "--seed", "1", "--quiet", *flags]) == 0
    assert "game over" in capsys.readouterr().out


def test_play_bad_policy_count(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit, match="one per player"):
        main(["play", "--players", "3", "--policy", "random", "--policy", "greedy"])


def test_simulate_summary_and_parquet(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "games.parquet"
    code = main(
        [
            "simulate",
            "--players",
            "2",
            "--games",
            "3000",
            "--policy",
            "greedy",
            "--workers",
            "-1",
            "--seed",
            "1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "3,000 games" in text and "win rate" in text and "games/s" in text
    frame = pd.read_parquet(out)
    assert len(frame) == 6000
    assert set(frame["seat"]) == {0, 1}


def test_simulate_solo_reports_the_result_distribution(capsys) -> None:  # type: ignore[no-untyped-def]
    assert (
        main(
            [
                "simulate",
                "--players",
                "1",
                "--games",
                "500",
                "--policy",
                "greedy",
                "--seed",
                "3",
                "--no-progress",
            ]
        )
        == 0
    )
    assert "result = lowest counter" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--games", "-5", "--no-progress"], "n_games must be >= 0"),
        (["simulate", "--teams", "--no-progress"], "team game is for 4 players"),
        (["simulate", "--players", "3", "--tiles", "travel", "--no-progress"], "travel set"),
        (["simulate", "--workers", "0", "--no-progress"], "workers"),
    ],
)
def test_simulate_errors(argv: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_policy_is_an_argument_error(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--policy", "clever"])
    assert exc.value.code == 2
    assert "unknown policy" in capsys.readouterr().err
