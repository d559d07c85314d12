"""The ``genial`` command line (it only calls the library): output paths checked before any work,
atomic writes, one-line errors with their exit status, Ctrl-C."""

from __future__ import annotations

import errno
import importlib
import json
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import genial
import genial.batch
import genial.board.openings
import genial.cli
from genial import Game
from genial.batch.results import Playouts
from genial.board.openings import OpeningAnalysis
from genial.cards import CardGame
from genial.cli import build_parser, main
from genial.errors import excerpt

from .processes import genial_process

LONG_SIMULATE = ["simulate", "--games", "100000000", "--policy", "greedy", "--no-progress"]
LONG_OPENINGS = ["openings", "--games-per-opening", "100000", "--workers", "1", "--no-progress"]
RUN = importlib.import_module("genial.batch.chunks")  # the chunk loop simulate plays through


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, int]:
    """``main(argv)`` here: its status, stdout, stderr, and the games it began: chunks of a
    batch (``genial.batch.chunks.run_chunk``, which simulate and openings play through) and games
    of ``play`` (``genial.cli.make``). A refused command began none: its checks came before any
    game, which no clock can tell on a busy machine (the long runs above take hours)."""
    began: list[object] = []
    play_chunk, make = RUN.run_chunk, genial.cli.make

    def counted_chunk(*args: Any) -> Any:
        began.append(args)
        return play_chunk(*args)

    def counted_make(*args: Any, **kwargs: Any) -> Any:
        began.append(args)
        return make(*args, **kwargs)

    RUN.run_chunk, genial.cli.make = counted_chunk, counted_make
    try:
        code = main(argv)
    finally:
        RUN.run_chunk, genial.cli.make = play_chunk, make
    captured = capsys.readouterr()
    return code, captured.out, captured.err, len(began)


def assert_one_line(err: str, command: str, kind: str = "error: ") -> str:
    """``err`` is exactly one line ``genial <command>: <kind>...``; returns the message."""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    prefix = f"genial {command}: {kind}"
    assert err.startswith(prefix), err
    return err[len(prefix) : -1]


def files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


# -- playing and writing -------------------------------------------------------------------------


def test_play_prints_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "3", "--seed", "4", "--policy", "random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("turn   1  player 0 (random): ")
    assert "game over after" in out


def test_play_writes_a_record_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    args = ["play", "--seed", "2", "--quiet", "--record", str(path)]
    assert main([*args, "--policy", "greedy", "--policy", "random"]) == 0
    game = Game.from_record(json.loads(path.read_text()))
    assert game.is_over
    assert str(game) in capsys.readouterr().out
    assert files(tmp_path) == {"game.json"}  # no temporary file left


@pytest.mark.parametrize(
    "flags",
    [["--players", "1"], ["--players", "4", "--teams"], ["--tournament", "--tiles", "travel"]],
)
def test_play_variants(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "1", "--quiet", *flags]) == 0
    assert "game over" in capsys.readouterr().out


def test_play_bad_policy_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, _ = run(
        ["play", "--players", "3", "--policy", "random", "--policy", "greedy"], capsys
    )
    assert code == 2 and out == ""
    assert "one per player (3), not 2" in assert_one_line(err, "play")


