"""Frictions a newcomer met with the ``genial`` command line: ``arena`` runs with its defaults,
``mc:0`` says why, ``play`` names the winner and marks bonus plays, dataset messages name the
flags, replay errors name the file, long runs print progress lines when stderr is a log."""

from __future__ import annotations

import importlib
import json
import re
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import genial.batch.dataset
import genial.cli
from genial import Game
from genial.cli import main

from .test_cli import assert_one_line, run

RUN = importlib.import_module("genial.batch.chunks")


# -- 1. arena with its defaults -----------------------------------------------------------------


def test_arena_runs_with_its_default_policies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, _ = run(["arena", "--games", "5", "--seed", "1", "--no-progress"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("arena: 2 policies, rules 2, 5 deals, 10 games")
    assert {lines[2].split()[0], lines[3].split()[0]} == {"random", "greedy"}
    code, out, err, _ = run(
        ["arena", "--games", "2", "--players", "3", "--seed", "1", "--no-progress"], capsys
    )
    assert code == 0, err
    assert out.startswith("arena: 3 policies, rules 3")


def test_arena_help_says_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: random greedy;" in text
    assert "(default: greedy)" not in text


# -- 2. mc:0 and mcts:0 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--policy", "{}"],
        ["play", "--policy", "greedy", "{}"],
        ["simulate", "--policy", "{}", "--no-progress"],
        ["openings", "--policy", "{}", "--no-progress"],
        ["analyse", "POSITION", "--policy", "{}", "--no-progress"],
        ["arena", "--policy", "random", "{}", "--no-progress"],
        ["learn", "--policy", "{}", "--out", "w.json"],
        ["cards", "play", "--policy", "{}"],
    ],
)
@pytest.mark.parametrize("name", ["mc:0", "mcts:0"])
def test_a_search_of_no_playouts_says_n_must_be_at_least_1(
    argv: list[str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, played = run([a.replace("{}", name) for a in argv], capsys)
    assert code == 2 and out == "" and played == 0
    command = " ".join(argv[:2]) if argv[0] == "cards" else argv[0]
    message = assert_one_line(err, command)
    assert f"'{name}': N must be at least 1" in message
    assert "unknown policy" not in message


def test_an_unknown_policy_is_still_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err, _ = run(["play", "--policy", "clever"], capsys)
    assert code == 2 and "unknown policy 'clever'" in assert_one_line(err, "play")


@pytest.mark.parametrize(
    "argv",
    [
        ["play"],
        ["simulate"],
        ["openings"],
        ["analyse"],
        ["learn"],
        ["cards", "play"],
        ["cards", "simulate"],
        ["cards", "analyse"],
        ["cards", "match"],
    ],
)
def test_every_command_has_one_default_policy(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """One default for every command and game (it was greedy for some, random for others)."""
    assert main([*argv, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    policy = text[text.rindex("--policy POLICY [POLICY ...]") :]
    assert "(default: greedy)" in policy[: policy.index("--epsilon")]


def test_the_command_line_plays_its_default_like_the_library(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``genial simulate`` without --policy plays what ``simulate(policy="greedy")`` does, and
    a position analysis's playouts default to greedy in the library as on the command line."""
    import inspect

    from genial.analysis import evaluate

    assert main(["simulate", "--games", "200", "--seed", "3", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "greedy" in said
    assert inspect.signature(evaluate).parameters["policy"].default == genial.cli.DEFAULT_POLICY


# -- 3. play: the winner, the bonus plays ---------------------------------------------------------


def test_play_names_the_winner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    assert main(["play", "--seed", "3", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    game = Game.from_record(json.loads(record.read_text()))
    winner = game.winner()
    assert winner is not None
    assert f"result: p{winner} wins\n" in out


def test_play_names_the_winning_team(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "1", "--players", "4", "--teams", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^result: seats ([01]) and ([23]) win \(team \1\)$", out, re.MULTILINE)


def _finished(ranks: list[int], winner: int | None, teams: bool = False) -> Any:
    return SimpleNamespace(
        players=len(ranks),
        rules=SimpleNamespace(teams=teams),
        ranks=lambda: np.array(ranks),
        winner=lambda: winner,
    )


@pytest.mark.parametrize(
    ("ranks", "winner", "teams", "said"),
    [
        ([1, 0], 1, False, "p1 wins"),
        ([0, 2, 0], None, False, "p0 and p2 share first place"),
        ([0, 0, 0, 3], None, False, "p0, p1 and p2 share first place"),
        ([1, 0, 1, 0], 1, True, "seats 1 and 3 win (team 1)"),
        ([0, 0, 0, 0], None, True, "the two teams (seats 0 and 2, seats 1 and 3) share first"),
    ],
)
def test_the_result_in_words(ranks: list[int], winner: int | None, teams: bool, said: str) -> None:
    assert genial.cli._result(_finished(ranks, winner, teams)).startswith(said)


@pytest.mark.parametrize("command", [["play", "--seed", "3"], ["cards", "play", "--seed", "1"]])
def test_play_marks_the_bonus_plays(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A bonus play is the same player's placement again in the same turn."""
    assert main(command) == 0
    moves = [line for line in capsys.readouterr().out.splitlines() if line.startswith("turn ")]
    bonus = [i for i, line in enumerate(moves) if line.endswith("(bonus)")]
    assert bonus
    for i in bonus:
        assert moves[i].split(":")[0] == moves[i - 1].split(":")[0]  # "turn  32  player 1 (..)"


# -- 4. datasets in the command line's words ------------------------------------------------------

SIMULATE = ["simulate", "--games", "2000", "--no-progress", "--workers", "1"]


def test_a_dataset_already_there_names_the_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    argv = [*SIMULATE, "--seed", "1", "--out", f"{tmp_path}/runs/"]
    assert main(argv) == 0
    capsys.readouterr()
    code, _, err, played = run(argv, capsys)
    assert code == 2 and played == 0
    message = assert_one_line(err, "simulate")
    assert "already holds a dataset: give --overwrite to replace it" in message
    assert "--resume" in message
    assert "Output(" not in message and "=True" not in message


@pytest.mark.parametrize("extension", [".parquet", ".csv"])
def test_out_file_is_refused_without_overwrite_like_a_dataset(
    extension: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / f"games{extension}"
    path.write_bytes(b"the old file")
    argv = [*SIMULATE, "--games", "20", "--out", str(path)]
    code, out, err, played = run(argv, capsys)
    assert code == 2 and out == "" and played == 0
    message = assert_one_line(err, "simulate")
    assert message.endswith("already holds a file: give --overwrite to replace it")
    assert path.read_bytes() == b"the old file"
    code, _, err, _ = run([*argv, "--overwrite"], capsys)
    assert code == 0, err
    assert path.read_bytes() != b"the old file"


@pytest.mark.parametrize(
    ("change", "said", "unsaid"),
    [
        (["--seed", "2"], "it was written with --seed 1, this command gives --seed 2", "pool_size"),
        ([], "this command gives no --seed", "pool_size"),
        (["--seed", "1", "--games", "3000"], "its --games: 2000, here 3000", "None"),
        (
            ["--seed", "1", "--policy", "random"],
            "--policy greedy greedy, this command plays random random",
            "[",
        ),
    ],
)
def test_a_resume_of_another_run_says_what_differs(
    change: list[str], said: str, unsaid: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    out = f"{tmp_path}/runs/"
    assert main([*SIMULATE, "--seed", "1", "--out", out]) == 0
    capsys.readouterr()
    code, _, err, _ = run([*SIMULATE, *change, "--out", out, "--resume"], capsys)
    assert code == 2
    message = assert_one_line(err, "simulate")
    assert message.startswith("--resume: the dataset in ")
    assert said in message and unsaid not in message
    assert "--overwrite" in message


@pytest.mark.parametrize("seed", [[], ["--seed", "7"]])
def test_ctrl_c_during_a_dataset_run_says_how_to_finish_it(
    seed: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C after some parts were written (one chunk a part here): the line says they were
    kept and gives the command that finishes the run (with the seed the run drew, when it was
    given none), which does."""
    pytest.importorskip("pyarrow")
    from genial.batch import open_dataset, simulate

    monkeypatch.setattr(genial.batch.dataset, "PART_CHUNKS", 1)
    monkeypatch.chdir(tmp_path)
    play, started = RUN.run_chunk, []

    def interrupted(*args: Any) -> Any:
        started.append(args)
        if len(started) == 4:
            raise KeyboardInterrupt
        return play(*args)

    monkeypatch.setattr(RUN, "run_chunk", interrupted)
    argv = [
        "simulate",
        "--games",
        "8000",
        "--workers",
        "1",
        "--no-progress",
        *seed,
        "--out",
        "runs/",
    ]
    code, out, err, _ = run(argv, capsys)
    assert code == 130 and out == ""
    message = assert_one_line(err, "simulate", kind="interrupted; ")
    assert message.startswith("the finished parts were kept in 'runs/'; ")
    assert "running the same command with --resume" in message
    command = shlex.split(message.partition("completes the run: ")[2])
    assert command[: len(argv) + 1] == ["genial", *argv] and command[-1] == "--resume"
    assert ("--seed" in command[len(argv) + 1 :]) == (not seed)
    monkeypatch.setattr(RUN, "run_chunk", play)
    code, out, err, _ = run(command[1:], capsys)
    assert code == 0, err
    assert "8,000 games written to runs/" in out
    back = open_dataset(tmp_path / "runs").to_playouts()
    root = int(command[command.index("--seed") + 1])
    expected = simulate(8000, seed=root, workers=1, policy="greedy")  # the command line's default
    assert np.array_equal(back.scores, expected.scores)


# -- 5. replay errors name the file ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "extra", "said"),
    [
        ({"moves": "x"}, [], "record 'r.json': "),
        ([1, 2], [], "record 'r.json': a record is a dict"),
        (None, ["--game", "cards"], "record 'r.json': a record of the game 'board'"),
        ("truncated", [], "record 'r.json': move 3: "),
    ],
)
def test_replay_errors_name_the_file(
    record: Any,
    extra: list[str],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    game = Game(2, seed=1)
    for _ in range(6):
        game.play(game.choose("greedy"))
    whole = game.to_record()
    if record is None:
        record = whole
    elif record == "truncated":
        record = {**whole, "moves": [*whole["moves"][:3], "nonsense"]}
    elif isinstance(record, dict):
        record = {**whole, **record}
    Path("r.json").write_text(json.dumps(record), encoding="utf-8")
    code, out, err, _ = run(["replay", "r.json", "--svg", "o.svg", *extra], capsys)
    assert code == 2 and out == ""
    assert assert_one_line(err, "replay").startswith(said)
    assert not Path("o.svg").exists()


# -- 6. progress lines when stderr is not a terminal ----------------------------------------------


def test_progress_lines_are_throttled_by_their_clock() -> None:
    """The plain lines: one at most every ``interval`` seconds of the clock (a fake one here)."""
    from genial.batch.progress import progress_bar, progress_lines

    times = iter([0.0, 1.0, 2.0, 6.0, 7.0, 12.0, 12.5])

    class Stream:
        text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

    stream = Stream()
    with progress_lines("genial analyse", interval=5.0, clock=lambda: next(times), stream=stream):  # type: ignore[arg-type]
        bar = progress_bar(600, True, unit="playouts")
    assert bar is not None
    for _ in range(6):
        bar(100)
    assert stream.text == (
        "genial analyse: 300/600 playouts, 6 s\ngenial analyse: 500/600 playouts, 12 s\n"
    )
    assert progress_bar(600, False) is None


@pytest.mark.parametrize("verb", ["simulate", "analyse"])
def test_progress_lines_when_stderr_is_not_a_terminal(
    verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """(Under capsys stderr is not a terminal; an interval of 0 prints every step.)"""
    monkeypatch.setattr(genial.cli, "PROGRESS_EVERY", 0.0)
    if verb == "simulate":
        argv, unit = ["simulate", "--games", "3000", "--workers", "1", "--seed", "1"], "games"
    else:
        game = Game(2, seed=1)
        for _ in range(6):
            game.play(game.choose("greedy"))
        argv = ["analyse", game.to_text(), "--playouts", "4", "--workers", "1", "--seed", "1"]
        unit = "playouts"
    code, _, err, _ = run(argv, capsys)
    assert code == 0, err
    lines = err.splitlines()
    assert lines, "no progress line"
    for line in lines:
        assert re.fullmatch(rf"genial {verb}: [0-9,]+/[0-9,]+ {unit}, [0-9,]+ s", line), line
    code, _, err, _ = run([*argv, "--no-progress"], capsys)
    assert code == 0 and err == ""


def test_progress_is_still_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    args = genial.cli.build_parser().parse_args(["simulate"])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert genial.cli._progress(args) and not genial.cli._progress_lines(args)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert genial.cli._progress_on(args) and genial.cli._progress_lines(args)
    quiet = genial.cli.build_parser().parse_args(["simulate", "--no-progress"])
    assert not genial.cli._progress_on(quiet)
