"""Issue 40's acceptance test, played as a hostile user would play it: every case of the issue
tried through the public API and the command line only (``genial.cli.main`` in this process,
``python -m genial`` in a child where a plug-in must be installed or a read could block).

Each hostile input must give a ``GenialError`` (for OpenSpiel one that is also a
``pyspiel.SpielError``) naming the file or the field, never another exception, a hang or a
``MemoryError``, and must change nothing on disk. Huge files are sparse (``truncate``), a
blocking file is a FIFO; the subprocess timeouts and the thread joins below only guard against
a hang (a hung read fails the test instead of stopping the suite), they bound no speed.

The cases, by the issue's numbers: 1. crafted pickles for OpenSpiel's state readers; 2. writers
racing (``files.write_atomic`` and ``OpeningAnalysis.to_book`` in threads); 3. plug-ins that
fail, and the registry's own games; 4. readers of every file genial reads back (deep JSON,
8 GB files, FIFOs, an inflating ``.npz``, infinite numbers, wrong types, a malformed race, a
damaged weights file); 5. round trips and arguments (``to_book``/``read_book``, ``train``,
``fit``, ``book``); 6. OpenSpiel actions, samplers and random games with hostile actions;
7. an output name over 255 bytes, refused before any game is played."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from genial.openings import OpeningAnalysis, analyse, book, read_book

import genial
from genial import GenialError
from genial.cli import main
from genial.files import write_atomic
from genial.learn import WeightsError, fit, read_weights, train, write_weights
from genial.racing import CheckpointError
from genial.registry import entry, entry_of, games, register, unregister

from .depth import sized
from .processes import genial_env, genial_process

pyspiel = pytest.importorskip("pyspiel")
from genial.integrations import openspiel  # noqa: E402  (registers genial's games)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(genial.__file__).parent
HANG_GUARD = 120  # seconds: a guard against a hang, never a speed bound
DEEP = 100_000
HUGE = 8 << 30  # bytes, as a sparse file
POSIX = os.name == "posix"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


# -- helpers ---------------------------------------------------------------------------------------


def deep_json() -> str:
    return "[" * DEEP + "]" * DEEP


def sparse(path: Path, size: int = HUGE) -> Path:
    """``path`` made a sparse file of ``size`` bytes (no disk, no memory)."""
    with open(path, "wb") as out:
        out.truncate(size)
    return path


def fifo(path: Path) -> Path:
    """``path`` replaced by a FIFO nobody writes to (opening it to read would block)."""
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


def snapshot(directory: Path) -> dict[str, Any]:
    """What a directory holds (recursively): each regular file's bytes (or size and time if
    huge), each other entry's kind; for the check that a refused read changed nothing."""
    found: dict[str, Any] = {}
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        name = str(path.relative_to(directory))
        if path.is_symlink():
            found[name] = ("link", os.readlink(path))
        elif path.is_dir():
            found[name] = "dir"
        elif not path.is_file():
            found[name] = ("special", info.st_mode)
        elif info.st_size > 64 << 20:
            found[name] = ("huge", info.st_size, info.st_mtime_ns)
        else:
            found[name] = path.read_bytes()
    return found


def unblock(path: Path) -> None:
    """Release a reader blocked on the FIFO ``path`` (open its other end and close it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    os.close(fd)


def guarded(call: Callable[[], Any], fifos: tuple[Path, ...] = ()) -> Any:
    """``call()`` in a thread, joined within ``HANG_GUARD`` seconds: its result, or its
    exception raised here. A call still blocked then (on a FIFO) is released and the test
    fails: it hung."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # (re-raised in the test's thread)
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    if worker.is_alive():
        for path in fifos:
            unblock(path)
        worker.join(10)
        pytest.fail(f"hung: still blocked after {HANG_GUARD} s (on {[str(p) for p in fifos]})")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def refused(
    call: Callable[[], Any],
    kind: type[BaseException] = GenialError,
    *,
    names: tuple[str, ...] = (),
    fifos: tuple[Path, ...] = (),
) -> str:
    """``call()`` must raise ``kind`` (a GenialError), within the hang guard, with a message
    holding each of ``names``; returns the message. Any other exception fails the test with
    its type (a MemoryError, RecursionError, IndexError, ... is a finding, not a pass)."""
    try:
        value = guarded(call, fifos)
    except kind as exc:
        message = str(exc)
        for name in names:
            assert name in message, f"the message does not name {name!r}: {message}"
        return message
    except BaseException as exc:
        pytest.fail(f"expected {kind.__name__}, got {type(exc).__name__}: {str(exc)[:300]}")
    pytest.fail(f"expected {kind.__name__}, got a result: {repr(value)[:300]}")


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``genial ARGV`` in this process: its status, stdout and stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:  # (main should return; a SystemExit is still a status)
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def child(argv: list[str], cwd: Path, fifos: tuple[Path, ...] = ()) -> tuple[int, str, str]:
    """``python -m genial ARGV`` in a child (hang-guarded): its status, stdout and stderr."""
    process = genial_process(argv, cwd)
    try:
        out, err = process.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        for path in fifos:
            unblock(path)
        process.kill()
        process.communicate()
        pytest.fail(f"genial {' '.join(argv)} hung (killed after {HANG_GUARD} s)")
    return process.returncode, out, err


# -- shared, cheap analyses ------------------------------------------------------------------------

UNIFORM = {"games_per_opening": 2, "policy": "random", "workers": 1}
RACE = {
    "games_per_opening": 1024,
    "policy": "random",
    "seed": 1,
    "workers": 1,
    "adaptive": True,
    "batch": 1024,
}


@pytest.fixture(scope="module")
def analyses() -> list[OpeningAnalysis]:
    """Four small uniform analyses of different seeds (the book writers of case 2)."""
    return [analyse(2, seed=seed, **UNIFORM) for seed in (1, 2, 3, 4)]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, analyses: list[OpeningAnalysis]) -> Path:
    """A uniform book, a raced book and a race checkpoint, written once, copied by each test."""
    root = tmp_path_factory.mktemp("pristine")
    analyses[0].to_book(root / "book")
    raced = analyse(2, out=root / "race", **RACE)
    raced.to_book(root / "raced-book")
    assert sorted(p.name for p in (root / "race").iterdir() if p.suffix == ".npz")
    return root


@pytest.fixture
def uniform_book(pristine: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(pristine / "book", tmp_path / "book"))


@pytest.fixture
def raced_book(pristine: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(pristine / "raced-book", tmp_path / "raced-book"))


