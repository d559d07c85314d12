"""Opening books (``genial.openings.read_book``) and race checkpoints
(``genial.racing.Checkpoint``) read as untrusted input, and their writers under races (issue 40).

Whatever these readers are given -- a damaged, hostile or special file in place of any of their
files -- they answer with a valid object or their ``GenialError`` (``BookError``,
``CheckpointError``) naming the file, never another exception, a hang or a huge allocation.
Writers racing on one directory (threads and processes) each write whole or are refused with
that error, and the directory always holds one writer's complete book or checkpoint."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial import GenialError
from genial.racing import Checkpoint, CheckpointError

pd = pytest.importorskip("pandas")

from genial.openings import BookError, OpeningAnalysis, analyse, book, observe, read_book  # noqa: E402

QUICK = 25  # hypothesis examples by default
FULL = 300  # ... at full depth (GENIAL_TESTS=full: the tests marked slow)
ROUNDS_QUICK = 12  # rounds of the writers' races

RACE_ARRAYS = {
    "cls": ("uint16", 65535),
    "win": ("uint8", 1),
    "shared": ("uint8", 1),
    "mine": ("uint8", 18),
    "others": ("uint8", 18),
}
RACE_ROWS = 1024  # a step of the race below: 64 chunks of 16 games


# -- the material: small books and a small race's checkpoint, written by the library ----------


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A raced book, a uniform book, an observed book and a race's checkpoint, each made by the
    library from tiny analyses (a second or two in all)."""
    root = tmp_path_factory.mktemp("pristine")
    raced = analyse(2, games_per_opening=32, seed=2, policy="mc:1:k1", adaptive=True, batch=16,
                    workers=1, out=root / "race")  # fmt: skip
    raced.to_book(root / "raced", command="test raced")
    uniform = analyse(2, games_per_opening=2, seed=3, policy="random", workers=1)
    uniform.to_book(root / "uniform", command="test uniform")
    from genial import simulate

    observed = observe(simulate(300, 2, policy="random", seed=1))
    observed.to_book(root / "observed")
    manifest = json.loads((root / "race" / "manifest.json").read_text())
    return {
        "root": root,
        "raced": raced,
        "uniform": uniform,
        "observed": observed,
        "params": manifest["params"],
        "steps": len(manifest["steps"]),
    }


def copy_of(source: Path) -> Path:
    """A fresh copy of a pristine directory (hypothesis runs many examples in one test)."""
    where = Path(tempfile.mkdtemp(prefix="genial-hostile-")) / source.name
    shutil.copytree(source, where)
    return where


def open_race(where: Path, params: dict[str, Any]) -> tuple[Checkpoint, list[Any]]:
    return Checkpoint.open(where, params, resume=True, arrays=RACE_ARRAYS, rows=RACE_ROWS)


def reseal_book(where: Path) -> None:
    """book.json's sha256 made to match table.csv again (so a damaged table is parsed)."""
    meta = json.loads((where / "book.json").read_text())
    meta["sha256"] = hashlib.sha256((where / "table.csv").read_bytes()).hexdigest()
    (where / "book.json").write_text(json.dumps(meta))


def reseal_step(where: Path, k: int) -> None:
    """The manifest's sha256 of step ``k`` made to match its file again."""
    meta = json.loads((where / "manifest.json").read_text())
    raw = (where / f"step-{k:06d}.npz").read_bytes()
    meta["steps"][k]["sha256"] = hashlib.sha256(raw).hexdigest()
    (where / "manifest.json").write_text(json.dumps(meta))


def assert_valid_book(result: OpeningAnalysis) -> None:
    """What a book that read_book accepted must support."""
    assert isinstance(result, OpeningAnalysis)
    assert len(result.table) == len(result.classes) >= 1
    repr(result)
    str(result)
    assert result.provenance is not None


# -- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["raced", "uniform", "observed"])
def test_every_analysis_to_book_writes_round_trips(pristine: dict[str, Any], kind: str) -> None:
    """to_book of a raced, a uniform and an observed analysis: read_book reads it back with
    the same table (every column, the recomputed ones too) and the provenance written."""
    original: OpeningAnalysis = pristine[kind]
    where = pristine["root"] / kind
    back = read_book(where)
    pd.testing.assert_frame_equal(back.table, original.table)
    meta = json.loads((where / "book.json").read_text())
    assert back.provenance == meta
    assert (back.policy, back.seat, back.reply_to) == (original.policy, 0, None)
    assert back.games_per_opening == original.games_per_opening
    assert back.race == original.race
    assert back.seed is not None and original.seed is not None
    assert back.seed.entropy == original.seed.entropy
    assert back.average == original.average
    assert repr(back) == repr(original)


