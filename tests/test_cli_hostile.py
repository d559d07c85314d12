"""The command line's inputs and outputs against a hostile user: a record that is a FIFO, a
directory, a huge or a deeply nested file is refused with one line and status 2 (never a hang,
never a traceback); an output path no file system takes (a name over 255 bytes, a NUL byte, a
missing directory, a directory) is refused before any game is played, and nothing is written;
the writes go through ``genial.files.atomic_path`` (the old file's mode kept, nothing left on
failure)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from genial.cli import (
    MAX_RECORD_BYTES,
    RECORDS,
    _output,
    _stored_header,
    _write_atomically,
    main,
)

from .processes import genial_process
from .test_cli import assert_one_line, files, run

PLAY = ["play", "--players", "2", "--seed", "1", "--quiet"]


def refused_replay(record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``genial replay RECORD --html ...`` refused with status 2 and nothing written; the
    message."""
    before = files(tmp_path)
    code, out, err, _ = run(["replay", str(record), "--html", str(tmp_path / "r.html")], capsys)
    assert code == 2 and out == ""
    assert files(tmp_path) == before
    return assert_one_line(err, "replay")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_replay_of_a_fifo_is_refused(tmp_path: Path) -> None:
    """A child process: were the FIFO opened for reading it would wait for a writer forever
    (the timeout only guards the test run)."""
    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    proc = genial_process(["replay", str(fifo), "--html", str(tmp_path / "r.html")], tmp_path)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    assert "not a regular file" in assert_one_line(err, "replay")
    assert out == "" and files(tmp_path) == {"record.json"}


def test_replay_of_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "record.json").mkdir()
    assert "not a regular file" in refused_replay(tmp_path / "record.json", tmp_path, capsys)


def test_replay_of_a_missing_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = refused_replay(tmp_path / "none.json", tmp_path, capsys)
    assert "cannot be read" in message and "none.json" in message