@pytest.fixture
def checkpoint(pristine: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(pristine / "race", tmp_path / "race"))


def resume(directory: Path) -> OpeningAnalysis:
    """The public way to read a checkpoint back: resume the analysis that wrote it."""
    return analyse(2, out=directory, resume=True, **RACE)


def manifest(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "manifest.json").read_text("utf-8"))
    return data


def book_json(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "book.json").read_text("utf-8"))
    return data


# == 1. OpenSpiel: a crafted pickle runs nothing =================================================

SPIEL_GAMES = [("genial_board", {"players": 2}), ("genial_cards", {"players": 3})]
HEADER = "# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"


class Touch:
    """A pickle payload: unpickling it creates the file ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (Path.touch, (Path(self.path),))


def crafted_states(target: Path, game: Any) -> list[Any]:
    """State strings a hostile user would hand to a state reader, each carrying a pickle that
    creates ``target`` when unpickled."""
    raw = pickle.dumps(Touch(target))
    wrapped = pickle.dumps({"_held": Touch(target)})
    blob = base64.b64encode(wrapped).decode()
    genuine = json.loads(game.new_initial_state().serialize())
    smuggled = dict(genuine, params=dict(genuine["params"], payload=blob))
    return [
        raw,
        raw.decode("latin-1"),
        base64.b64encode(raw).decode(),
        blob,
        f"history=\nmove_number=0\n__dict__={blob}",  # OpenSpiel's text of a Python state
        f"history=\nmove_number=0\n__dict__={blob}\n",
        json.dumps(smuggled),
        json.dumps(dict(genuine, actions=blob)),
    ]


@pytest.mark.parametrize(("name", "params"), SPIEL_GAMES)
def test_1_deserialize_state_of_a_crafted_pickle_runs_nothing(
    tmp_path: Path, name: str, params: dict[str, Any]
) -> None:
    game = pyspiel.load_game(name, params)
    target = tmp_path / "pwned"
    for text in crafted_states(target, game):
        message = refused(lambda text=text: game.deserialize_state(text), pyspiel.SpielError)
        assert target.exists() is False, f"the payload ran: {message}"
        with pytest.raises(GenialError):
            game.deserialize_state(text)
    assert not target.exists()


@pytest.mark.parametrize(("name", "params"), SPIEL_GAMES)
def test_1_deserialize_game_and_state_of_a_crafted_pickle_runs_nothing(
    tmp_path: Path, name: str, params: dict[str, Any]
) -> None:
    game = pyspiel.load_game(name, params)
    target = tmp_path / "pwned"
    for state in crafted_states(target, game):
        if not isinstance(state, str):
            continue
        for game_string in (str(game), f"{name}()", f" {game} ", game.serialize()):
            text = f"{HEADER}[Game]\n{game_string}\n[State]\n{state}\n"
            for kind in (GenialError, pyspiel.SpielError):
                refused(lambda text=text: pyspiel.deserialize_game_and_state(text), kind)
                assert not target.exists(), "the payload ran"


# == 2. writers racing ============================================================================

ROUNDS = sized("GENIAL_PROBE_ROUNDS", 100, 100)


def test_2_write_atomic_from_eight_threads_leaves_one_whole_text(tmp_path: Path) -> None:
    target = tmp_path / "shared.txt"
    problems: list[str] = []
    seen_partial: list[str] = []
    for round_ in range(ROUNDS):
        texts = [f"writer {i} round {round_} " + chr(97 + i) * (4096 * (i + 1)) for i in range(8)]
        allowed = set(texts)
        previous = target.read_text("utf-8") if target.exists() else None
        barrier = threading.Barrier(9)
        stop = threading.Event()

        def write(
            i: int,
            texts: list[str] = texts,
            barrier: threading.Barrier = barrier,
            round_: int = round_,
        ) -> None:
            barrier.wait()
            try:
                write_atomic(target, texts[i])
            except BaseException as exc:
                problems.append(f"round {round_} writer {i}: {type(exc).__name__}: {exc}")

        def read(
            allowed: set[str] = allowed,
            previous: str | None = previous,
            barrier: threading.Barrier = barrier,
            stop: threading.Event = stop,
            round_: int = round_,
        ) -> None:
            barrier.wait()
            while not stop.is_set():
                try:
                    text = target.read_text("utf-8")
                except FileNotFoundError:
                    if previous is not None:
                        seen_partial.append(f"round {round_}: the file vanished")
                    continue
                if text not in allowed and text != previous:
                    seen_partial.append(f"round {round_}: a reader saw {len(text)} chars")

        threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
        reader = threading.Thread(target=read)
        for thread in [*threads, reader]:
            thread.start()
        for thread in threads:
            thread.join(HANG_GUARD)
        stop.set()
        reader.join(HANG_GUARD)
        assert target.read_text("utf-8") in allowed, f"round {round_}: not one of the texts"
    assert problems == []
    assert seen_partial == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.txt"]  # no temporary left


def test_2_to_book_from_four_threads_leaves_one_complete_book(
    tmp_path: Path, analyses: list[OpeningAnalysis]
) -> None:
    directory = tmp_path / "book"
    problems: list[str] = []
    rounds = sized("GENIAL_PROBE_BOOK_ROUNDS", 40, 24)
    for round_ in range(rounds):
        barrier = threading.Barrier(4)
        wrote: list[int] = []

        def write(
            i: int,
            barrier: threading.Barrier = barrier,
            wrote: list[int] = wrote,
            round_: int = round_,
        ) -> None:
            barrier.wait()
            try:
                analyses[i].to_book(directory, command=f"writer {i}")
            except GenialError:
                return  # refused: another writer held the book (allowed)
            except BaseException as exc:
                problems.append(f"round {round_} writer {i}: {type(exc).__name__}: {exc}")
                return
            wrote.append(i)

        threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(HANG_GUARD)
        assert wrote, f"round {round_}: every writer was refused"
        got = read_book(directory)  # one complete book, never a mixture
        writer = int(got.provenance["command"].split()[-1])  # type: ignore[index]
        assert writer in wrote
        assert got.table["wins"].tolist() == analyses[writer].table["wins"].tolist()
        assert got.seed is not None and got.seed.entropy == analyses[writer].seed.entropy  # type: ignore[union-attr]
        assert sorted(p.name for p in directory.iterdir()) == ["book.json", "table.csv"]
    assert problems == []


# == 3. plug-ins ==================================================================================

TOY_ENTRY = """
import dataclasses
from tests.toy.entry import GAME as TOY
GAME = dataclasses.replace(TOY, name={name!r}, aliases={aliases!r}, record_format=None,
                           cli={cli!r})