def test_a_reply_book_and_a_solo_book_round_trip(tmp_path: Path) -> None:
    for name, result in (
        ("reply", analyse(2, games_per_opening=1, seed=3, policy="random", workers=1,
                          reply_to="R0,-4+R1,-5")),
        ("solo", analyse(1, games_per_opening=2, seed=3, policy="random", workers=1)),
        ("list-seed", analyse(2, games_per_opening=1, seed=[5, 6], policy="random", workers=1)),
    ):  # fmt: skip
        result.to_book(tmp_path / name)
        back = read_book(tmp_path / name)
        pd.testing.assert_frame_equal(back.table, result.table)
        assert back.reply_to == result.reply_to and back.rules == result.rules
        assert back.seed is not None and result.seed is not None
        assert back.seed.entropy == result.seed.entropy


@pytest.mark.parametrize("players", [2.0, True, "2", None, 5, 1, [2]])
def test_book_checks_its_player_count(players: Any) -> None:
    """book(2.0) says books are for 2, 3 or 4 players (not that a file cannot be read)."""
    with pytest.raises(GenialError, match="books are for 2, 3 or 4 players"):
        book(players)
    assert len(book(np.int64(2)).table) == 164


# -- hostile books ---------------------------------------------------------------------------


def edit_meta(where: Path, edit: Callable[[dict[str, Any]], Any]) -> None:
    meta = json.loads((where / "book.json").read_text())
    edit(meta)
    (where / "book.json").write_text(json.dumps(meta))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("games", 1e308, "games must be an int"),
        ("games", "2624", "games must be an int"),
        ("games", 7, "games must be an int"),
        ("seat", True, "seat must be an int"),
        ("seat", 1, "seat must be 0"),
        ("rules", 2, "rules must be a string"),
        ("rules", "9", "rules:"),
        ("rules", "x" * 5000, "rules must be a string of at most 100"),
        ("reply_to", ["R0,-4+R1,-5"], "reply_to must be"),
        ("reply_to", "R0,0+R1,0", "reply_to:"),
        ("policy", "greedy", "policy must be a list"),
        ("policy", [1, 2], "policy must be a list"),
        ("policy", [], "policy must be a list"),
        ("games_per_opening", 0, "games_per_opening must be an int"),
        ("games_per_opening", 32.0, "games_per_opening must be an int"),
        ("games_per_opening", None, "games_per_opening must be an int"),
        ("seed", "-1", "seed must be"),
        ("seed", "2" * 3000, "seed must be"),
        ("seed", "1e5", "seed must be"),
        ("seed", {"entropy": 1}, "seed must be"),
        ("seed", [1, -2], "seed:"),
        ("seed", [True], "seed:"),
        ("seconds", "fast", "seconds must be"),
        ("seconds", -1, "seconds must be"),
        ("command", ["genial"], "command must be a string"),
        ("date", None, "date must be a string"),
        ("genial", 2, "genial must be a string"),
        ("sha256", "00", "sha256 must be 64 hex digits"),
        ("format", "genial-book-2", "format: not a genial-book-1 book"),
        ("race", [], "race must be an object"),
        ("race", "fast", "race must be an object"),
        ("race", {}, "race.confidence: missing"),
        ("race.confidence", 1.5, "race.confidence must be a number in"),
        ("race.confidence", "0.95", "race.confidence must be a number in"),
        ("race.batch", 0, "race.batch must be an int"),
        ("race.games", [1], "race.games must be an int"),
        ("race.games", 1, "race.games must be an int"),
        ("race.uniform_games", 10**30, "race.uniform_games must be an int"),
        ("race.in_race", 0, "race.in_race must be an int"),
        ("race.in_race", 100, "race.in_race"),
        ("race.rounds", 10**6, "race.rounds must be an int"),
        ("race.played", -1, "race.played must be an int"),
        ("race.extra", 1, "race: unknown field 'extra'"),
        ("extra", 1, "unknown field 'extra'"),
    ],
)
def test_a_wrong_field_of_a_book_is_named(
    pristine: dict[str, Any], field: str, value: Any, message: str
) -> None:
    """Each field of book.json of a wrong type or out of range: a BookError naming book.json
    and the field (a book with a malformed race is no longer accepted, to fail in repr)."""
    where = copy_of(pristine["root"] / "raced")

    def edit(meta: dict[str, Any]) -> None:
        if field.startswith("race."):
            meta["race"][field.removeprefix("race.")] = value
        else:
            meta[field] = value

    edit_meta(where, edit)
    with pytest.raises(BookError, match=r"book\.json") as caught:
        read_book(where)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ('{"games": 1e999}', "JSON"),
        ('{"games": Infinity}', "JSON"),
        ('{"games": NaN}', "JSON"),
        ('{"games": ' + "9" * 5000 + "}", "JSON"),
        ("\xff\xfe", "JSON"),
        ("", "JSON"),
    ],
)
def test_hostile_json_in_a_book(pristine: dict[str, Any], text: str, message: str) -> None:
    where = copy_of(pristine["root"] / "raced")
    (where / "book.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(BookError, match=message):
        read_book(where)


def test_games_infinite_in_a_book_is_refused(pristine: dict[str, Any]) -> None:
    where = copy_of(pristine["root"] / "raced")
    text = (where / "book.json").read_text()
    (where / "book.json").write_text(re.sub(r'"games": [0-9]+', '"games": 1e999', text))
    assert "1e999" in (where / "book.json").read_text()
    with pytest.raises(BookError, match=r"book\.json"):
        read_book(where)


@pytest.mark.parametrize("name", ["book.json", "table.csv"])
def test_special_files_in_a_book_are_refused(pristine: dict[str, Any], name: str) -> None:
    """A FIFO (never opened for a blocking read), a directory, /dev/zero, an 8 GB sparse file
    (refused by its size, never read whole) and a missing file in place of a book's file."""
    for kind in SPECIALS:
        where = copy_of(pristine["root"] / "raced")
        special(where / name, kind)
        with pytest.raises(BookError, match=name):
            read_book(where)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("games", "inf", "games: not an int"),
        ("lowest", "inf", "lowest: not a finite number"),
        ("lowest", "1e999", "lowest: not a finite number"),
        ("lowest", "nan", "lowest: not a finite number"),
        ("lowest", "1_0", "lowest: not a finite number"),
        ("lowest", "99", "outside the counters"),
        ("race_lo", "", "race_lo: not a finite number"),
        ("class", "9" * 30, "class: not an int"),
        ("class", "5000", "not a class of rules"),
        ("class", "TWICE", "listed twice"),
        ("stopped_after", "7", "not a round of the race"),
        ("games", "33", "games: 33 is not in 1..32"),
        ("wins", "-1", "bad counts"),
    ],
)
def test_a_wrong_cell_of_a_book_table_is_named(
    pristine: dict[str, Any], column: str, value: str, message: str
) -> None:
    """A table whose sha256 matches (a hostile writer recomputes it) is still checked cell by
    cell: the error names table.csv, the line and the column."""
    where = copy_of(pristine["root"] / "raced")
    table = pd.read_csv(where / "table.csv", dtype=str, keep_default_na=False)
    table.at[1, column] = table.at[2, "class"] if value == "TWICE" else value
    (where / "table.csv").write_text(table.to_csv(index=False, lineterminator="\n"))
    reseal_book(where)
    with pytest.raises(BookError, match=r"table\.csv") as caught:
        read_book(where)
    assert message in str(caught.value)