def test_replay_of_a_huge_file_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.json"
    with open(record, "wb") as fh:
        fh.truncate(MAX_RECORD_BYTES + 1)  # sparse: no disk used
    message = refused_replay(record, tmp_path, capsys)
    assert f"{MAX_RECORD_BYTES + 1:,} bytes" in message


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than"),
        (b'{"format": ' * 100_000, "not a JSON record"),
        (b'{"format": "genial-record", "seed": NaN}', "NaN"),
        (b'{"n": 1' + b"0" * 5000 + b"}", "digits"),
        (b"\xff\xfe", "not UTF-8 JSON"),
    ],
)
def test_replay_of_hostile_json_is_refused(
    content: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.json"
    record.write_bytes(content)
    message = refused_replay(record, tmp_path, capsys)
    assert "not a JSON record" in message and why in message


# -- output paths --------------------------------------------------------------------------------

LONG_SIMULATE = ["simulate", "--games", "100000000", "--policy", "greedy", "--no-progress"]
LONG_OPENINGS = ["openings", "--games-per-opening", "100000", "--workers", "1", "--no-progress"]


def outputs(tmp_path: Path) -> list[tuple[list[str], str, str]]:
    """Each output flag of each verb: (the command, the flag, its extension)."""
    record = tmp_path / "game.json"
    return [
        (PLAY, "--record", ".json"),
        (PLAY, "--svg", ".svg"),
        (LONG_SIMULATE, "--out", ".csv"),
        (LONG_OPENINGS, "--out", ".csv"),
        (LONG_OPENINGS, "--plot", ".png"),
        (["learn", "--games", "100000", "--seed", "1"], "--out", ".json"),
        (["replay", str(record)], "--html", ".html"),
        (["replay", str(record)], "--svg", ".svg"),
        (["cards", "play", "--seed", "1"], "--record", ".json"),
    ]


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    assert main([*PLAY, "--record", str(path)]) == 0
    return path


def refused_output(
    argv: list[str], path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    """``argv`` refused with status 2 before any game and nothing written; the message."""
    before = files(tmp_path)
    code, out, err, played = run([*argv, path], capsys)
    assert code == 2 and out == "", err
    assert played == 0, "the check must come before the games"
    assert files(tmp_path) == before
    return assert_one_line(err, argv[0])


def test_a_name_over_255_bytes_is_refused_before_any_game(
    tmp_path: Path,
    record: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import genial.learn

    def trained(*args: object, **kwargs: object) -> None:  # (learn's games are not counted)
        raise AssertionError("learn trained before it checked its --out")

    monkeypatch.setattr(genial.learn, "train", trained)
    for argv, flag, extension in outputs(tmp_path):
        name = "n" * (300 - len(extension)) + extension
        message = refused_output([*argv, flag], str(tmp_path / name), tmp_path, capsys)
        assert message.startswith(f"{flag} ") and "too long (300 bytes, at most 255)" in message
        # a name of several bytes a character: counted in bytes, not characters
        wide = "é" * (150 - len(extension)) + extension  # 150 characters, ~300 bytes
        message = refused_output([*argv, flag], str(tmp_path / wide), tmp_path, capsys)
        assert "too long" in message


@pytest.mark.parametrize(
    "problem", ["nul", "missing directory", "a directory", "long directory", "unencodable"]
)
def test_output_paths_no_file_system_takes_are_refused_before_any_game(
    problem: str, tmp_path: Path, record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {
        "nul": "NUL byte",
        "missing directory": "does not exist",
        "a directory": "is a directory",
        "long directory": "too long",
        "unencodable": "cannot be encoded",
    }[problem]
    for argv, flag, extension in outputs(tmp_path):
        path = {
            "nul": f"{tmp_path}/out\0put{extension}",
            "missing directory": f"{tmp_path}/no-such/out{extension}",
            "a directory": f"{tmp_path}/dir{extension}",
            "long directory": f"{tmp_path}/{'d' * 300}/out{extension}",
            "unencodable": f"{tmp_path}/out\ud800{extension}",
        }[problem]
        if problem == "a directory":
            os.makedirs(path, exist_ok=True)
        message = refused_output([*argv, flag], path, tmp_path, capsys)
        assert message.startswith(f"{flag} ") and expected in message, message


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--games", "100000000", "--no-progress", "--out"],
        ["openings", "--games-per-opening", "100000", "--adaptive", "--no-progress", "--out"],
    ],
)
def test_a_dataset_directory_name_over_255_bytes_is_refused_before_any_game(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = refused_output(argv, f"{tmp_path}/{'d' * 300}/", tmp_path, capsys)
    assert "--out" in message and "too long" in message
    message = refused_output(argv, f"{tmp_path}/da\0ta/", tmp_path, capsys)
    assert "NUL byte" in message


# -- the atomic writes ---------------------------------------------------------------------------


def test_a_write_keeps_the_old_files_mode_and_marks_the_output(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    target.write_text("old")
    target.chmod(0o600)
    out = _output("--record", str(target), RECORDS)

    def write(path: str) -> None:
        Path(path).write_text("new")

    _write_atomically(out, write)
    assert out.written and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert files(tmp_path) == {"game.json"}


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    target.write_text("old")
    out = _output("--record", str(target), RECORDS)

    def write(path: str) -> None:
        Path(path).write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        _write_atomically(out, write)
    assert not out.written and target.read_text() == "old"
    assert files(tmp_path) == {"game.json"}


def test_play_record_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    target.write_text("{}")
    target.chmod(0o640)
    assert main([*PLAY, "--record", str(target)]) == 0
    assert json.loads(target.read_text())["format"] == "genial-record"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert files(tmp_path) == {"game.json"}


# -- a dataset's header --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["directory", "huge", "deep", "not an object", "fifo"])
def test_a_hostile_dataset_header_reads_as_none(kind: str, tmp_path: Path) -> None:
    """What an interrupted ``simulate --out DIR/`` reads of the dataset: a header that is not a
    readable JSON file is no header (a FIFO is refused without waiting for a writer)."""
    meta = tmp_path / "_genial.json"
    if kind == "directory":
        meta.mkdir()
    elif kind == "huge":
        with open(meta, "wb") as fh:
            fh.truncate(64 * 2**20)
    elif kind == "deep":
        meta.write_bytes(b'{"header": ' * 50_000 + b"{}" + b"}" * 50_000)
    elif kind == "not an object":
        meta.write_text("[1, 2]")
    else:
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(meta)
    assert _stored_header(str(tmp_path)) is None
    meta_ok = tmp_path / "ok"
    meta_ok.mkdir()
    (meta_ok / "_genial.json").write_text(json.dumps({"header": {"games": 5}}))
    assert _stored_header(str(meta_ok)) == {"games": 5}