"""

PLUGINS: dict[str, tuple[str, str | None, str]] = {
    # case: (entry module source, command-line module source, the entry point's object)
    "factory raises": (
        "def make():\n    raise RuntimeError('the factory of evilgame fails')\n",
        None,
        "make",
    ),
    "alias of a built-in": (
        TOY_ENTRY.format(name="evilgame", aliases=("ingenious",), cli=None),
        None,
        "GAME",
    ),
    "command line does not import": (
        TOY_ENTRY.format(name="evilgame", aliases=(), cli="evilgame_cli"),
        "raise ImportError('the command line of evilgame is broken')\n",
        "GAME",
    ),
    "command line VERBS malformed": (
        TOY_ENTRY.format(name="evilgame", aliases=(), cli="evilgame_cli"),
        "VERBS = 42\ndef add_options(parser, verb, types):\n    pass\n"
        "def rules(options):\n    return None\n",
        "GAME",
    ),
    "command line add_options raises": (
        TOY_ENTRY.format(name="evilgame", aliases=(), cli="evilgame_cli"),
        "VERBS = ('play', 'simulate')\n"
        "def add_options(parser, verb, types):\n    raise KeyError('evil options')\n"
        "def rules(options):\n    return None\n",
        "GAME",
    ),
    "command line clashes with an option": (
        TOY_ENTRY.format(name="evilgame", aliases=(), cli="evilgame_cli"),
        "VERBS = ('play', 'simulate')\n"
        "def add_options(parser, verb, types):\n    parser.add_argument('--seed')\n"
        "def rules(options):\n    return None\n",
        "GAME",
    ),
}


def plugin_env(tmp_path: Path, case: str) -> dict[str, str]:
    """A distribution ``genial-evil`` installed in ``tmp_path`` (a ``.dist-info`` found by
    ``importlib.metadata``), declaring one game of the ``genial.games`` group."""
    source, cli_source, attribute = PLUGINS[case]
    info = tmp_path / "genial_evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: genial-evil\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[genial.games]\nevilgame = evilgame_entry:{attribute}\n"
    )
    (tmp_path / "evilgame_entry.py").write_text(textwrap.dedent(source))
    if cli_source is not None:
        (tmp_path / "evilgame_cli.py").write_text(cli_source)
    env = genial_env()
    paths = [str(tmp_path), str(ROOT), *env.get("PYTHONPATH", "").split(os.pathsep)]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return env


def run_with_plugin(argv: list[str], tmp_path: Path, env: dict[str, str]) -> tuple[int, str, str]:
    process = subprocess.run(
        [sys.executable, "-m", "genial", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,  # (a guard against a hang)
        check=False,
    )
    return process.returncode, process.stdout, process.stderr


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "RuntimeWarning" in line]


@pytest.mark.parametrize("case", sorted(PLUGINS))
def test_3_a_broken_plugin_leaves_help_and_the_builtin_verbs_working(
    tmp_path: Path, case: str
) -> None:
    env = plugin_env(tmp_path, case)
    commands = [["--help"], ["play", "--seed", "1", "--quiet"]]
    if case == "alias of a built-in":  # the alias stays the board game's
        commands.append(["play", "--game", "ingenious", "--seed", "1", "--quiet"])
    for argv in commands:
        code, out, err = run_with_plugin(argv, tmp_path, env)
        assert code == 0, f"genial {' '.join(argv)}: exit {code}: {err[-800:]}"
        assert "Traceback" not in err, err[-800:]
        if argv == ["--help"]:
            assert "play" in out and "simulate" in out
        else:
            assert "result" in out or "game over" in out, out[-400:]
        said = warnings_in(err)
        assert len(said) == 1, f"genial {' '.join(argv)}: {len(said)} warnings: {err[-800:]}"
        assert "evilgame" in said[0] or "genial-evil" in said[0], said[0]


def test_3_unregister_refuses_the_builtin_games_and_their_aliases() -> None:
    before = games()
    for name in ("ingenious", "genial", "card", "board", "cards"):
        message = refused(lambda name=name: unregister(name))
        assert name in message or "board" in message or "cards" in message, message
        assert games() == before
    assert entry("ingenious").name == "board"
    assert entry("card").name == "cards"
    game = genial.Game(2, seed=1)
    game.play(game.choose("greedy"))
    assert entry_of(game).name == "board"


def test_3_a_game_claiming_the_board_games_texts_is_refused() -> None:
    from .toy import GAME as TOY

    text = genial.Game(2, seed=1).to_text()
    before = games()
    for prefix in ("2", "2T", "0"):
        hostile = dataclasses.replace(
            TOY, name="probe_two", aliases=(), record_format=None, text_prefix=prefix
        )
        refused(lambda hostile=hostile: register(hostile))
        assert games() == before
        assert "probe_two" not in games()
    assert entry_of(text).name == "board"
    assert entry_of("2 ...").name == "board"
    assert entry_of("c2 ...").name == "cards"


# == 4. readers ===================================================================================

# -- the opening book ----------------------------------------------------------------------------


def test_4_a_pristine_book_and_checkpoint_read_back(
    uniform_book: Path, raced_book: Path, checkpoint: Path
) -> None:
    """(The baseline: the damaged copies below differ from these in one thing only.)"""
    assert len(read_book(uniform_book).table) == 164
    repr(read_book(raced_book))
    assert resume(checkpoint).race is not None


def test_4_a_deep_book_json_is_refused(uniform_book: Path) -> None:
    (uniform_book / "book.json").write_text(deep_json())
    before = snapshot(uniform_book)
    refused(lambda: read_book(uniform_book), names=("book.json",))
    assert snapshot(uniform_book) == before


@pytest.mark.parametrize("name", ["book.json", "table.csv"])
def test_4_an_8_gb_book_file_is_refused(uniform_book: Path, name: str) -> None:
    sparse(uniform_book / name)
    before = snapshot(uniform_book)
    refused(lambda: read_book(uniform_book), names=(name,))
    assert snapshot(uniform_book) == before


@needs_fifo
@pytest.mark.parametrize("name", ["book.json", "table.csv"])
def test_4_a_fifo_in_a_book_is_refused(uniform_book: Path, name: str) -> None:
    pipe = fifo(uniform_book / name)
    before = snapshot(uniform_book)
    refused(lambda: read_book(uniform_book), names=(name,), fifos=(pipe,))
    assert snapshot(uniform_book) == before


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN", "1e999", "1" * 500])
@pytest.mark.parametrize("field", ["games", "games_per_opening", "seconds", "seat"])
def test_4_an_infinite_number_in_a_book_is_refused(
    uniform_book: Path, field: str, number: str
) -> None:
    meta = book_json(uniform_book)
    text = json.dumps(dict(meta, **{field: "@@"})).replace('"@@"', number)
    (uniform_book / "book.json").write_text(text)
    refused(lambda: read_book(uniform_book), names=("book.json",))


WRONG_BOOK_FIELDS: dict[str, list[Any]] = {
    "format": [1, None, ["genial-book-1"]],
    "rules": [2, None, {"players": 2}, "9"],
    "seat": ["0", 0.0, True, None, [0], -1],
    "reply_to": [5, ["R1,-5+R2,-5"], "not a move"],
    "policy": ["random", [1], [], ["random"] * 100, None, {"random": 1}],
    "games_per_opening": [True, "2", 2.0, -1, 0, [2]],
    "seed": [{"entropy": 1}, -1, "abc", 1.5, [1.5], [-1], True],
    "games": ["328", 328.0, True, None, -328, 0],
    "seconds": ["1", [1], -1, True],
    "command": [5, ["genial"], "x" * 20_000],
    "date": [5, None],
    "genial": [5, None],
    "sha256": [5, None, "0" * 63, "z" * 64],
}


WRONG_BOOK_CASES = [(f, i) for f, values in WRONG_BOOK_FIELDS.items() for i in range(len(values))]


@pytest.mark.parametrize(("field", "index"), WRONG_BOOK_CASES)
def test_4_a_book_field_of_the_wrong_type_is_refused(
    uniform_book: Path, field: str, index: int
) -> None:
    meta = book_json(uniform_book)
    meta[field] = WRONG_BOOK_FIELDS[field][index]
    (uniform_book / "book.json").write_text(json.dumps(meta))
    refused(lambda: read_book(uniform_book), names=("book.json", field))


def test_4_a_book_json_that_is_not_an_object_is_refused(uniform_book: Path) -> None:
    for text in ("[]", "null", '"book"', "1", "", "{", "\xff\xfe", '{"format": "genial-book-1"}'):
        (uniform_book / "book.json").write_bytes(text.encode("latin-1"))
        refused(lambda: read_book(uniform_book), names=("book.json",))


MALFORMED_RACES: list[Any] = [
    "raced",
    [],
    [1, 2],
    {},
    {"games": "many"},
    {"confidence": 0.95, "batch": 1024, "rounds": 1, "games": "x", "uniform_games": 1,
     "in_race": 1},
    {"confidence": "0.95", "batch": 1024, "rounds": 1, "games": 328, "uniform_games": 328,
     "in_race": 164},
    {"confidence": 0.95, "batch": None, "rounds": 1, "games": 328, "uniform_games": 328,
     "in_race": 164},
    {"confidence": 0.95, "batch": 1024, "rounds": 10**30, "games": 328, "uniform_games": 328,
     "in_race": 164},
    {"confidence": 0.95, "batch": 1024, "rounds": 1, "games": 328, "uniform_games": 328,
     "in_race": [164]},
    {"confidence": 0.95, "batch": 1024, "rounds": 1, "games": 328, "uniform_games": 328,
     "in_race": 164, "played": "all"},
    {"confidence": 0.95, "batch": 1024, "rounds": 1, "games": 328, "uniform_games": 328,
     "in_race": 164, "extra": {"deep": [[[[]]]]}},
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(MALFORMED_RACES)))
@pytest.mark.parametrize("which", ["uniform", "raced"])
def test_4_a_book_with_a_malformed_race_is_refused_or_shown(
    uniform_book: Path, raced_book: Path, which: str, index: int
) -> None:
    directory = uniform_book if which == "uniform" else raced_book
    meta = book_json(directory)
    meta["race"] = MALFORMED_RACES[index]
    (directory / "book.json").write_text(json.dumps(meta))
    try:
        result = guarded(lambda: read_book(directory))
    except GenialError as exc:
        message = str(exc)
        assert "race" in message and "book.json" in message, message
        return
    except BaseException as exc:
        pytest.fail(f"read_book: {type(exc).__name__}: {exc}")
    for show in (repr, str):  # a book read must show itself
        try:
            show(result)
        except BaseException as exc:
            pytest.fail(f"{show.__name__}(read_book(...)): {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("key", ["games", "uniform_games", "in_race", "rounds", "batch"])
@pytest.mark.parametrize("number", ["Infinity", "1e999", "-1e999"])
def test_4_an_infinite_number_in_a_raced_books_race_is_refused(
    raced_book: Path, key: str, number: str
) -> None:
    meta = book_json(raced_book)
    meta["race"][key] = "@@"
    (raced_book / "book.json").write_text(json.dumps(meta).replace('"@@"', number))
    refused(lambda: read_book(raced_book), names=("book.json",))


# -- the race's checkpoint ---------------------------------------------------------------------


def test_4_a_deep_manifest_is_refused(checkpoint: Path) -> None:
    (checkpoint / "manifest.json").write_text(deep_json())
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=("manifest.json",))
    assert snapshot(checkpoint) == before


def test_4_deep_step_info_in_a_manifest_is_refused(checkpoint: Path) -> None:
    text = json.dumps(manifest(checkpoint)).replace('{"round": 0}', deep_json(), 1)
    (checkpoint / "manifest.json").write_text(text)
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=("manifest.json",))
    assert snapshot(checkpoint) == before


@pytest.mark.parametrize("name", ["manifest.json", "step-000000.npz", "step-000001.npz"])
def test_4_an_8_gb_checkpoint_file_is_refused(checkpoint: Path, name: str) -> None:
    sparse(checkpoint / name)
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=(name,))
    assert snapshot(checkpoint) == before


@needs_fifo
@pytest.mark.parametrize("name", ["manifest.json", "step-000000.npz", "step-000002.npz"])
def test_4_a_fifo_in_a_checkpoint_is_refused(checkpoint: Path, name: str) -> None:
    pipe = fifo(checkpoint / name)
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=(name,), fifos=(pipe,))
    assert snapshot(checkpoint) == before


def zeros_npz(path: Path, rows: int, names: tuple[str, ...]) -> None:
    """What ``np.savez_compressed`` makes of ``rows`` zeros per array (uint8 and uint16 as a
    race step's arrays), written in pieces (the test itself never holds a gigabyte)."""
    dtypes = {"cls": "<u2"}
    piece = bytes(16 << 20)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name in names:
            header = io.BytesIO()
            descr = dtypes.get(name, "|u1")
            np.lib.format.write_array_header_1_0(
                header, {"descr": descr, "fortran_order": False, "shape": (rows,)}
            )
            size = rows * np.dtype(descr).itemsize
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                member.write(header.getvalue())
                while size > 0:
                    member.write(piece[: min(size, len(piece))])
                    size -= len(piece)


@pytest.mark.parametrize("rows", [200_000_000, 60_000_000])
def test_4_a_step_inflating_to_gigabytes_is_refused(checkpoint: Path, rows: int) -> None:
    """A step replaced by zeros that inflate to 1.2 GB (or to 360 MB from an archive of about
    370 KB, small enough to pass the step file's size limit), listed with its true SHA-256."""
    step = checkpoint / "step-000000.npz"
    zeros_npz(step, rows, ("cls", "win", "shared", "mine", "others"))
    meta = manifest(checkpoint)
    meta["steps"][0]["sha256"] = hashlib.sha256(step.read_bytes()).hexdigest()
    (checkpoint / "manifest.json").write_text(json.dumps(meta, indent=1))
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=("step-000000.npz",))
    assert snapshot(checkpoint) == before