def test_simulate_summary_and_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "games.parquet"
    argv = ["simulate", "--players", "2", "--games", "3000", "--policy", "greedy"]
    code = main([*argv, "--workers", "-1", "--seed", "1", "--out", str(out), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "3,000 games" in text and "win rate" in text and "games/s" in text
    assert out.read_bytes()[:4] == b"PAR1"
    frame = pd.read_parquet(out)
    assert len(frame) == 6000
    assert set(frame["seat"]) == {0, 1}
    assert files(tmp_path) == {"games.parquet"}


@pytest.mark.parametrize("name", ["games.csv", "GAMES.CSV"])
def test_simulate_writes_real_csv(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    argv = ["simulate", "--games", "400", "--seed", "5", "--no-progress", "--out"]
    assert main([*argv, str(tmp_path / name)]) == 0
    assert main([*argv, str(tmp_path / "games.parquet")]) == 0
    assert "written to" in capsys.readouterr().out
    raw = (tmp_path / name).read_bytes()
    assert raw.startswith(b"game,seat,policy,rank,won,score_R")  # text, not Parquet
    csv = pd.read_csv(tmp_path / name)
    parquet = pd.read_parquet(tmp_path / "games.parquet")
    assert len(csv) == 800
    assert list(csv.columns) == list(parquet.columns)
    for column in ("game", "seat", "rank", "score_R", "score_P", "lowest", "turns"):
        assert csv[column].tolist() == parquet[column].tolist()
    assert files(tmp_path) == {name, "games.parquet"}


def test_written_files_get_the_usual_permissions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The temporary file is private (0o600); the result is not."""
    path = tmp_path / "game.json"
    assert main(["play", "--seed", "1", "--quiet", "--record", str(path)]) == 0
    umask = os.umask(0o022)
    os.umask(umask)
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    path.chmod(0o640)  # replacing a file keeps its permissions
    assert main(["play", "--seed", "2", "--quiet", "--record", str(path)]) == 0
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
    capsys.readouterr()


def test_simulate_solo_reports_the_result_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--players", "1", "--games", "500", "--policy", "greedy", "--seed", "3"]
    assert main([*argv, "--no-progress"]) == 0
    assert "result = lowest counter" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("table", "picture", "magic"),
    [
        ("openings.csv", "openings.png", b"\x89PNG"),
        ("openings.parquet", "openings.svg", b"<?xml"),
        ("openings.csv", "openings.pdf", b"%PDF"),
    ],
)
def test_openings_writes_its_table_and_plot(
    table: str, picture: str, magic: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    argv = ["openings", "--games-per-opening", "2", "--workers", "1", "--seed", "1"]
    argv += ["--no-progress", "--out", str(tmp_path / table), "--plot", str(tmp_path / picture)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "164 opening classes written to" in out and "plot written to" in out
    read = pd.read_csv if table.endswith(".csv") else pd.read_parquet
    frame = read(tmp_path / table)
    assert len(frame) == 164 and int(frame["games"].sum()) == 328
    assert (tmp_path / picture).read_bytes().startswith(magic)
    assert files(tmp_path) == {table, picture}


# -- output paths refused before any work --------------------------------------------------------

OUTPUTS = [
    pytest.param(LONG_SIMULATE, "--out", ".parquet", id="simulate-out-parquet"),
    pytest.param(LONG_SIMULATE, "--out", ".csv", id="simulate-out-csv"),
    pytest.param(LONG_OPENINGS, "--out", ".parquet", id="openings-out-parquet"),
    pytest.param(LONG_OPENINGS, "--out", ".csv", id="openings-out-csv"),
    pytest.param(LONG_OPENINGS, "--plot", ".png", id="openings-plot-png"),
    pytest.param(LONG_OPENINGS, "--plot", ".svg", id="openings-plot-svg"),
    pytest.param(LONG_OPENINGS, "--plot", ".pdf", id="openings-plot-pdf"),
    pytest.param(["play", "--seed", "1"], "--record", ".json", id="play-record-json"),
]


@pytest.mark.parametrize(("argv", "flag", "extension"), OUTPUTS)
@pytest.mark.parametrize("problem", ["missing", "under-a-file", "a-directory", "read-only"])
def test_bad_output_directory_fails_before_playing(
    argv: list[str],
    flag: str,
    extension: str,
    problem: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = {
        "missing": "does not exist",
        "under-a-file": "does not exist",
        "a-directory": "is a directory",
        "read-only": "cannot write there",
    }[problem]
    if problem == "missing":
        path = tmp_path / "no-such-directory" / f"out{extension}"
    elif problem == "under-a-file":
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / f"out{extension}"
    elif problem == "a-directory":
        path = tmp_path / f"out{extension}"
        path.mkdir()
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        path = locked / f"out{extension}"
        if not hasattr(os, "geteuid") or os.geteuid() == 0:  # modes do not stop root (or Windows)

            def refuse(*args: object, **kwargs: object) -> None:
                raise PermissionError(errno.EACCES, "Permission denied")

            monkeypatch.setattr(genial.cli.tempfile, "mkstemp", refuse)
    before = files(tmp_path)
    try:
        code, out, err, played = run([*argv, flag, str(path)], capsys)
    finally:
        if problem == "read-only":
            (tmp_path / "locked").chmod(0o700)
    assert code == 2
    assert played == 0, "the check must come before the games"
    assert out == ""  # not a move, not a summary
    message = assert_one_line(err, argv[0])
    assert message.startswith(f"{flag} ") and expected in message
    assert files(tmp_path) == before
    if problem == "read-only":
        assert list((tmp_path / "locked").iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "flag", "accepted", "wrong"),
    [
        (
            LONG_SIMULATE,
            "--out",
            ".parquet, .csv",
            ["games.txt", "games.json", "games", "x.csv.gz"],
        ),
        (LONG_OPENINGS, "--out", ".parquet, .csv", ["table.xlsx", "table.png", "table"]),
        (LONG_OPENINGS, "--plot", ".png, .svg, .pdf", ["plot.jpg", "plot.csv", "plot"]),
        (["play", "--seed", "1"], "--record", ".json", ["game.txt", "game.csv", "game"]),
    ],
)
def test_wrong_extension_is_refused_at_once(
    argv: list[str],
    flag: str,
    accepted: str,
    wrong: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in wrong:
        code, out, err, played = run([*argv, flag, str(tmp_path / name)], capsys)
        assert code == 2 and out == "" and played == 0
        message = assert_one_line(err, argv[0])
        assert message.startswith(f"{flag} ") and f"(accepted: {accepted})" in message
        assert ("no extension" if "." not in name else "unsupported extension") in message
    code, _, err, _ = run([*argv, flag, ""], capsys)
    assert code == 2 and "empty path" in assert_one_line(err, argv[0])
    assert files(tmp_path) == set()


def test_a_long_path_is_quoted_as_an_excerpt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err, _ = run([*LONG_SIMULATE, "--out", "x" * 5000 + ".txt"], capsys)
    message = assert_one_line(err, "simulate")
    assert code == 2 and len(message) < 200 and "(5004 characters)" in message


@pytest.mark.parametrize(
    ("argv", "module", "extra"),
    [
        pytest.param([*LONG_SIMULATE, "--out", "g.parquet"], "pyarrow", "parquet", id="parquet"),
        pytest.param([*LONG_SIMULATE, "--out", "g.parquet"], "pandas", "parquet", id="parquet-pd"),
        pytest.param([*LONG_SIMULATE, "--out", "g.csv"], "pandas", "pandas", id="csv"),
        pytest.param([*LONG_OPENINGS, "--out", "t.parquet"], "pyarrow", "parquet", id="table"),
        pytest.param([*LONG_OPENINGS, "--plot", "p.png"], "matplotlib", "plot", id="plot"),
        pytest.param(LONG_OPENINGS, "pandas", "pandas", id="openings-table"),
    ],
)
def test_missing_optional_package_fails_before_playing(
    argv: list[str],
    module: str,
    extra: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("pandas")  # imported before the clock starts
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, module, None)  # import fails
    code, out, err, played = run(argv, capsys)
    assert code == 2 and out == "" and played == 0
    message = assert_one_line(err, argv[0])
    assert f"needs {module}, which is not installed: pip install 'genial-sim[{extra}]'" in message
    assert files(tmp_path) == set()


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "1e12"],
        ["openings", "--games-per-opening", "1e12"],
        ["openings", "--games-per-opening", "1e9", "--players", "4"],  # 436 classes
    ],
)
def test_a_run_too_big_for_memory_is_refused_at_once(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, played = run([*argv, "--no-progress"], capsys)
    assert code == 2 and out == "" and played == 0
    message = assert_one_line(err, argv[0])
    assert "results" in message and "this machine's" in message


# -- writes that fail or are interrupted ---------------------------------------------------------


def half_a_file_then(error: BaseException):  # type: ignore[no-untyped-def]
    def write(self: object, path: str) -> None:
        Path(path).write_bytes(b"PAR1 half a file")
        raise error

    return write


def test_a_failed_write_keeps_the_old_file_and_leaves_no_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "games.parquet"
    path.write_bytes(b"the old file")
    disk_full = OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(Playouts, "to_parquet", half_a_file_then(disk_full))
    code, out, err, _ = run(
        ["simulate", "--games", "50", "--no-progress", "--out", str(path), "--overwrite"], capsys
    )
    assert code == 1 and out == ""  # the summary waits for the files
    message = assert_one_line(err, "simulate")
    assert "could not write" in message and "No space left on device" in message
    assert "nothing was written" in message
    assert path.read_bytes() == b"the old file"
    assert files(tmp_path) == {"games.parquet"}


def test_one_failed_output_does_not_lose_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    denied = PermissionError(errno.EACCES, "Permission denied")
    monkeypatch.setattr(OpeningAnalysis, "to_csv", half_a_file_then(denied))
    argv = ["openings", "--games-per-opening", "1", "--workers", "1", "--no-progress"]
    argv += ["--out", str(tmp_path / "t.csv"), "--plot", str(tmp_path / "p.svg")]
    code, _, err, _ = run(argv, capsys)
    assert code == 1
    assert "could not write" in assert_one_line(err, "openings")
    assert files(tmp_path) == {"p.svg"}


def test_ctrl_c_while_writing_says_nothing_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "games.parquet"
    path.write_bytes(b"the old file")
    monkeypatch.setattr(Playouts, "to_parquet", half_a_file_then(KeyboardInterrupt()))
    code, _, err, _ = run(
        ["simulate", "--games", "50", "--no-progress", "--out", str(path), "--overwrite"], capsys
    )
    assert code == 130
    assert (
        err == f"genial simulate: interrupted; nothing was written to {excerpt(str(path), 100)}\n"
    )
    assert path.read_bytes() == b"the old file"
    assert files(tmp_path) == {"games.parquet"}


# -- exit statuses -------------------------------------------------------------------------------


def raiser(error: BaseException):  # type: ignore[no-untyped-def]
    def fail(*args: object, **kwargs: object) -> None:
        raise error

    return fail


@pytest.mark.parametrize(
    ("error", "code", "text"),
    [
        (KeyboardInterrupt(), 130, None),
        (OSError(errno.EACCES, "Permission denied", "/some/file"), 1, "Permission denied"),
        (OSError(errno.ENOSPC, "No space left on device"), 1, "No space left on device"),
        (MemoryError(), 1, "not enough memory"),
        (ValueError("bad input\nover two lines"), 2, "bad input over two lines"),
        (RuntimeError("x" * 1000), 1, "internal error"),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "openings"])
def test_errors_during_the_run_are_one_line_and_an_exit_status(
    error: BaseException,
    code: int,
    text: str | None,
    command: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if command == "simulate":
        monkeypatch.setattr(genial.batch, "simulate", raiser(error))
    else:
        monkeypatch.setattr(genial.board.openings, "analyse", raiser(error))
    got, out, err, _ = run([command, "--no-progress"], capsys)
    assert got == code and out == ""
    if text is None:
        assert err == f"genial {command}: interrupted\n"
    else:
        message = assert_one_line(err, command)
        assert text in message and len(message) <= 300


def test_ctrl_c_during_a_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Game, "choose", raiser(KeyboardInterrupt()))
    code, _, err, _ = run(["play", "--record", "never.json"], capsys)
    assert code == 130 and err == "genial play: interrupted\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--games", "-5"], "argument --games: must be at least 1, got '-5'"),
        (["simulate", "--teams"], "team game is for 4 players"),
        (["simulate", "--players", "3", "--tiles", "travel"], "travel set"),
        (["simulate", "--workers", "0"], "argument --workers: expected a whole number"),
        (["simulate", "--policy", "clever"], "unknown policy 'clever'"),
        (["simulate", "--policy", "epsilon-greedy:2"], "epsilon must be in [0, 1], got 2.0"),
        (["simulate", "--policy", "random", "--policy", "greedy", "--players", "3"], "policy"),
        (["simulate", "--bogus"], "unrecognized arguments: '--bogus'"),
        (["openings", "--reply-to", "nonsense"], "cannot read move 'nonsense'"),
        (["openings", "--reply-to", "z" * 10_000], "(10000 characters)"),
        (["openings", "--rows", "-1"], "argument --rows"),
        (["play", "--players", "5"], "argument --players: expected one of 1, 2, 3, 4, got '5'"),
        (["play", "--tiles", "x" * 10_000], "argument --tiles"),
        (["play", "--epsilon", "2"], "argument --epsilon: expected a number from 0 to 1"),
        (["play", "--svg", "x.png"], "--svg 'x.png': unsupported extension '.png'"),
        (["simulate", "--epsilon", "nan"], "argument --epsilon: expected a number from 0 to 1"),
        (["simulate", "--seed", "9" * 10_000], "argument --seed"),
        (["simulate", "--seed", str(2**8192)], "argument --seed: expected a whole number from 0"),
        (["play", "--seed", str(2**8192)], "from 0 to 2**8192-1, got '1090"),
    ],
)
def test_bad_arguments_are_one_line_with_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, played = run([*argv, "--no-progress"] if argv[0] != "play" else argv, capsys)
    assert code == 2 and out == "" and played == 0
    got = assert_one_line(err, argv[0])
    assert message in got and len(got) <= 300


def test_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err, _ = run([], capsys)
    assert code == 2 and err == (
        "genial: error: the following arguments are required: "
        "{play,simulate,openings,advantage,analyse,arena,match,replay,learn,cards}\n"
    )


def test_help_and_version_return_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("genial ")
    assert main(["simulate", "--help"]) == 0
    assert "--games N" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        "play",
        "simulate",
        "openings",
        "analyse",
        "arena",
        "cards play",
        "cards simulate",
        "cards match",
        "cards analyse",
    ],
)
def test_every_option_shows_its_default(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command.split(), "--help"]) == 0
    text = capsys.readouterr().out.split("options:\n", 1)[1]
    # --workers speaks of Dask only where --backend is an option
    assert ("--backend" in text) == ("Dask worker processes" in " ".join(text.split()))
    entries: list[str] = []
    for line in text.splitlines():
        if line.startswith("  -"):
            entries.append(line)
        elif line.startswith("   ") and entries:
            entries[-1] += " " + line.strip()
    assert len(entries) >= 7
    for entry in entries:
        if not entry.strip().startswith("-h, --help"):
            assert "(default: " in " ".join(entry.split()), entry


# -- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1000000", 10**6),
        ("1_000_000", 10**6),
        ("1e6", 10**6),
        ("1E6", 10**6),
        ("1.5e3", 1500),
        ("2.0", 2),
        ("+7", 7),
        ("1e12", 10**12),
        (" 12 ", 12),
    ],
)
@pytest.mark.parametrize("flag", ["--games", "--games-per-opening"])
def test_counts_of_games(text: str, value: int, flag: str) -> None:
    command = "simulate" if flag == "--games" else "openings"
    args = build_parser().parse_args([command, flag, text])
    assert getattr(args, flag[2:].replace("-", "_")) == value


@pytest.mark.parametrize(
    "text",
    [
        "1.5",
        "0.25e1",
        "1e-3",
        "0",
        "-5",
        "1e13",
        "1000000000001",
        "abc",
        "",
        "nan",
        "inf",
        "1,000",
        "1__000",
        "_1",
        "0x10",
        "١٢",
        "1e999999999",
        "9" * 5000,
    ],
)
@pytest.mark.parametrize("flag", ["--games", "--games-per-opening"])
def test_counts_of_games_refused(text: str, flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    command = "simulate" if flag == "--games" else "openings"
    code, out, err, played = run([command, flag, text], capsys)
    assert code == 2 and out == "" and played == 0
    message = assert_one_line(err, command)
    assert message.startswith(f"argument {flag}: ") and len(message) < 200


@pytest.mark.parametrize("command", ["simulate", "openings"])
def test_a_count_in_scientific_notation_plays_that_many(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if command == "simulate":
        assert main(["simulate", "--games", "1.5e3", "--seed", "1", "--no-progress"]) == 0
        assert "1,500 games" in capsys.readouterr().out
    else:
        pytest.importorskip("pandas")
        argv = ["openings", "--games-per-opening", "2e0", "--workers", "1", "--no-progress"]
        assert main(argv) == 0
        assert "328 games over 164 classes, 2 per class" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flag", "good", "bad"),
    [
        (
            "--seed",
            ["0", "1", "123456789012345678901234567890", str(2**200), str(2**8192 - 1)],
            ["-1", "1.5", "1e3", "x", "", str(2**8192)],
        ),
        ("--workers", ["-1", "1", "2", "1024"], ["0", "-2", "1.5", "x", "1025", ""]),
        ("--epsilon", ["0", "0.25", "1"], ["-0.1", "1.1", "nan", "inf", "x"]),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "openings"])
def test_seed_workers_epsilon(
    flag: str, good: list[str], bad: list[str], command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in good:
        args = build_parser().parse_args([command, flag, text])
        assert getattr(args, flag[2:]) == (float(text) if flag == "--epsilon" else int(text))
    for text in bad:
        code, out, err, _ = run([command, flag, text], capsys)
        assert code == 2 and out == ""
        assert assert_one_line(err, command).startswith(f"argument {flag}: expected ")


def test_defaults() -> None:
    parser = build_parser()
    sim = parser.parse_args(["simulate"])
    assert (sim.games, sim.seed, sim.epsilon, sim.out, sim.backend) == (
        100_000,
        None,
        0.1,
        None,
        "threads",
    )
    op = parser.parse_args(["openings"])
    assert (op.games_per_opening, op.rows) == (1000, 10)
    assert genial.cli._workers(sim) == genial.cli._workers(op) == -1  # every core
    on_cluster = parser.parse_args(["simulate", "--backend", "dask", "--address", "tcp://h:1"])
    assert genial.cli._workers(on_cluster) is None  # the cluster's own workers


@pytest.mark.parametrize("argv", [["simulate"], ["openings"], ["cards", "simulate"]])
def test_workers_default_is_every_core_everywhere_and_shown(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert genial.cli._workers(build_parser().parse_args(argv)) == -1
    code, out, _, _ = run([*argv, "--help"], capsys)
    assert code == 0
    assert "(default: -1, every core;" in " ".join(out.split())


def test_several_policies_in_one_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["play", "--players", "3", "--policy", "greedy", "random"])
    assert args.policy == ["greedy", "random"]
    args = build_parser().parse_args(
        ["simulate", "--policy", "greedy", "random", "--policy", "greedy"]
    )
    assert args.policy == ["greedy", "random", "greedy"]
    code, out, _, _ = run(
        ["play", "--players", "2", "--seed", "2", "--policy", "epsilon-greedy:0.5", "random"],
        capsys,
    )
    assert code == 0
    assert "(epsilon-greedy:0.5)" in out and "(random)" in out


def test_epsilon_flag_reaches_play(capsys: pytest.CaptureFixture[str]) -> None:
    """--epsilon sets the epsilon of epsilon-greedy seats in play, as in simulate: the game is
    the one Game.choose plays with that epsilon from the same seed."""
    from genial import Game

    def library(epsilon: float) -> str:
        game = Game(2, seed=3)
        while not game.is_over:
            game.play(game.choose("epsilon-greedy", epsilon=epsilon))
        return str(game)

    argv = ["play", "--players", "2", "--seed", "3", "--quiet", "--policy", "epsilon-greedy"]
    for epsilon in (0.0, 0.7):
        code, out, _, _ = run([*argv, "--epsilon", str(epsilon)], capsys)
        assert code == 0
        assert out.startswith(library(epsilon) + "\nresult: ")  # then who won
    assert library(0.0) != library(0.7)


def test_progress_follows_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from genial import cli

    parser = build_parser()
    auto = parser.parse_args(["simulate"])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert cli._progress(auto) is False
    assert cli._progress(parser.parse_args(["simulate", "--progress"])) is True
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli._progress(auto) is True
    assert cli._progress(parser.parse_args(["simulate", "--no-progress"])) is False


# -- through a real process ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "1.5"],
        [*LONG_SIMULATE, "--out", "no-such-directory/games.csv"],
        [*LONG_OPENINGS, "--plot", "plot.gif"],
        ["openings", "--reply-to", "nonsense", "--no-progress"],
        ["play", "--record", "."],
        ["play", "--players", "x" * 10_000],
    ],
)
def test_errors_in_a_real_process(argv: list[str], tmp_path: Path) -> None:
    """(The long runs would take hours: the 60 s are only a guard; that nothing is played
    before the checks is tested in this process, where the games can be counted.)"""
    proc = genial_process(argv, tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert out == ""
    message = assert_one_line(err, argv[0])
    assert len(message) < 300
    assert files(tmp_path) == set()


def test_a_closed_stdout_still_writes_the_record(tmp_path: Path) -> None:
    """``genial play ... | head -1``: the printing stops, the record is still written."""
    proc = genial_process(["play", "--seed", "3", "--record", "game.json"], tmp_path)
    assert proc.stdout is not None
    proc.stdout.close()  # before the game prints anything
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "broken pipe" in assert_one_line(err, "play")
    assert Game.from_record(json.loads((tmp_path / "game.json").read_text())).is_over


# -- Ctrl-C --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(LONG_SIMULATE, id="simulate"),
        pytest.param(
            ["openings", "--games-per-opening", "100000", "--no-progress", "--workers", "2"],
            id="openings",
        ),
    ],
)
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_stops_a_long_run_with_status_130(argv: list[str], tmp_path: Path) -> None:
    """SIGINT to a real process once its run is under way (its progress bar has appeared on
    stderr): exit status 130 and the one line ``genial <command>: interrupted``, no traceback.

    No tight clock here (a loaded machine missed "within a second"): 60 s is only a guard
    against a hang. How many games are played after the signal is bounded without a clock
    below; the latency itself is measured in benchmarks/test_latency.py."""
    proc = genial_process([*argv, "--progress"], tmp_path)  # (the last of --[no-]progress wins)
    assert proc.stderr is not None
    stderr = proc.stderr
    err: list[str] = []
    began = threading.Event()

    def read() -> None:
        for text in iter(lambda: stderr.read(1), ""):
            err.append(text)
            began.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert began.wait(60), "no progress bar within 60 s"
        assert proc.poll() is None, "the run ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"genial {argv[0]} still running 60 s after SIGINT")
        reader.join(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(60)
        for pipe in (proc.stdout, stderr):
            if pipe is not None:
                pipe.close()
    text = "".join(err)
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert text.endswith(f"genial {argv[0]}: interrupted\n"), text


SIGNAL_AT = 3
"""The chunk whose start sends the SIGINT in the test below."""


@pytest.mark.parametrize(
    ("argv", "workers"),
    [
        pytest.param(["simulate", "--games", "200000"], 1, id="simulate-serial"),
        pytest.param(["simulate", "--games", "200000"], 2, id="simulate-threads"),
        pytest.param(["openings", "--games-per-opening", "2000"], 2, id="openings-threads"),
    ],
)
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_stops_the_run_within_the_chunks_in_flight(
    argv: list[str],
    workers: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    """The mechanism that makes Ctrl-C quick, without a clock: a SIGINT arriving while chunk
    ``SIGNAL_AT`` plays (sent from its thread, as the terminal would) stops the run with status
    130 and one line, and at most ``2 * workers`` chunks start after it (those the thread pool
    already holds: two per worker; one worker plays in the calling thread and none starts).
    So the latency is at most a few chunks' time (1,024 games each, well under a second)
    whatever the length of the run (here about 200 chunks)."""
    # Python's KeyboardInterrupt handler for this test, whatever this process inherited (a
    # shell's background job, as a CI runner may start the tests, ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    started: list[int] = []
    play = RUN.run_chunk

    def signalling(spec: Any, chunk: int, size: int) -> Any:
        started.append(chunk)
        if len(started) == SIGNAL_AT:
            os.kill(os.getpid(), signal.SIGINT)
        return play(spec, chunk, size)

    monkeypatch.setattr(RUN, "run_chunk", signalling)
    argv = [*argv, "--policy", "random", "--workers", str(workers), "--seed", "1"]
    code, out, err, _ = run([*argv, "--no-progress"], capsys)
    assert code == 130 and out == ""
    assert err == f"genial {argv[0]}: interrupted\n"
    assert SIGNAL_AT <= len(started) <= SIGNAL_AT + (2 * workers if workers > 1 else 0)


# -- the card game -------------------------------------------------------------------------------


def test_cards_simulate_summary_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """genial cards simulate: a summary per seat, and the games as CSV rows (one per game and
    seat) equal to the library's own run with the same seed."""
    out = tmp_path / "cards.csv"
    argv = ["cards", "simulate", "--games", "300", "--players", "3", "--seed", "4"]
    code, text, err, _ = run([*argv, "--no-progress", "--out", str(out)], capsys)
    assert code == 0 and not err
    assert "rules c3" in text and "seat 2" in text and "plays per game" in text
    frame = pd.read_csv(out)
    expected = genial.simulate(300, 3, game="cards", policy="greedy", seed=4).to_pandas()
    assert len(frame) == 900
    assert frame["score_R"].tolist() == expected["score_R"].tolist()
    assert frame["reshuffles"].tolist() == expected["reshuffles"].tolist()


def test_cards_play_prints_the_end_and_writes_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.json"
    argv = ["cards", "play", "--players", "2", "--seed", "3", "--record", str(record)]
    code, text, err, _ = run(argv, capsys)
    assert code == 0 and not err
    assert "game over" in text
    game = CardGame.from_record(json.loads(record.read_text()))
    assert game.is_over and str(game) in text


def test_cards_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["cards", "simulate", "--players", "5"],
        ["cards", "simulate", "--turn-cap", "0"],
        ["cards", "simulate", "--out", "x.txt"],
        ["cards"],
    ):
        code, _, err, _ = run(argv, capsys)
        assert code == 2 and err.startswith("genial cards") and "Traceback" not in err


# -- pictures and replays ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["play", "--players", "3"], ["cards", "play"]])
def test_play_svg_and_replay(command: list[str], tmp_path: Path) -> None:
    """`play --svg` draws the final position; `genial replay` turns the record into one
    self-contained HTML page and the same final picture, for either game."""
    import xml.etree.ElementTree as ET

    from genial.render.html import replay_html
    from genial.render.svg import svg

    record, picture = tmp_path / "game.json", tmp_path / "end.svg"
    argv = [*command, "--seed", "8", "--quiet", "--record", str(record), "--svg", str(picture)]
    assert main(argv) == 0
    data = json.loads(record.read_text(encoding="utf-8"))
    game = CardGame.from_record(data) if command[0] == "cards" else genial.Game.from_record(data)
    assert game.is_over
    assert picture.read_text(encoding="utf-8") == svg(game)
    ET.fromstring(picture.read_text(encoding="utf-8"))  # well-formed
    page, again = tmp_path / "replay.html", tmp_path / "again.svg"
    assert main(["replay", str(record), "--html", str(page), "--svg", str(again)]) == 0
    html = page.read_text(encoding="utf-8")
    assert html == replay_html(data)
    assert "http://" not in html.replace("http://www.w3.org/", "")  # no network
    assert again.read_text(encoding="utf-8") == picture.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ('{"x":', ["--html", "o.html"], "not a JSON record"),
        (b"\xff\xfe", ["--html", "o.html"], "not a JSON record (not UTF-8 JSON)"),
        ('{"format": "genial-record"}', ["--html", "o.html"], "unsupported record version"),
        ("[]", ["--html", "o.html"], "a record is a dict"),
        ('{"format": "x"}', [], "give --html PATH.html and/or --svg PATH.svg"),
        ('{"format": "x"}', ["--html", "o.htm"], "unsupported extension '.htm'"),
    ],
)
def test_replay_refuses_bad_records_and_writes_nothing(
    content: str | bytes,
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    code, out, err, _ = run(["replay", str(path), *extra], capsys)
    assert code == 2 and out == ""
    assert message in assert_one_line(err, "replay")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


# -- datasets and clusters -----------------------------------------------------------------------


def test_simulate_out_directory_writes_a_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--out DIR/` writes a partitioned Parquet dataset holding the same games as the library's
    in-memory run; a second run into it is refused unless --overwrite; --resume finishes it."""
    from genial.batch import open_dataset, simulate

    out = tmp_path / "runs"
    argv = ["simulate", "--games", "3000", "--seed", "4", "--policy", "greedy", "--no-progress"]
    code, text, err, _ = run([*argv, "--out", f"{out}/"], capsys)
    assert code == 0, err
    assert "3,000 games written to" in text and "Parquet dataset" in text
    ds = open_dataset(out)
    mine = simulate(3000, policy="greedy", seed=4, workers=1)
    back = ds.to_playouts()
    assert np.array_equal(back.scores, mine.scores) and np.array_equal(back.ranks, mine.ranks)
    code, _, err, _ = run([*argv, "--out", f"{out}/"], capsys)
    assert code == 2 and "already holds a dataset" in assert_one_line(err, "simulate")
    assert main([*argv, "--out", f"{out}/", "--overwrite"]) == 0
    assert main([*argv, "--out", str(out), "--resume"]) == 0  # an existing directory
    code, _, err, _ = run([*argv, "--out", str(tmp_path / "t.parquet"), "--resume"], capsys)
    assert code == 2 and "is for --out DIRECTORY/" in assert_one_line(err, "simulate")


def test_backend_options(capsys: pytest.CaptureFixture[str]) -> None:
    """--address needs --backend dask; --backend takes only the known names (checked before any
    game is played)."""
    code, _, err, played = run(["simulate", "--address", "tcp://127.0.0.1:1"], capsys)
    assert code == 2 and played == 0 and "backend='dask'" in assert_one_line(err, "simulate")
    code, _, err, _ = run(["simulate", "--backend", "spark"], capsys)
    assert code == 2 and "argument --backend" in assert_one_line(err, "simulate")
    argv = ["openings", "--address", "tcp://127.0.0.1:1", "--no-progress"]
    code, _, err, _ = run(argv, capsys)
    assert code == 2 and "backend='dask'" in assert_one_line(err, "openings")


@pytest.mark.parametrize(
    ("command", "address", "message"),
    [
        (["simulate", "--games", "100"], "garbage://x", "'garbage://x': Dask cannot connect there"),
        (["simulate", "--games", "100"], "tcp://127.0.0.1:1", "nothing listens at"),
        (["openings", "--games-per-opening", "2"], "tcp://127.0.0.1:1", "nothing listens at"),
        (["simulate", "--games", "100"], "tcp://127.0.0.1:99999", "port must be 1..65535"),
        (["cards", "simulate"], "garbage://x", "unknown address scheme 'garbage'"),
    ],
)
def test_a_scheduler_that_cannot_be_reached_is_one_line_and_a_prompt_exit(
    command: list[str], address: str, message: str, tmp_path: Path
) -> None:
    """An unusable or dead --address: one error line naming it, status 2, the process gone
    with the connect timeout (2 s here): no minute-long hang in distributed's Client.__del__
    at exit, no "Exception ignored" traceback. (The 60 s limit is only a generous guard.)"""
    pytest.importorskip("distributed")
    argv = [*command, "--backend", "dask", "--address", address, "--connect-timeout", "2"]
    proc = genial_process([*argv, "--no-progress"], tmp_path)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"genial {' '.join(command)} still running 60 s after a bad --address")
    assert proc.returncode == 2, err
    assert out == "" and "Exception ignored" not in err
    got = assert_one_line(err, command[0])
    assert message in got and excerpt(address) in got and len(got) <= 300


def test_connect_timeout_option(capsys: pytest.CaptureFixture[str]) -> None:
    """--connect-timeout takes seconds in (0, 86400], and only with --address."""
    args = build_parser().parse_args(["simulate", "--connect-timeout", "0.5"])
    assert args.connect_timeout == 0.5
    for bad in ["0", "-1", "nan", "inf", "x", "86401"]:
        code, out, err, _ = run(["simulate", "--connect-timeout", bad], capsys)
        assert code == 2 and out == ""
        assert "argument --connect-timeout: expected" in assert_one_line(err, "simulate")
    code, _, err, _ = run(["openings", "--connect-timeout", "3", "--no-progress"], capsys)
    assert code == 2 and "is for the scheduler at --address" in assert_one_line(err, "openings")


# -- analysis and arena ----------------------------------------------------------------------


def test_analyse_prints_the_librarys_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`genial analyse POSITION` prints genial.evaluate's table for that position (the same
    whatever the workers)."""
    game = Game(2, seed=5)
    for _ in range(10):
        game.play(game.choose("greedy"))
    text = game.to_text()
    result = genial.evaluate(text, playouts=40, seed=3, workers=1, moves=None)
    argv = ["analyse", text, "--playouts", "40", "--seed", "3", "--rows", "4", "--no-progress"]
    for workers in ("1", "2"):
        code, out, err, _ = run([*argv, "--workers", workers], capsys)
        assert code == 0, err
        body = [line for line in out.splitlines() if "playouts/s" not in line]
        want = [line for line in result.summary(rows=4).splitlines() if "playouts/s" not in line]
        assert body == want
    code, _, err, _ = run(["analyse", "not a position", "--no-progress"], capsys)
    assert code == 2 and "position" in assert_one_line(err, "analyse")


def test_arena_command(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--policy", "random", "greedy", "--games", "30", "--seed", "1"]
    code, out, err, _ = run([*argv, "--no-progress"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("arena: 2 policies, rules 2, 30 deals, 60 games")
    assert lines[2].split()[0] == "greedy" and lines[3].split()[0] == "random"
    code, _, err, _ = run(["arena", "--policy", "greedy", "--no-progress"], capsys)
    assert code == 2 and "at least two policies" in assert_one_line(err, "arena")