def test_a_book_table_of_one_huge_line_is_refused(pristine: dict[str, Any]) -> None:
    where = copy_of(pristine["root"] / "raced")
    (where / "table.csv").write_text("class," + "x" * (1 << 20) + "\n")
    reseal_book(where)
    with pytest.raises(BookError, match=r"table\.csv"):
        read_book(where)


# -- hostile checkpoints ---------------------------------------------------------------------


def test_the_race_checkpoint_reads_back_and_releases_its_lock(pristine: dict[str, Any]) -> None:
    where = copy_of(pristine["root"] / "race")
    assert not (where / "_genial.lock").exists()  # the race released its lock when it ended
    check, steps = open_race(where, pristine["params"])
    assert len(steps) == pristine["steps"] >= 2
    assert (where / "_genial.lock").exists()
    with check, pytest.raises(BookError, match="another writer"):
        pristine["raced"].to_book(where)  # a book is not written over a running race
    assert check.closed and not (where / "_genial.lock").exists()
    with pytest.raises(CheckpointError, match="closed"):
        check.add({"round": 9}, {k: np.zeros(1, dtype) for k, (dtype, _) in RACE_ARRAYS.items()})
    pristine["raced"].to_book(where)  # the race is over: the book goes beside its steps
    assert read_book(where).table.equals(pristine["raced"].table)