@pytest.mark.parametrize("number", ["Infinity", "NaN", "1e999", "-1e999", "9" * 500])
@pytest.mark.parametrize("where", ["games_per_opening", "batch", "confidence", "round"])
def test_4_an_infinite_number_in_a_checkpoint_is_refused(
    checkpoint: Path, where: str, number: str
) -> None:
    meta = manifest(checkpoint)
    if where == "round":
        meta["steps"][0]["info"]["round"] = "@@"
    else:
        meta["params"][where] = "@@"
    (checkpoint / "manifest.json").write_text(json.dumps(meta).replace('"@@"', number))
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=("manifest.json",))
    assert snapshot(checkpoint) == before


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(meta: dict[str, Any]) -> None:
        place: Any = meta
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value

    return change


WRONG_MANIFESTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "format int": _set(("format",), 1),
    "params list": _set(("params",), []),
    "steps dict": _set(("steps",), {"0": "step-000000.npz"}),
    "steps null": _set(("steps",), None),
    "step a text": _set(("steps", 0), "step-000000.npz"),
    "step file int": _set(("steps", 0, "file"), 0),
    "step file elsewhere": _set(("steps", 0, "file"), "../../../etc/passwd"),
    "step sha256 int": _set(("steps", 0, "sha256"), 5),
    "step sha256 wrong": _set(("steps", 0, "sha256"), "0" * 64),
    "step info list": _set(("steps", 0, "info"), []),
    "step round text": _set(("steps", 0, "info", "round"), "0"),
    "step round bool": _set(("steps", 0, "info", "round"), False),
    "step round float": _set(("steps", 0, "info", "round"), 0.5),
    "step round huge": _set(("steps", 0, "info", "round"), 10**300),
    "unknown field": _set(("extra",), 1),
    "batch text": _set(("params", "batch"), "1024"),
    "steps repeated": lambda meta: meta.__setitem__("steps", meta["steps"] * 400),
    "top a list": lambda meta: meta.clear(),
}


@pytest.mark.parametrize("case", sorted(WRONG_MANIFESTS))
def test_4_a_manifest_field_of_the_wrong_type_is_refused(checkpoint: Path, case: str) -> None:
    meta = manifest(checkpoint)
    WRONG_MANIFESTS[case](meta)
    (checkpoint / "manifest.json").write_text(json.dumps(meta if meta else []))
    before = snapshot(checkpoint)
    refused(lambda: resume(checkpoint), CheckpointError, names=(str(checkpoint.name),))
    assert snapshot(checkpoint) == before


# -- the weights file --------------------------------------------------------------------------


def damaged_weights(tmp_path: Path, kind: str) -> Path:
    """A copy of the shipped weights file with one hostile change."""
    data = json.loads((PACKAGE / "value_weights.json").read_text("utf-8"))
    path = tmp_path / "value_weights.json"
    if kind in ("10**400", "1e999", "-1e400"):
        data["models"]["2"][3] = "@@"
        models = json.dumps(data["models"], sort_keys=True, separators=(",", ":"))
        models = models.replace('"@@"', str(10**400) if kind == "10**400" else kind)
        data["sha256"] = hashlib.sha256(models.encode()).hexdigest()
        text = json.dumps(data).replace('"@@"', str(10**400) if kind == "10**400" else kind)
        path.write_text(text)
    elif kind == "deep-metrics":
        data["metrics"]["2"]["deep"] = "@@"
        path.write_text(json.dumps(data).replace('"@@"', deep_json()))
    elif kind == "deep":
        path.write_text(deep_json())
    elif kind == "huge-file":
        sparse(path)
    elif kind == "fifo":
        fifo(path)
    elif kind == "metrics-wrong-type":
        data["metrics"] = [1, 2]
        path.write_text(json.dumps(data))
    elif kind == "models-wrong-type":
        data["models"] = {"1": "weights", "2": None, "3": [], "4": {}}
        path.write_text(json.dumps(data))
    else:  # pragma: no cover
        raise AssertionError(kind)
    return path


WEIGHTS_DAMAGE = [
    "10**400",
    "1e999",
    "-1e400",
    "deep-metrics",
    "deep",
    "huge-file",
    "fifo",
    "metrics-wrong-type",
    "models-wrong-type",
]


@pytest.mark.parametrize("kind", WEIGHTS_DAMAGE)
def test_4_read_weights_refuses_a_damaged_weights_file(tmp_path: Path, kind: str) -> None:
    if kind == "fifo" and not hasattr(os, "mkfifo"):  # pragma: no cover
        pytest.skip("FIFOs are POSIX")
    path = damaged_weights(tmp_path, kind)
    pipes = (path,) if kind == "fifo" else ()
    refused(lambda: read_weights(path), WeightsError, names=("value_weights.json",), fifos=pipes)