def test_an_interrupted_race_releases_its_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from genial.board import openings as module

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "run_many", interrupted)
    with pytest.raises(KeyboardInterrupt):
        analyse(2, games_per_opening=32, seed=2, policy="mc:1:k1", adaptive=True, batch=16,
                workers=1, out=tmp_path / "race")  # fmt: skip
    assert (tmp_path / "race" / "manifest.json").exists()
    assert not (tmp_path / "race" / "_genial.lock").exists()


@pytest.mark.parametrize("name", ["manifest.json", "step-000001.npz"])
def test_special_files_in_a_checkpoint_are_refused(pristine: dict[str, Any], name: str) -> None:
    for kind in SPECIALS:
        where = copy_of(pristine["root"] / "race")
        special(where / name, kind)
        if name == "manifest.json" and kind == "missing":  # no manifest: a new checkpoint
            check, steps = open_race(where, pristine["params"])
            check.close()
            assert steps == [] and check.closed
            continue
        with pytest.raises(CheckpointError, match=name):
            open_race(where, pristine["params"])
        assert not (where / "_genial.lock").exists()  # a refused open keeps no lock


def npz(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def good_members(rows: int = 3) -> dict[str, bytes]:
    return {f"{k}.npy": npy(np.zeros(rows, dtype)) for k, (dtype, _) in RACE_ARRAYS.items()}


def lying_header(length: int) -> bytes:
    """A uint16 .npy whose header claims ``length`` rows, with the data of one."""
    header = f"{{'descr': '<u2', 'fortran_order': False, 'shape': ({length},), }}"
    header += " " * (63 - len(header) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0\0"


@pytest.mark.parametrize(
    ("members", "message"),
    [
        # a deflated bomb: 8 MiB of zeros in about 8 KiB (under the step's size limit),
        # refused by its stated size before it is inflated
        ({**good_members(), "cls.npy": npy(np.zeros(1 << 22, np.uint16))}, "inflates"),
        ({**good_members(), "cls.npy": lying_header(2**40)}, "rows, at most 1,024"),
        ({**good_members(), "cls.npy": lying_header(2)}, "does not match its header"),
        ({**good_members(), "cls.npy": npy(np.zeros(3, np.float64))}, "one row of uint16"),
        ({**good_members(), "cls.npy": npy(np.zeros((1, 3), np.uint16))}, "one row of uint16"),
        ({**good_members(), "cls.npy": npy(np.array([b"x"], object))}, "cls"),
        ({**good_members(), "cls.npy": b"\x93NUMPY\x09\x00"}, "not a readable .npy"),
        ({**good_members(), "cls.npy": b"\x93NUMPY\x01\x00\xff\x00{" + b"(" * 250}, "cls"),
        ({**good_members(), "more.npy": npy(np.zeros(3, np.uint8))}, "expected"),
        ({**good_members(), "win.npy": npy(np.full(3, 2, np.uint8))}, "outside 0..1"),
        ({**good_members(), "win.npy": npy(np.zeros(4, np.uint8))}, "differ in length"),
    ],
)
def test_a_hostile_step_is_refused(
    pristine: dict[str, Any], members: dict[str, bytes], message: str
) -> None:
    """A step whose checksum matches (a hostile writer recomputes it) but whose archive is a
    bomb, lies in its headers or holds other arrays: a CheckpointError naming the step."""
    where = copy_of(pristine["root"] / "race")
    (where / "step-000001.npz").write_bytes(npz(members, zipfile.ZIP_DEFLATED))
    reseal_step(where, 1)
    with pytest.raises(CheckpointError, match=r"step-000001\.npz") as caught:
        open_race(where, pristine["params"])
    assert message in str(caught.value)


def test_a_huge_step_file_is_refused_by_its_size(pristine: dict[str, Any]) -> None:
    where = copy_of(pristine["root"] / "race")
    (where / "step-000000.npz").write_bytes(npz(good_members(8 * RACE_ROWS)))
    reseal_step(where, 0)
    with pytest.raises(CheckpointError, match=r"step-000000\.npz'?: [0-9,]+ bytes, more than"):
        open_race(where, pristine["params"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.__setitem__("steps", {"0": 1}), "steps must be a list"),
        (lambda m: m["steps"].__setitem__(0, 5), r"steps\[0\]"),
        (lambda m: m["steps"][0].__setitem__("sha256", 5), r"steps\[0\].sha256"),
        (lambda m: m["steps"][0].__setitem__("file", "../x.npz"), r"steps\[0\].file"),
        (lambda m: m["steps"][0].__setitem__("info", [1]), r"steps\[0\].info"),
        (lambda m: m["steps"][0].__setitem__("more", 1), r"steps\[0\]"),
        (lambda m: m.__setitem__("more", 1), "unknown field"),
        (lambda m: m.__setitem__("params", [1]), "another analysis"),
        (lambda m: m["params"].__setitem__("x" * 10_000, 1), "another analysis"),
    ],
)
def test_a_wrong_field_of_a_manifest_is_named(
    pristine: dict[str, Any], edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    where = copy_of(pristine["root"] / "race")
    meta = json.loads((where / "manifest.json").read_text())
    edit(meta)
    (where / "manifest.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=message) as caught:
        open_race(where, pristine["params"])
    assert len(str(caught.value)) < 1000


def test_a_step_of_another_round_is_refused_on_resume(pristine: dict[str, Any]) -> None:
    """A step whose info says another round (a bool round too) is not this race's step."""
    for value in (True, 5, "0", None):
        where = copy_of(pristine["root"] / "race")
        meta = json.loads((where / "manifest.json").read_text())
        meta["steps"][0]["info"]["round"] = value
        (where / "manifest.json").write_text(json.dumps(meta))
        with pytest.raises(CheckpointError, match="step 0 is not a step of this analysis"):
            analyse(2, games_per_opening=32, seed=2, policy="mc:1:k1", adaptive=True,
                    batch=16, workers=1, out=where, resume=True)  # fmt: skip


# -- property-based: mutations of real files -------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)  # fmt: skip
RAW_TEXTS = st.sampled_from(
    [
        "1" + "0" * 400,  # 10**400
        "1e400",
        "1e308",
        "-1e309",
        "1.7976931348623157e309",  # 1e308 * 10, as text
        "NaN",
        "Infinity",
        "-0",
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 5000 + "1" + "}" * 5000,
        '"' + "x" * 200_000 + '"',
    ]
)
RAW = "\u0000raw\u0000"


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document (keys and list positions)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            found += json_paths(item, (*prefix, i))
    return found


@st.composite
def json_mutation(draw: st.DrawFn, document: Any) -> Callable[[Any], str]:
    """A change to a JSON document: a value replaced by a generated one (of any type) or by
    raw text (huge numbers, deep nesting), a key removed, or an unknown key added."""
    path = draw(st.sampled_from(json_paths(document)))
    how = draw(st.sampled_from(["value", "raw", "remove", "add"]))
    value = draw(JSON_VALUES)
    raw = draw(RAW_TEXTS)

    def apply(doc: Any) -> str:
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if how == "value":
            parent[last] = value
        elif how == "raw":
            parent[last] = RAW
        elif how == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent["unknown" + str(len(parent))] = value
        else:
            parent.append(value)
        return json.dumps(doc).replace(json.dumps(RAW), raw)

    return apply


def special(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "sparse":
        with path.open("wb") as file:
            file.truncate(8 << 30)


SPECIALS = ["fifo", "directory", "zero", "dangling", "sparse", "missing"]


@st.composite
def file_mutation(draw: st.DrawFn, names: list[str], jsons: dict[str, Any]) -> Any:
    """(file, how, its parameters): truncation, bit flips, a JSON field's change, a special
    file, or text written over a part of it."""
    name = draw(st.sampled_from(names))
    kinds = ["truncate", "flip", "special", "splice"] + (["json"] * 3 if name in jsons else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "truncate":
        return name, kind, draw(st.floats(0, 1))
    if kind == "flip":
        return name, kind, draw(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)),
                                         min_size=1, max_size=8))  # fmt: skip
    if kind == "special":
        return name, kind, draw(st.sampled_from(SPECIALS))
    if kind == "splice":
        return name, kind, (draw(st.floats(0, 1)), draw(RAW_TEXTS | st.text(max_size=40)))
    return name, kind, draw(json_mutation(jsons[name]))


def mutate(where: Path, name: str, kind: str, detail: Any) -> None:
    path = where / name
    data = path.read_bytes()
    if kind == "truncate":
        path.write_bytes(data[: int(detail * len(data))])
    elif kind == "flip":
        changed = bytearray(data)
        for at, bit in detail:
            if changed:
                changed[min(int(at * len(changed)), len(changed) - 1)] ^= 1 << bit
        path.write_bytes(bytes(changed))
    elif kind == "special":
        special(path, detail)
    elif kind == "splice":
        at = int(detail[0] * len(data))
        path.write_bytes(data[:at] + detail[1].encode() + data[at + len(detail[1]) :])
    else:
        path.write_text(detail(json.loads(data)))


def book_case(pristine: dict[str, Any], data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["raced", "uniform", "observed"]), label="book")
    source = pristine["root"] / kind
    jsons = {"book.json": json.loads((source / "book.json").read_text())}
    name, how, detail = data.draw(file_mutation(["book.json", "table.csv"], jsons), label="how")
    reseal = name == "table.csv" and how != "special" and data.draw(st.booleans())
    where = copy_of(source)
    try:
        mutate(where, name, how, detail)
        if reseal:
            reseal_book(where)
        try:
            result = read_book(where)
        except BookError as err:
            message = str(err)
        else:
            assert_valid_book(result)
            return
        assert len(message) < 2000
    finally:
        shutil.rmtree(where.parent)


def checkpoint_case(pristine: dict[str, Any], data: st.DataObject) -> None:
    source = pristine["root"] / "race"
    names = ["manifest.json", *(f"step-{k:06d}.npz" for k in range(pristine["steps"]))]
    jsons = {"manifest.json": json.loads((source / "manifest.json").read_text())}
    name, how, detail = data.draw(file_mutation(names, jsons), label="how")
    reseal = name != "manifest.json" and how != "special" and data.draw(st.booleans())
    where = copy_of(source)
    try:
        mutate(where, name, how, detail)
        if reseal:
            reseal_step(where, int(name[5:11]))
        try:
            check, steps = open_race(where, pristine["params"])
        except CheckpointError as err:
            message = str(err)
        else:
            check_steps(check, steps)
            return
        assert len(message) < 2000
        assert not (where / "_genial.lock").exists()
    finally:
        shutil.rmtree(where.parent)


def check_steps(check: Checkpoint, steps: list[Any]) -> None:
    """Steps a checkpoint accepted: what a race may read back."""
    with check:
        for info, arrays in steps:
            assert isinstance(info, dict)
            assert sorted(arrays) == sorted(RACE_ARRAYS)
            lengths = {len(a) for a in arrays.values()}
            assert len(lengths) == 1 and lengths.pop() <= RACE_ROWS
            for key, (dtype, top) in RACE_ARRAYS.items():
                assert arrays[key].dtype == np.dtype(dtype)
                assert int(arrays[key].max(initial=0)) <= top


FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@settings(FUZZ, max_examples=QUICK)
@given(data=st.data())
def test_mutated_books_quick(pristine: dict[str, Any], data: st.DataObject) -> None:
    """read_book of a library-written book with one file mutated: a valid analysis or a
    BookError, never another exception."""
    book_case(pristine, data)


@pytest.mark.slow
@settings(FUZZ, max_examples=FULL)
@given(data=st.data())
def test_mutated_books_full(pristine: dict[str, Any], data: st.DataObject) -> None:
    book_case(pristine, data)


@settings(FUZZ, max_examples=QUICK)
@given(data=st.data())
def test_mutated_checkpoints_quick(pristine: dict[str, Any], data: st.DataObject) -> None:
    """Checkpoint.open(resume=True) of a real race's checkpoint with one file mutated: valid
    steps or a CheckpointError (and no lock kept), never another exception."""
    checkpoint_case(pristine, data)


@pytest.mark.slow
@settings(FUZZ, max_examples=FULL)
@given(data=st.data())
def test_mutated_checkpoints_full(pristine: dict[str, Any], data: st.DataObject) -> None:
    checkpoint_case(pristine, data)


# -- writers racing on one directory -----------------------------------------------------------


def variant(result: OpeningAnalysis, writer: int) -> OpeningAnalysis:
    """The analysis with a table of its own (a stored mean moved), so that a book made of two
    writers' files would not match its sha256."""
    table = result.table.copy()
    table.loc[0, "lowest"] = round(float(table.loc[0, "lowest"]) * 0.5 + writer * 0.01, 6)
    return dataclasses.replace(result, table=table)


def outcome(action: Callable[[], Any]) -> str:
    """'ok', the GenialError's class name (refused: another writer holds the directory, or
    took it over), or 'other: ...' for anything else."""
    try:
        action()
    except GenialError as err:
        refused = "another writer" in str(err) or "can no longer be written" in str(err)
        return type(err).__name__ if refused else f"other: {err!r}"
    except BaseException as err:
        return f"other: {err!r}"
    return "ok"


def book_writer(source: str, target: str, writer: int, rounds: int, barrier: Any) -> list[str]:
    """``rounds`` times: wait for the others, then write a book of one's own to ``target``."""
    mine = variant(read_book(source), writer)
    results = []
    for _ in range(rounds):
        barrier.wait()
        results.append(outcome(lambda: mine.to_book(target, command=f"writer {writer}")))
        barrier.wait()  # the checker reads the book between rounds
    return results


def checkpoint_writer(target: str, writer: int, rounds: int, barrier: Any) -> list[str]:
    """``rounds`` times: open the checkpoint (resuming), add two steps of one's own, close."""
    results = []
    rows = {k: np.full(2, min(writer, top), np.dtype(d)) for k, (d, top) in RACE_ARRAYS.items()}
    for _ in range(rounds):
        barrier.wait()

        def race() -> None:
            check, _ = Checkpoint.open(target, {"test": 1}, resume=True, arrays=RACE_ARRAYS,
                                       rows=RACE_ROWS)  # fmt: skip
            with check:
                for _ in range(2):
                    check.add({"round": writer}, rows)
                    results.append("step")

        results.append(outcome(race))
        barrier.wait()
    return results


def _process_main(kind: str, args: tuple[Any, ...], queue: Any) -> None:  # pragma: no cover
    """A racing process's body (module level: spawn imports it)."""
    try:
        work = book_writer if kind == "book" else checkpoint_writer
        queue.put((args[-3], work(*args)))  # type: ignore[operator]
    except BaseException as err:
        queue.put((args[-3], [f"other: {err!r}"]))


def check_book_round(target: Path, variants: dict[int, OpeningAnalysis]) -> None:
    """The directory holds one writer's whole book: its table is the one that writer wrote."""
    result = read_book(target)
    assert result.provenance is not None
    writer = int(result.provenance["command"].split()[-1])
    pd.testing.assert_frame_equal(result.table, variants[writer].table)


def check_checkpoint_round(target: Path, steps_written: int) -> None:
    check, steps = Checkpoint.open(target, {"test": 1}, resume=True, arrays=RACE_ARRAYS,
                                   rows=RACE_ROWS)  # fmt: skip
    check.close()
    assert len(steps) == steps_written
    for info, arrays in steps:  # every step whole, its rows one writer's
        assert set(arrays["cls"].tolist()) == {info["round"]}


def race_threads(kind: str, pristine: dict[str, Any], tmp_path: Path, writers: int) -> None:
    target = tmp_path / "target"
    source = pristine["root"] / "raced"
    variants = {w: variant(pristine["raced"], w) for w in range(writers)}
    barrier = threading.Barrier(writers + 1, timeout=300)
    results: dict[int, list[str]] = {}

    def body(w: int) -> None:
        if kind == "book":
            results[w] = book_writer(str(source), str(target), w, ROUNDS_QUICK, barrier)
        else:
            results[w] = checkpoint_writer(str(target), w, ROUNDS_QUICK, barrier)

    threads = [threading.Thread(target=body, args=(w,), daemon=True) for w in range(writers)]
    for t in threads:
        t.start()
    supervise(kind, barrier, target, variants, results, writers)
    for t in threads:
        t.join()
    assert_outcomes(kind, results, writers)


def supervise(
    kind: str,
    barrier: Any,
    target: Path,
    variants: dict[int, OpeningAnalysis],
    results: Any,
    writers: int,
) -> None:
    """Between the rounds: the directory holds one writer's whole book, or a checkpoint every
    step of which is whole (each round's count checked at the end)."""
    for _ in range(ROUNDS_QUICK):
        barrier.wait()
        barrier.wait()
        if kind == "book":
            check_book_round(target, variants)
        else:
            check, _ = Checkpoint.open(target, {"test": 1}, resume=True, arrays=RACE_ARRAYS,
                                       rows=RACE_ROWS)  # fmt: skip
            check.close()


def assert_outcomes(kind: str, results: dict[int, list[str]], writers: int) -> None:
    assert sorted(results) == list(range(writers))
    outcomes = [r for rs in results.values() for r in rs]
    others = [r for r in outcomes if r.startswith("other")]
    assert not others, others[:3]
    error = "BookError" if kind == "book" else "CheckpointError"
    assert set(outcomes) <= {"ok", "step", error}
    if kind == "book":
        assert outcomes.count("ok") >= ROUNDS_QUICK  # whoever locks first writes, each round
    else:
        written = outcomes.count("step")
        assert written >= 2 * ROUNDS_QUICK


@pytest.mark.parametrize("writers", [4, 8])
def test_threads_racing_to_book_into_one_directory(
    pristine: dict[str, Any], tmp_path: Path, writers: int
) -> None:
    race_threads("book", pristine, tmp_path, writers)
    check_book_round(tmp_path / "target", {w: variant(pristine["raced"], w) for w in range(8)})


@pytest.mark.parametrize("writers", [4, 8])
def test_threads_racing_on_one_checkpoint(
    pristine: dict[str, Any], tmp_path: Path, writers: int
) -> None:
    """Threads of one process: a later open takes the directory over, and the earlier race's
    next step is refused (never written half, never numbered twice)."""
    race_threads("checkpoint", pristine, tmp_path, writers)
    # every step added is on disk, whole, with its writer's rows
    check, steps = Checkpoint.open(tmp_path / "target", {"test": 1}, resume=True,
                                   arrays=RACE_ARRAYS, rows=RACE_ROWS)  # fmt: skip
    check.close()
    for info, arrays in steps:
        assert set(arrays["cls"].tolist()) == {info["round"]}


def race_processes(kind: str, pristine: dict[str, Any], tmp_path: Path, writers: int) -> None:
    context = multiprocessing.get_context("spawn")
    target = tmp_path / "target"
    source = pristine["root"] / "raced"
    barrier = context.Barrier(writers + 1, timeout=300)
    queue = context.Queue()
    processes = []
    for w in range(writers):
        args: tuple[Any, ...] = (
            (str(source), str(target), w, ROUNDS_QUICK, barrier)
            if kind == "book"
            else (str(target), w, ROUNDS_QUICK, barrier)
        )
        process = context.Process(target=_process_main, args=(kind, args, queue), daemon=True)
        process.start()
        processes.append(process)
    try:
        variants = {w: variant(pristine["raced"], w) for w in range(writers)}
        supervise(kind, barrier, target, variants, {}, writers)
        results = dict(queue.get(timeout=300) for _ in range(writers))
    finally:
        for process in processes:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    assert_outcomes(kind, results, writers)
    if kind == "checkpoint":
        steps = sum(r.count("step") for r in results.values())
        check_checkpoint_round(target, steps)


@pytest.mark.parametrize("writers", [2, 4])
def test_processes_racing_to_book_into_one_directory(
    pristine: dict[str, Any], tmp_path: Path, writers: int
) -> None:
    race_processes("book", pristine, tmp_path, writers)


@pytest.mark.parametrize("writers", [2, 3])
def test_processes_racing_on_one_checkpoint(
    pristine: dict[str, Any], tmp_path: Path, writers: int
) -> None:
    """Processes: the lock refuses a second race while the first writes; every step any
    process added is on disk, whole, and the checkpoint reads back."""
    race_processes("checkpoint", pristine, tmp_path, writers)