WEIGHTS_CHILD = textwrap.dedent(
    """
    import json, sys
    from importlib import resources

    real = resources.files

    class Package:
        def __init__(self, where):
            self.where = where
        def joinpath(self, name):
            return self.where if name == "value_weights.json" else real("genial").joinpath(name)
        def __truediv__(self, name):
            return self.joinpath(name)

    resources.files = lambda name: Package(sys.argv[1]) if name == "genial" else real(name)
    import genial
    from genial import GenialError

    game = genial.Game(2, seed=1)
    while not game.is_over:
        game.play(game.choose("greedy"))
    runs = genial.simulate(64, 2, policy="greedy", seed=1)
    try:
        genial.Game(2, seed=1).choose("value")
    except GenialError as err:
        value = [type(err).__name__, str(err)]
    except BaseException as err:
        value = ["NOT A GenialError: " + type(err).__name__, str(err)[:300]]
    else:
        value = None
    print(json.dumps({"over": game.is_over, "games": len(runs), "value": value}))
    """
)


def weights_child(tmp_path: Path, kind: str) -> dict[str, Any]:
    """Import genial and play greedy games (in a child) with a damaged weights file in place
    of the shipped one; what the child saw."""
    if kind == "fifo" and not hasattr(os, "mkfifo"):  # pragma: no cover
        pytest.skip("FIFOs are POSIX")
    path = damaged_weights(tmp_path, kind)
    try:
        done = subprocess.run(
            [sys.executable, "-c", WEIGHTS_CHILD, str(path)],
            capture_output=True,
            text=True,
            env=genial_env(),
            cwd=tmp_path,
            timeout=HANG_GUARD,  # (a guard against a hang)
            check=False,
        )
    except subprocess.TimeoutExpired:
        if kind == "fifo":
            unblock(path)
        pytest.fail(f"a damaged weights file ({kind}) made import or play hang")
    assert done.returncode == 0, done.stderr[-1500:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("kind", ["10**400", "1e999", "deep-metrics", "huge-file", "fifo"])
def test_4_a_damaged_weights_file_breaks_neither_import_nor_greedy_play(
    tmp_path: Path, kind: str
) -> None:
    result = weights_child(tmp_path, kind)
    assert result["over"] is True and result["games"] == 64
    assert result["value"] is not None, "the value policy played with damaged weights"
    assert "value_weights.json" in result["value"][1], result["value"]


@pytest.mark.parametrize("kind", ["10**400", "deep-metrics"])
def test_4_the_value_policy_refuses_damaged_weights_with_a_genial_error(
    tmp_path: Path, kind: str
) -> None:
    """(Stricter than the issue's case: the value policy's refusal is a GenialError.)"""
    result = weights_child(tmp_path, kind)
    assert result["value"] is not None, "the value policy played with damaged weights"
    kind_name, message = result["value"]
    assert not kind_name.startswith("NOT"), result["value"]
    assert "value_weights.json" in message, message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("where", ["book.json", "table.csv", "manifest.json", "step", "weights"])
def test_4_a_device_in_place_of_a_file_is_refused(
    uniform_book: Path, checkpoint: Path, tmp_path: Path, where: str
) -> None:
    """An endless device (``/dev/zero``, linked in place of the file) is refused, not read."""
    if where in ("book.json", "table.csv"):
        (uniform_book / where).unlink()
        (uniform_book / where).symlink_to("/dev/zero")
        refused(lambda: read_book(uniform_book), names=(where,))
    elif where == "weights":
        (tmp_path / "w.json").symlink_to("/dev/zero")
        refused(lambda: read_weights(tmp_path / "w.json"), WeightsError, names=("w.json",))
    else:
        name = "manifest.json" if where == "manifest.json" else "step-000001.npz"
        (checkpoint / name).unlink()
        (checkpoint / name).symlink_to("/dev/zero")
        before = snapshot(checkpoint)
        refused(lambda: resume(checkpoint), CheckpointError, names=(name,))
        assert snapshot(checkpoint) == before


def test_3_unregister_of_an_unknown_or_malformed_name_is_refused() -> None:
    before = games()
    for name in ("no_such_game", "", "x" * 10_000, None, 5, "board\x00"):
        refused(lambda name=name: unregister(name))  # type: ignore[arg-type]
    assert games() == before


# -- the replay's record -----------------------------------------------------------------------


@pytest.fixture
def record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "game.json"
    code, _, err = cli(["play", "--seed", "1", "--quiet", "--record", str(path)], capsys)
    assert code == 0, err
    return path


@needs_fifo
def test_4_genial_replay_of_a_fifo_exits_with_an_error(tmp_path: Path) -> None:
    pipe = fifo(tmp_path / "game.json")
    code, _, err = child(["replay", str(pipe), "--html", "page.html"], tmp_path, (pipe,))
    assert code != 0
    assert "game.json" in err and "Traceback" not in err, err[-800:]
    assert not (tmp_path / "page.html").exists()


def replay_damage(record: Path, kind: str) -> None:
    data = json.loads(record.read_text("utf-8"))
    if kind == "deep":
        record.write_text(deep_json())
    elif kind == "deep field":
        data["moves"][0]["draws"] = "@@"
        record.write_text(json.dumps(data).replace('"@@"', deep_json()))
    elif kind == "8 GB":
        sparse(record)
    elif kind == "start int":
        record.write_text(json.dumps(dict(data, start=5)))
    elif kind == "moves text":
        record.write_text(json.dumps(dict(data, moves="R1,-5+R2,-5")))
    elif kind == "move int":
        data["moves"][0]["move"] = 5
        record.write_text(json.dumps(data))
    elif kind == "draws text":
        data["moves"][0]["draws"] = "RP"
        record.write_text(json.dumps(data))
    elif kind == "version inf":
        record.write_text(json.dumps(dict(data, version="@@")).replace('"@@"', "1e999"))
    elif kind == "version text":
        record.write_text(json.dumps(dict(data, version="1")))
    elif kind == "not UTF-8":
        record.write_bytes(b"\xff\xfe" + record.read_bytes())
    elif kind == "a list":
        record.write_text("[]")
    else:  # pragma: no cover
        raise AssertionError(kind)


REPLAY_DAMAGE = [
    "deep",
    "deep field",
    "8 GB",
    "start int",
    "moves text",
    "move int",
    "draws text",
    "version inf",
    "version text",
    "not UTF-8",
    "a list",
]


@pytest.mark.parametrize("kind", REPLAY_DAMAGE)
def test_4_genial_replay_of_a_damaged_record_exits_with_an_error(
    record: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    replay_damage(record, kind)
    page = record.parent / "page.html"
    code, out, err = guarded(lambda: cli(["replay", str(record), "--html", str(page)], capsys))
    assert code not in (0, None), f"exit {code}: {out[-300:]}"
    assert "game.json" in err and "Traceback" not in err, err[-800:]
    assert not page.exists()


def test_4_a_deep_openspiel_state_string_is_refused() -> None:
    for name, params in SPIEL_GAMES:
        game = pyspiel.load_game(name, params)
        message = refused(lambda game=game: game.deserialize_state(deep_json()), pyspiel.SpielError)
        assert "state" in message
        text = f"{HEADER}[Game]\n{game}\n[State]\n{deep_json()}\n"
        refused(lambda text=text: pyspiel.deserialize_game_and_state(text), GenialError)


# == 5. round trips and arguments =================================================================


def test_5_a_uniform_analysis_written_as_a_book_reads_back(
    tmp_path: Path, analyses: list[OpeningAnalysis]
) -> None:
    original = analyses[1]
    original.to_book(tmp_path / "book")
    again = read_book(tmp_path / "book")
    assert again.race is None and again.games_per_opening == original.games_per_opening
    for column in ("class", "games", "wins", "shared"):
        assert again.table[column].tolist() == original.table[column].tolist()
    assert again.seed is not None and again.seed.entropy == original.seed.entropy  # type: ignore[union-attr]
    repr(again)
    str(again)


def test_5_a_model_of_fewer_counter_sets_is_refused_or_readable(tmp_path: Path) -> None:
    model = train(20, holdout=10, models=(2,), seed=1)
    path = tmp_path / "weights.json"
    try:
        write_weights(model, path)
    except GenialError as exc:
        assert "model" in str(exc), str(exc)  # noqa: PT017
        assert not path.exists(), "a refused model left a file"
        assert list(tmp_path.iterdir()) == []
        return
    read_weights(path)  # (written: then it must be a file the kernel reads)


@pytest.mark.parametrize(
    "l2", [math.nan, math.inf, -math.inf, -1.0, np.float64("nan"), "0.1", None, True, 10**400]
)
def test_5_train_refuses_a_bad_l2(l2: Any) -> None:
    refused(lambda: train(5, holdout=5, models=(2,), l2=l2), names=("l2",))


@pytest.mark.parametrize("l2", [math.nan, math.inf, -1.0])
def test_5_fit_refuses_a_bad_l2(l2: Any) -> None:
    x = np.ones((8, 3))
    refused(lambda: fit(x, np.full(8, 0.5), l2=l2), names=("l2",))


def test_5_fit_refuses_nan_features_and_targets_outside_0_1() -> None:
    rng = np.random.default_rng(1)
    x = np.column_stack([np.ones(40), rng.normal(size=(40, 2))])
    y = rng.uniform(size=40)
    fit(x, y)  # (the baseline fits)
    for bad in (math.nan, math.inf, -math.inf):
        features = x.copy()
        features[3, 1] = bad
        refused(lambda features=features: fit(features, y), names=("features",))
    for bad in (1.5, -0.1, math.nan, math.inf, 2.0):
        targets = y.copy()
        targets[5] = bad
        refused(lambda targets=targets: fit(x, targets), names=("targets",))
    refused(lambda: fit(x, y[:-1]), names=("targets",))
    refused(lambda: fit(x[0], y[:1]), names=("features",))
    refused(lambda: fit([["a", "b"]], [0.5]), names=("features",))


@pytest.mark.parametrize("players", [2.0, np.float64(3.0), "2", True, 5, 1, -2, None, 10**100])
def test_5_book_names_the_player_counts_it_has(players: Any) -> None:
    refused(lambda: book(players), names=("2, 3 or 4",))


# == 6. OpenSpiel actions and samplers ============================================================

OpenSpielError = openspiel.OpenSpielError


def spiel_error(call: Callable[[], Any]) -> str:
    """``call()`` must raise the wrapper's error (a GenialError and a pyspiel.SpielError)."""
    message = refused(call, OpenSpielError)
    return message


def decision_state(name: str, params: dict[str, Any], seed: int) -> tuple[Any, Any]:
    game = pyspiel.load_game(name, params)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    return game, state


@pytest.mark.parametrize(("name", "params"), SPIEL_GAMES)
def test_6_action_to_string_of_an_id_outside_the_game(name: str, params: dict[str, Any]) -> None:
    game, state = decision_state(name, params, 1)
    players = game.num_players()
    past = game.num_distinct_actions()
    outcomes = game.max_chance_outcomes()
    before = state.serialize()
    for player in range(players):
        for action in (-1, -(2**63), past, past + 1, 2**63, 10**30):
            spiel_error(lambda p=player, a=action: state.action_to_string(p, a))
        assert state.action_to_string(player, past - 1)  # (the last id is named)
    for action in (-1, outcomes, 10**30):
        spiel_error(lambda a=action: state.action_to_string(-1, a))
    for player in (players, -2, -4, 10**30, 1.0, None):
        spiel_error(lambda p=player: state.action_to_string(p, 0))
    for action in (-1, past):
        spiel_error(lambda a=action: state.action_to_string(a))
    assert state.serialize() == before


SAMPLERS: list[Callable[[], Any]] = [
    lambda: float("nan"),
    lambda: np.float64("nan"),
    lambda: float("inf"),
    lambda: -0.1,
    lambda: 1.5,
    lambda: "0.5",
    lambda: None,
    lambda: True,
    lambda: [0.5],
    lambda: 10**400,
]


@pytest.mark.parametrize(("name", "params"), SPIEL_GAMES)
def test_6_resample_from_infostate_with_a_bad_sampler(name: str, params: dict[str, Any]) -> None:
    _, state = decision_state(name, params, 2)
    before = state.serialize()
    for sampler in SAMPLERS:
        spiel_error(lambda sampler=sampler: state.resample_from_infostate(0, sampler))
        assert state.serialize() == before
    for player in (-1, 99, 0.5, None):
        spiel_error(lambda p=player: state.resample_from_infostate(p, lambda: 0.5))
    spiel_error(lambda: state.resample_from_infostate(0, "not callable"))
    assert state.serialize() == before
    other = state.resample_from_infostate(0, lambda: 0.25)  # (a good sampler works)
    assert other.current_player() == state.current_player()


HOSTILE_ACTIONS: list[Any] = [
    -1,
    -(2**63),
    2**63,
    2**64,
    10**30,
    1.0,
    0.5,
    math.nan,
    True,
    False,
    None,
    "0",
    [0],
    np.int64(-1),
    np.uint64(2**64 - 1),
    np.float64(0.0),
]


def hostile_game(name: str, params: dict[str, Any], seed: int) -> tuple[int, list[str]]:
    """A random game with hostile actions tried at every node: the number of nodes, and
    whatever went wrong (a hostile action accepted, another exception, a state changed)."""
    game = pyspiel.load_game(name, params)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    size = game.num_distinct_actions()
    wrong: list[str] = []
    nodes = 0
    while not state.is_terminal():
        nodes += 1
        before = state.serialize()
        legal = state.legal_actions()
        illegal = [int(a) for a in rng.integers(0, size, 4) if int(a) not in set(legal)]
        tries = [*HOSTILE_ACTIONS, size, size + 7, *illegal[:1]]
        if state.is_chance_node():
            tries.append(game.max_chance_outcomes())
        for action in tries:
            for how in ("apply_action", "child", "apply_action_with_legality_check"):
                try:
                    getattr(state, how)(action)
                except OpenSpielError:
                    pass
                except BaseException as exc:
                    wrong.append(f"{how}({action!r}): {type(exc).__name__}: {exc}")
                else:
                    wrong.append(f"{how}({action!r}) was accepted")
                if state.serialize() != before:
                    wrong.append(f"{how}({action!r}) changed the state")
                    return nodes, wrong
        for action in (-1, size, size + 1):  # OpenSpiel's own entry, the C++ path
            try:  # (-1 is kInvalidAction: OpenSpiel's own check refuses it first)
                pyspiel.State.apply_action(state, action)
            except pyspiel.SpielError:
                pass
            except BaseException as exc:
                wrong.append(f"pyspiel.State.apply_action({action}): {type(exc).__name__}")
            else:
                wrong.append(f"pyspiel.State.apply_action({action}) was accepted")
            if state.serialize() != before:
                wrong.append(f"pyspiel.State.apply_action({action}) changed the state")
                return nodes, wrong
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(legal)))
        if nodes > 20_000:
            wrong.append("the game did not end")
            break
    for action in (0, -1, size):
        try:
            state.apply_action(action)
        except OpenSpielError:
            pass
        except BaseException as exc:
            wrong.append(f"apply_action({action}) at the end: {type(exc).__name__}")
        else:
            wrong.append(f"apply_action({action}) at the end was accepted")
    returns = state.returns()
    if len(returns) != game.num_players() or not all(math.isfinite(r) for r in returns):
        wrong.append(f"returns {returns}")
    return nodes, wrong


@pytest.mark.parametrize("seed", range(sized("GENIAL_PROBE_SPIEL_GAMES", 6, 2)))
@pytest.mark.parametrize(("name", "params"), SPIEL_GAMES)
def test_6_random_games_with_hostile_actions_end_normally(
    name: str, params: dict[str, Any], seed: int
) -> None:
    nodes, wrong = hostile_game(name, params, seed)
    assert nodes > 10
    assert wrong == [], wrong[:10]


# == 7. an output name over 255 bytes =============================================================

LONG = "a" * 300
WIDE = "\u00e9" * 130  # 130 characters, 260 bytes in UTF-8

LONG_OUTPUTS: dict[str, list[str]] = {
    "simulate parquet": ["simulate", "--games", "100000", "--out", f"{LONG}.parquet"],
    "simulate csv": ["simulate", "--games", "100000", "--out", f"{LONG}.csv"],
    "simulate dataset": ["simulate", "--games", "100000", "--out", f"{LONG}/"],
    "simulate in a directory": ["simulate", "--games", "100000", "--out", f"sub/{LONG}.parquet"],
    "simulate wide bytes": ["simulate", "--games", "100000", "--out", f"{WIDE}.csv"],
    "openings csv": ["openings", "--games-per-opening", "200", "--out", f"{LONG}.csv"],
    "openings parquet": ["openings", "--games-per-opening", "200", "--out", f"{LONG}.parquet"],
    "openings plot": ["openings", "--games-per-opening", "200", "--plot", f"{LONG}.png"],
    "openings adaptive": [
        "openings",
        "--games-per-opening",
        "1024",
        "--adaptive",
        "--out",
        LONG,
    ],
    "learn": ["learn", "--games", "50", "--holdout", "20", "--out", f"{LONG}.json"],
    "play record": ["play", "--record", f"{LONG}.json"],
    "play svg": ["play", "--svg", f"{LONG}.svg"],
}


@pytest.mark.parametrize("case", sorted(LONG_OUTPUTS))
def test_7_an_output_name_over_255_bytes_is_refused_before_any_game(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    argv = [*LONG_OUTPUTS[case], "--seed", "1"]
    if argv[0] in ("simulate", "openings"):
        argv.append("--progress")  # (a run that played would say so on stderr)
    code, out, err = cli(argv, capsys)
    assert code != 0, f"exit {code}: {out[-300:]}"
    flag = next(a for a in argv if a in ("--out", "--plot", "--record", "--svg"))
    assert flag in err, err[-500:]
    assert "aaaaaaaaaa" in err or "\u00e9\u00e9\u00e9" in err, err[-500:]
    assert "Traceback" not in err
    assert out.strip() == "", f"the run played before refusing its output: {out[:300]}"
    for marker in ("games/s", "playouts", "%|", "it/s"):
        assert marker not in err, f"the run played before refusing its output: {err[-300:]}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]
    assert list((tmp_path / "sub").iterdir()) == []


@pytest.mark.parametrize("case", ["simulate parquet", "openings csv"])
def test_7_an_output_name_over_255_bytes_in_a_child(case: str, tmp_path: Path) -> None:
    code, out, err = child([*LONG_OUTPUTS[case], "--seed", "1", "--progress"], tmp_path)
    assert code != 0
    assert "--out" in err and "aaaaaaaaaa" in err and "Traceback" not in err, err[-500:]
    assert out.strip() == ""
    assert list(tmp_path.iterdir()) == []


def test_7_replay_html_name_over_255_bytes(
    record: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(record.parent)
    before = sorted(p.name for p in record.parent.iterdir())
    code, _, err = cli(["replay", str(record), "--html", f"{LONG}.html"], capsys)
    assert code != 0
    assert "--html" in err and "aaaaaaaaaa" in err and "Traceback" not in err, err[-500:]
    assert sorted(p.name for p in record.parent.iterdir()) == before


# (the module's own consistency: every helper's refusal is a failure, not a skip)
def test_helpers_report_a_wrong_exception_as_a_failure() -> None:
    def boom() -> None:
        raise IndexError("list index out of range")

    with pytest.raises(pytest.fail.Exception, match="IndexError"):
        refused(boom)
    with pytest.raises(pytest.fail.Exception, match="got a result"):
        refused(lambda: 1)
