"""Datasets you can trust (docs/datasets.md): whatever is on disk is checked before it is used.
A damaged, truncated, emptied, overwritten, misplaced or foreign part, any flipped bit, crafted
metadata and a second writer each end in a ``GenialError`` naming the file (and the field), or,
with ``resume=True``, in a repaired dataset identical to an uninterrupted run; plans are lazy, so
a run of 2**40 games starts at once in a few megabytes."""

from __future__ import annotations

import importlib
import itertools
import json
import math
import os
import pickle
import random
import shutil
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial import GenialError, simulate
from genial.batch import CHUNK, DatasetError, Output, Scheduler, open_dataset, prepare

pa = pytest.importorskip("pyarrow")
RUN = importlib.import_module("genial.batch.chunks")  # the chunk loop simulate plays through
DATASET = importlib.import_module("genial.batch.dataset")
SPEC = importlib.import_module("genial.batch.spec")

N = 3 * CHUNK - 100  # three parts of one chunk (the last short)
SEED = 5
META = "_genial.json"
LOCK = "_genial.lock"
P0, P1, P2 = (f"part-{p:08d}.parquet" for p in range(3))
S0, S1 = (f"_part-{p:08d}.sha256" for p in range(2))


@pytest.fixture(autouse=True)
def one_chunk_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """One chunk (1,024 games) a part: small runs of several parts."""
    monkeypatch.setattr(DATASET, "PART_CHUNKS", 1)


def write(
    path: Path,
    games: int = N,
    seed: int = SEED,
    *,
    overwrite: bool = False,
    resume: bool = False,
    **kwargs: Any,
) -> Any:
    out = Output(path, overwrite=overwrite, resume=resume)
    return simulate(games, 2, seed=seed, out=out, **kwargs)


def files(path: Path) -> dict[str, bytes]:
    """The files of a dataset but ``_genial.json`` (whose ``seconds`` differ from run to run)."""
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.name != META}


def snapshot(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def header(path: Path) -> Any:
    meta = json.loads((path / META).read_text())
    return meta["header"], meta["complete"]


def assert_identical(path: Path, reference: Path) -> None:
    """The same files, byte for byte, and the same metadata, as an uninterrupted run."""
    assert files(path) == files(reference)
    assert header(path) == header(reference)


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    write(tmp_path / "reference")
    return tmp_path / "reference"


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """A run of another seed (the same game, rules, policies and plan)."""
    write(tmp_path / "other", seed=SEED + 1)
    return tmp_path / "other"


def reseal(path: Path, meta: Any) -> None:
    """``_genial.json`` written with its digest, as a writer would: metadata a (crafted) writer
    made, which only the checks of its fields can refuse."""
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k != "sha256"}
        meta["sha256"] = DATASET._seal(meta)
    (path / META).write_text(json.dumps(meta))


def truncate(path: Path, other: Path) -> None:
    data = (path / P1).read_bytes()
    (path / P1).write_bytes(data[: len(data) // 2])


def empty(path: Path, other: Path) -> None:
    (path / P1).write_bytes(b"")


def garbage(path: Path, other: Path) -> None:
    size = len((path / P1).read_bytes())
    (path / P1).write_bytes(random.Random(1).randbytes(size))


def foreign_part(path: Path, other: Path) -> None:
    """Another seed's part 1, with its digest (a consistent pair: only its metadata tells)."""
    shutil.copy(other / P1, path / P1)
    if (other / S1).exists():  # (the writer of format 1 wrote no digest)
        shutil.copy(other / S1, path / S1)


def foreign_file(path: Path, other: Path) -> None:
    shutil.copy(other / P1, path / P1)


def swap_files(path: Path, other: Path) -> None:
    (path / P0).rename(path / "x")
    (path / P1).rename(path / P0)
    (path / "x").rename(path / P1)


def swap_pairs(path: Path, other: Path) -> None:
    """Parts 0 and 1 swapped with their digests."""
    swap_files(path, other)
    if (path / S0).exists():  # (the writer of format 1 wrote no digest)
        (path / S0).rename(path / "x")
        (path / S1).rename(path / S0)
        (path / "x").rename(path / S1)


def lose_digest(path: Path, other: Path) -> None:
    (path / S1).unlink(missing_ok=True)


def wrong_digest(path: Path, other: Path) -> None:
    (path / S1).write_text(f"{'0' * 64}  {P1}\n")


def lose_part(path: Path, other: Path) -> None:
    (path / P1).unlink()


DAMAGES: list[tuple[Callable[[Path, Path], None], str]] = [
    (truncate, rf"{P1}: not a readable Parquet file: damaged"),
    (empty, rf"{P1}: not a readable Parquet file"),
    (garbage, rf"{P1}: not a readable Parquet file"),
    (foreign_part, rf"{P1}: its metadata is not its run's .*a part of another run"),
    (foreign_file, rf"{P1}: its metadata is not its run's"),
    (swap_files, rf"{P0}: holds part 1's games \(from game 1024\), not part 0's .*swapped"),
    (swap_pairs, rf"{P0}: holds part 1's games"),
    (lose_digest, rf"{P1}: its digest \({S1}\) is missing"),
    (wrong_digest, rf"{P1}: its content does not match its digest \({S1}\)"),
    (lose_part, rf"marked complete but {P1} is missing"),
]


@pytest.mark.parametrize(("damage", "message"), DAMAGES, ids=[d.__name__ for d, _ in DAMAGES])
def test_a_damaged_part_is_named_and_resume_repairs_it(
    tmp_path: Path, reference: Path, other: Path, damage: Any, message: str
) -> None:
    """Reading a damaged dataset is a ``GenialError`` naming the part and what is wrong (never
    pyarrow's error, never other numbers); ``resume=True`` checks every part, says which it
    plays again, and leaves the files of an uninterrupted run, byte for byte."""
    path = tmp_path / "runs"
    shutil.copytree(reference, path)
    damage(path, other)
    with pytest.raises(GenialError, match=message):
        open_dataset(path).to_arrow()
    if damage is not lose_part:
        with pytest.raises(GenialError, match=message):
            open_dataset(path).verify()
        with pytest.raises(GenialError, match=message):
            open_dataset(path).summary()
    with pytest.warns(
        UserWarning, match=r"fail their checks and are played again: part-0000000"
    ) as seen:
        repaired = write(path, resume=True)
    assert [w.category for w in seen] == [DATASET.DatasetRepairWarning]
    assert repaired.complete and len(repaired) == N
    assert_identical(path, reference)
    repaired.verify()


def test_the_lock_is_held_while_writing_and_released_on_ctrl_c(
    tmp_path: Path, reference: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a run writes, the directory's lock names its writer; interrupted (Ctrl-C) after
    its first chunk, the lock is released and the finished parts kept; a resume with nothing
    wrong says nothing and gives the uninterrupted run's files, and so does a second."""
    path = tmp_path / "runs"
    held: list[Any] = []

    def bar(total: int, enabled: bool, unit: str = "games") -> Any:
        def update(k: int) -> None:
            held.append(json.loads((path / LOCK).read_text()) if (path / LOCK).exists() else None)
            raise KeyboardInterrupt

        return update

    with monkeypatch.context() as patch:
        patch.setattr(RUN, "progress_bar", bar)
        with pytest.raises(KeyboardInterrupt):
            write(path, progress=True)
    assert held and held[0] is not None and held[0]["pid"] == os.getpid()
    assert not (path / LOCK).exists()
    assert not open_dataset(path).complete
    write(path, resume=True)  # (pytest turns any warning into an error)
    assert_identical(path, reference)
    write(path, resume=True)  # a complete run: checked, nothing played
    assert_identical(path, reference)


def flipped(data: bytes, bit: int) -> bytes:
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def test_every_flipped_bit_of_a_part_is_caught_and_repaired(tmp_path: Path) -> None:
    """64 single-bit flips anywhere in a part (its pages, dictionary, footer, metadata) and 24
    in its digest file: each read is a ``GenialError`` naming the part, each resume plays the
    part again into the same bytes."""
    path = tmp_path / "runs"
    write(path, 300)  # one small part: flips land in every structure of the file
    original = snapshot(path)
    rng = random.Random(2024)
    for name, flips in ((P0, 64), (S0, 24)):
        size = len(original[name]) * 8
        for bit in rng.sample(range(size), flips):
            (path / name).write_bytes(flipped(original[name], bit))
            with pytest.raises(GenialError, match=rf"{P0}|{S0}"):
                open_dataset(path).to_arrow()
            with pytest.warns(DATASET.DatasetRepairWarning, match=rf"played again: ({P0}|{S0})"):
                write(path, 300, resume=True)
            assert files(path) == {k: v for k, v in original.items() if k != META}, (name, bit)


def test_every_flipped_bit_of_the_metadata_is_caught(tmp_path: Path) -> None:
    """A flipped bit of ``_genial.json`` (its fields, its digest, its layout) is a
    ``GenialError`` naming it, on reading and on resuming (nothing is touched)."""
    path = tmp_path / "runs"
    write(path, 300)
    original = snapshot(path)
    data = original[META]
    for bit in random.Random(7).sample(range(len(data) * 8), 32):
        (path / META).write_bytes(flipped(data, bit))
        with pytest.raises(GenialError, match=META):
            open_dataset(path)
        with pytest.raises(GenialError, match=META):
            write(path, 300, resume=True)
        assert snapshot(path) == {**original, META: flipped(data, bit)}
    (path / META).write_bytes(data)
    assert len(open_dataset(path).to_arrow()) == 300


def test_stray_and_misnamed_parts_are_named(tmp_path: Path, reference: Path) -> None:
    """A file whose name is a part's number written another way (which would stand for another
    part), or a part beyond the plan, is a ``GenialError`` naming it, on reading and on
    resuming, and nothing is touched."""
    for stray, message in (
        (
            "part-000000001.parquet",
            r"part-000000001\.parquet: a stray file.* part-00000001\.parquet",
        ),
        ("part-1.parquet", r"part-1\.parquet: a stray file"),
        ("_part-1.sha256", r"_part-1\.sha256: a stray file.* _part-00000001\.sha256"),
        ("part-" + "9" * 30 + ".parquet", r"part-9{30}\.parquet: a stray file"),
        ("part-00000003.parquet", r"part-00000003\.parquet: a part beyond the run's 3 parts"),
    ):
        path = tmp_path / "stray"
        shutil.copytree(reference, path)
        shutil.copy(path / P1, path / stray)
        before = snapshot(path)
        with pytest.raises(GenialError, match=message):
            open_dataset(path)
        with pytest.raises(GenialError, match=message):
            write(path, resume=True)
        if "stray" in message:  # (never removed: not a name genial writes)
            with pytest.raises(GenialError, match=message):
                write(path, overwrite=True)
        assert snapshot(path) == before
        shutil.rmtree(path)


# -- metadata from disk is user input --------------------------------------------------------------


def set_field(*keys: str | int, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(meta: dict[str, Any]) -> None:
        target: Any = meta
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    mutate.__name__ = ".".join(map(str, keys))
    return mutate


def drop_field(*keys: str) -> Callable[[dict[str, Any]], None]:
    def mutate(meta: dict[str, Any]) -> None:
        target: Any = meta
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return mutate


H = "header"
CRAFTED: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (set_field(H, "seed", "pool_size", value=10**9), r"seed\.pool_size must be an int in 4\.\.64"),
    (set_field(H, "seed", "pool_size", value=2), r"seed\.pool_size must be an int in 4\.\.64"),
    (set_field(H, "seed", "pool_size", value=4.0), r"seed\.pool_size must be an int"),
    (set_field(H, "seed", "entropy", value="9" * 3000), r"seed\.entropy must be a decimal"),
    (set_field(H, "seed", "entropy", value="9" * 2467), r"seed\.entropy must be a seed of at"),
    (
        set_field(H, "seed", "entropy", value=[str(2**8000)] * 2),
        r"seed\.entropy must be a seed of at most 8192 bits",
    ),
    (set_field(H, "seed", "entropy", value="-1"), r"seed\.entropy must be a decimal"),
    (set_field(H, "seed", "entropy", value="1_000"), r"seed\.entropy must be a decimal"),
    (
        set_field(H, "seed", "entropy", value=["1"] * 300),
        r"seed\.entropy must be a list of at most",
    ),
    (set_field(H, "seed", "entropy", value=5), r"seed\.entropy must be a decimal"),
    (set_field(H, "seed", "spawn_key", value=[0] * 1000), r"seed\.spawn_key must be a list"),
    (set_field(H, "seed", "spawn_key", value=[-1]), r"seed\.spawn_key must be an int"),
    (set_field(H, "seed", "spawn_key", value=[2**70]), r"seed\.spawn_key must be an int"),
    (set_field(H, "seed", value=[1]), r"seed must be entropy, spawn_key and pool_size"),
    (set_field(H, "games", value=2**41), r"games must be an int in 0\.\.1,099,511,627,776"),
    (set_field(H, "games", value=-1), r"games must be an int"),
    (set_field(H, "games", value="3000"), r"games must be an int"),
    (set_field(H, "games", value=True), r"games must be an int"),
    (set_field(H, "games", value=3000.0), r"games must be an int"),
    (set_field(H, "games", value=10 * CHUNK), r"chunks must be 10"),  # (its chunks say 3)
    (set_field(H, "chunks", value=4), r"chunks must be 3"),
    (set_field(H, "part_chunks", value=0), r"part_chunks must be an int in 1\.\.1,024"),
    (set_field(H, "part_chunks", value=10**6), r"part_chunks must be an int in 1\.\.1,024"),
    (set_field(H, "parts", value=10**12), r"parts must be 3"),
    (set_field(H, "chunk_games", value=10**9), r"chunks of 1,000,000,000 games, but genial"),
    (set_field(H, "players", value=3), r"players must be 2"),
    (set_field(H, "rules", value="9"), r"_genial\.json: "),
    (set_field(H, "rules", value="x" * 10**4), r"rules must be a text of at most 64"),
    (set_field(H, "game", value="chess"), r"unknown game"),
    (set_field(H, "policies", value=["greedy"]), r"policies and epsilons must be one per seat"),
    (set_field(H, "policies", value=["greedy"] * 10**5), r"policies must be a list of at most 2"),
    (set_field(H, "policies", 0, value="fastest"), r"policies\[0\]: unknown policy"),
    (set_field(H, "policies", 0, value=7), r"policies\[0\]: a policy is a name"),
    (set_field(H, "epsilons", 0, value=2.0), r"policies\[0\]: "),
    (set_field(H, "epsilons", 0, value="0.1"), r"epsilons\[0\] must be a number"),
    (set_field(H, "policy_labels", value=["greedy", "random"]), r"policy_labels must be"),
    (set_field(H, "start", value="x" * 200_000), r"start must be a text of at most 100,000"),
    (set_field(H, "start", value="no position"), r"_genial\.json: "),
    (set_field(H, "openings", value=[10**30]), r"_genial\.json: "),
    (set_field(H, "records", value="yes"), r"records must be true or false"),
    (set_field(H, "columns", value=["game"]), r"columns must be the columns of genial"),
    (set_field(H, "format_version", value=3), r"not a genial-dataset of a version this genial"),
    (set_field(H, "format_version", value=True), r"not a genial-dataset of a version"),
    (set_field(H, "format", value="csv"), r"not a genial-dataset"),
    (set_field(H, "genial_version", value=["0.2"]), r"genial_version must be a text"),
    (set_field(H, "extra", value=1), r"an unknown field 'extra'"),
    (drop_field(H, "parts"), r"no field 'parts'"),
    (set_field("complete", value="yes"), r"complete must be true or false"),
    (set_field("seconds", value=-1.0), r"seconds must be a number of seconds"),
    (set_field("seconds", value="fast"), r"seconds must be a number of seconds"),
    (set_field("extra", value=None), r"an unknown field 'extra'"),
]


@pytest.mark.parametrize(
    ("mutate", "message"), CRAFTED, ids=[f"{i}-{m.__name__}" for i, (m, _) in enumerate(CRAFTED)]
)
def test_crafted_metadata_is_refused_naming_the_field(
    reference: Path, mutate: Callable[[dict[str, Any]], None], message: str
) -> None:
    """``_genial.json`` with a valid digest but a field out of bounds, of the wrong type,
    inconsistent with the others, missing or unknown: refused at once on reading and on
    resuming, a ``GenialError`` naming the file and the field (nothing allocated for a huge
    value, nothing touched)."""
    meta = json.loads((reference / META).read_text())
    mutate(meta)
    reseal(reference, meta)
    before = snapshot(reference)
    with pytest.raises(GenialError, match=message) as refused:
        open_dataset(reference)
    assert META in str(refused.value)
    with pytest.raises(GenialError, match=message):
        write(reference, resume=True)
    assert snapshot(reference) == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, r"cannot be read as JSON \(nested deeper than 64"),
        ('{"header": {"games": NaN}}', "cannot be read as JSON"),
        ('{"header": {"games": 1' + "0" * 5000 + "}}", "cannot be read as JSON"),
        ("[1, 2]", "not the metadata of a genial dataset"),
        ("{" + " " * (2 << 20) + "}", "2,097,154 bytes, more than the 1,048,576 bytes allowed"),
    ],
    ids=["deep", "nan", "huge-int", "list", "huge-file"],
)
def test_unreadable_metadata_is_refused(reference: Path, text: str, message: str) -> None:
    (reference / META).write_text(text)
    with pytest.raises(GenialError, match=rf"{META}: {message}"):
        open_dataset(reference)
    (reference / META).write_bytes(b"\xff\xfe{}")
    with pytest.raises(GenialError, match=rf"{META}: cannot be read as JSON \(not UTF-8"):
        open_dataset(reference)


def test_a_huge_plan_in_the_metadata_opens_at_once(reference: Path) -> None:
    """A dataset whose metadata says 10**12 games (consistently) opens within a few megabytes:
    nothing is listed (its billion missing chunks are a lazy sequence)."""
    meta = json.loads((reference / META).read_text())
    games = 10**12
    chunks = math.ceil(games / CHUNK)
    meta["header"].update(games=games, chunks=chunks, parts=chunks, part_chunks=1)
    meta["complete"] = False
    reseal(reference, meta)
    for name in (P0, P1, P2, S0, S1, "_part-00000002.sha256"):
        (reference / name).unlink(missing_ok=True)
    tracemalloc.start()
    try:
        big = open_dataset(reference)
        missing = big.missing_chunks
        assert (len(big), big.games, big.complete, len(missing)) == (0, games, False, chunks)
        assert (missing[0], missing[-1], chunks - 1 in missing) == (0, chunks - 1, True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_a_seed_a_dataset_cannot_store_is_refused_before_playing(tmp_path: Path) -> None:
    """What is written can be read back: a seed beyond the bounds the reader checks (a pool of
    100 words) is refused before anything is written."""
    seed = np.random.SeedSequence(1, pool_size=100)
    assert len(simulate(10, 2, seed=seed)) == 10  # (in memory it plays)
    with pytest.raises(GenialError, match=r"out: seed\.pool_size must be an int in 4\.\.64"):
        simulate(10, 2, seed=seed, out=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([0, 1, 2, 3, 4, 64, 65, 1024, N, 10**12, 2**40, 2**64, -1])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["greedy", "random", "2", "3", "board", "cards", "9" * 320, "0"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (keys of objects, indices of lists), the leaves first."""
    leaves: list[tuple[Any, ...]] = []
    inner: list[tuple[Any, ...]] = []

    def walk(item: Any, path: tuple[Any, ...]) -> None:
        if isinstance(item, (dict, list)) and item:
            inner.append(path)
            for key, child in item.items() if isinstance(item, dict) else enumerate(item):
                walk(child, (*path, key))
        else:
            leaves.append(path)

    walk(value, ())
    return leaves + inner


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _near(value: Any) -> st.SearchStrategy[Any]:
    """Values close to ``value``: what a slip, a wrong type or an out-of-range number gives."""
    options: list[Any] = [None, True, "", [value], {"value": value}, str(value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        options += [value + 1, value - 1, -value, value * 10**6, 10**12, 2**64, float(value) + 0.5]
    if isinstance(value, str):
        options += [value + "x", value[:-1], value * 1000, value.upper()]
    return st.sampled_from(options)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small complete dataset of two parts (read by the property test, never written)."""
    path = tmp_path_factory.mktemp("sample") / "runs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DATASET, "PART_CHUNKS", 1)
        write(path, CHUNK + 50)
    return path


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_edit_of_the_metadata_opens_correctly_or_is_refused(sample: Path, data: Any) -> None:
    """Random edits of ``_genial.json`` (a value replaced, removed or added anywhere; the digest
    made anew): every outcome is the run read back exactly, or a ``GenialError``; never another
    exception, another table, or a hang."""
    original = (sample / META).read_bytes()
    expected = open_dataset(sample).to_arrow()
    meta = json.loads(original)
    edits = data.draw(st.integers(1, 3))
    for _ in range(edits):
        places = _paths(meta)
        where = places[data.draw(st.integers(0, len(places) - 1))]  # (the leaves first)
        action = data.draw(st.sampled_from(["near", "near", "replace", "remove", "add"]))
        if not where:
            meta = data.draw(JSON) if action == "replace" else meta
            continue
        parent = _at(meta, where[:-1])
        last = where[-1]
        if action == "near":
            parent[last] = data.draw(_near(parent[last]))
        elif action == "replace":
            parent[last] = data.draw(JSON)
        elif action == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[data.draw(st.text(max_size=8))] = data.draw(JSON)
        else:
            parent.insert(last, data.draw(JSON))
    try:
        reseal(sample, meta)
        try:
            table = open_dataset(sample).to_arrow()
        except GenialError:
            return
        assert table.equals(expected)
    finally:
        (sample / META).write_bytes(original)


# -- one writer at a time --------------------------------------------------------------------------


def test_a_second_writer_is_refused_and_the_first_finishes(
    tmp_path: Path, reference: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a run writes (here: when its first chunk is in), a second writer on the same
    directory, resuming or overwriting, is refused naming the first (its pid); a reader meanwhile
    sees the finished parts; the first run finishes with the uninterrupted run's files."""
    path = tmp_path / "runs"
    seen: list[int] = []

    def bar(total: int, enabled: bool, unit: str = "games") -> Any:
        def update(k: int) -> None:
            if seen:
                return
            who = rf"another writer \(pid {os.getpid()} on .*\) is writing to .*runs"
            with pytest.raises(GenialError, match=who):
                write(path, resume=True)
            with pytest.raises(GenialError, match=who):
                write(path, overwrite=True)
            reading = open_dataset(path)
            reading.verify()
            seen.append(len(reading))

        return update

    monkeypatch.setattr(RUN, "progress_bar", bar)
    write(path, progress=True)
    assert seen and seen[0] in (0, CHUNK)
    assert not (path / LOCK).exists()
    assert_identical(path, reference)


HOLD = """
import fcntl, json, os, socket, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode())
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_writer_of_another_process_is_refused_until_it_ends(
    tmp_path: Path, reference: Path
) -> None:
    """A process holding the directory's lock (a writer elsewhere) refuses this one, naming its
    pid, and nothing is touched; readers go on; once that process ends (however it ends) its
    left-over lock file is taken over."""
    path = tmp_path / "runs"
    shutil.copytree(reference, path)
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path / LOCK)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline() == "locked\n"
            before = snapshot(path)
            with pytest.raises(GenialError, match=rf"another writer \(pid {holder.pid} on "):
                write(path, resume=True)
            with pytest.raises(GenialError, match=rf"another writer \(pid {holder.pid} on "):
                write(path, overwrite=True)
            assert snapshot(path) == before
            assert len(open_dataset(path).to_arrow()) == N
        finally:
            holder.stdin.close()
            holder.wait(timeout=120)
    assert (path / LOCK).exists()  # (left by the holder)
    write(path, resume=True)
    assert not (path / LOCK).exists()
    assert_identical(path, reference)


def test_without_flock_the_lock_file_alone_refuses_a_second_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import genial.files

    monkeypatch.setattr(genial.files, "fcntl", None)
    path = tmp_path / "runs"
    first = DATASET.DatasetWriter(path, prepare(N, 2, seed=SEED), N)
    try:
        with pytest.raises(
            GenialError, match=rf"another writer \(pid {os.getpid()} .*remove {LOCK}"
        ):
            write(path, resume=True)
    finally:
        first.close()
    assert not (path / LOCK).exists()
    assert write(path, resume=True).complete


def _dead_pid() -> int:
    """A pid no process has (beyond the system's largest)."""
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    except (OSError, ValueError):
        pytest.skip("no /proc/sys/kernel/pid_max")


@pytest.mark.skipif(os.name != "posix", reason="liveness by signal 0")
def test_a_live_writers_temporary_files_are_never_removed(tmp_path: Path, reference: Path) -> None:
    """Temporary files of a live process (pid 1, always there) stay; a dead writer's go."""
    path = tmp_path / "runs"
    shutil.copytree(reference, path)
    live = path / f".{P2}.tmp-1"
    dead = path / f".{P2}.tmp-{_dead_pid()}"
    for temp in (live, dead):
        temp.write_bytes(b"half a part")
    write(path, resume=True)
    write(path, overwrite=True)
    assert live.exists() and not dead.exists()
    live.unlink()
    assert_identical(path, reference)


# -- what is not a file, strays, hostile paths -----------------------------------------------------


def listing(path: Path) -> dict[str, Any]:
    """Every name in ``path`` with its content (regular files) or its kind (anything else)."""
    out: dict[str, Any] = {}
    for entry in sorted(path.iterdir()):
        if entry.is_symlink() or not entry.is_file():
            out[entry.name] = ("dir" if entry.is_dir() else "other", entry.lstat().st_ino)
        else:
            out[entry.name] = entry.read_bytes()
    return out


S2 = "_part-00000002.sha256"


def _as_directory(path: Path, name: str) -> None:
    (path / name).unlink(missing_ok=True)
    (path / name).mkdir()


def _as_fifo(path: Path, name: str) -> None:
    (path / name).unlink(missing_ok=True)
    os.mkfifo(path / name)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize(
    ("name", "make"),
    [
        pytest.param(P2, _as_directory, id="part-directory"),
        pytest.param(S2, _as_directory, id="digest-directory"),
        pytest.param(META, _as_directory, id="metadata-directory"),
        pytest.param(LOCK, _as_directory, id="lock-directory"),
        pytest.param(P2, _as_fifo, id="part-fifo"),
        pytest.param(S2, _as_fifo, id="digest-fifo"),
        pytest.param(META, _as_fifo, id="metadata-fifo"),
    ],
)
def test_what_is_not_a_regular_file_is_refused_and_nothing_changes(
    tmp_path: Path, reference: Path, name: str, make: Callable[[Path, str], None]
) -> None:
    """A directory or a FIFO named like one of the dataset's files is a ``DatasetError`` naming
    it, on reading it (readers never read the lock: they read on), resuming and overwriting,
    before anything is deleted or written (never a hang on the FIFO, never "cannot write"
    after deleting parts)."""
    path = tmp_path / "odd"
    shutil.copytree(reference, path)
    make(path, name)
    before = listing(path)
    message = rf"{name}: not a regular file"
    if name == LOCK:
        assert open_dataset(path).to_arrow().num_rows == N
    for call in (
        *(() if name == LOCK else (lambda: open_dataset(path).to_arrow(),)),
        lambda: write(path, resume=True),
        lambda: write(path, overwrite=True),
    ):
        with pytest.raises(DatasetError, match=message):
            call()
        assert listing(path) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_file_read_back_is_checked_on_its_open_descriptor(tmp_path: Path) -> None:
    """Reading opens without blocking and checks what it opened (``fstat``): a FIFO or a
    directory swapped in after the directory was listed is refused, not waited on."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for name in ("fifo", "dir"):
        with pytest.raises(DatasetError, match="not a regular file"):
            DATASET._read_bounded(tmp_path / name, 100, name)


@pytest.mark.parametrize(
    ("stray", "source"),
    [
        pytest.param("part-00000009.parquet", P1, id="part"),
        pytest.param("_part-00000009.sha256", S1, id="digest"),
        pytest.param("_part-00000003.sha256", S1, id="digest-next"),
    ],
)
def test_strays_beyond_the_plan_are_named_and_never_deleted(
    tmp_path: Path, reference: Path, stray: str, source: str
) -> None:
    """A part or a digest beyond the plan (here: of 3 parts) is named by a ``DatasetError`` on
    opening, resuming and overwriting, and nothing is deleted (not even with overwrite)."""
    path = tmp_path / "stray"
    shutil.copytree(reference, path)
    shutil.copy(path / source, path / stray)
    before = snapshot(path)
    message = rf"{stray}: a (part|digest) beyond the run's 3 parts"
    for call in (
        lambda: open_dataset(path),
        lambda: write(path, resume=True),
        lambda: write(path, overwrite=True),
        lambda: write(path, games=CHUNK, overwrite=True),  # (another plan: still the same)
    ):
        with pytest.raises(DatasetError, match=message):
            call()
        assert snapshot(path) == before


def test_the_pyarrow_dataset_is_made_of_verified_parts(tmp_path: Path, reference: Path) -> None:
    """``ds.dataset`` checks every part first: a damaged part is a ``DatasetError`` naming it,
    never pyarrow's error from a later scan."""
    path = tmp_path / "flipped"
    shutil.copytree(reference, path)
    data = bytearray((path / P1).read_bytes())
    data[len(data) // 2] ^= 0x10
    (path / P1).write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=rf"{P1}: its content does not match its digest"):
        open_dataset(path).dataset  # noqa: B018 (the property checks)
    assert open_dataset(reference).dataset.count_rows() == N


class _BadPath:
    def __fspath__(self) -> Any:
        return 5


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda tmp: "x" * 5000, "too long", id="long"),
        pytest.param(lambda tmp: f"{tmp}/{'x' * 300}", "too long", id="long-name"),
        pytest.param(lambda tmp: f"{tmp}/a\0b", "NUL byte", id="null"),
        pytest.param(lambda tmp: f"{tmp}/\ud800", "cannot be encoded", id="surrogate"),
        pytest.param(lambda tmp: _BadPath(), "is not a path", id="fspath-int"),
        pytest.param(lambda tmp: b"runs", "a directory", id="bytes"),
    ],
)
def test_a_hostile_path_is_a_dataset_error(
    tmp_path: Path, make: Callable[[Path], Any], message: str
) -> None:
    """Paths the file system cannot take are refused by ``open_dataset`` and ``out=`` alike (one
    check), as a ``DatasetError`` saying what is wrong, and nothing is written."""
    path = make(tmp_path)
    for call in (lambda: open_dataset(path), lambda: write(path)):
        with pytest.raises(DatasetError, match=message):
            call()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("existing", [False, True], ids=["new", "overwritten"])
def test_a_failed_dask_connection_touches_no_directory(
    tmp_path: Path, reference: Path, existing: bool
) -> None:
    """``out=`` with a Dask scheduler that cannot be reached: the connection is refused before
    the directory is touched (none made, an existing one unchanged)."""
    pytest.importorskip("distributed")
    path = tmp_path / "new"
    if existing:
        shutil.copytree(reference, path)
    before = snapshot(path) if existing else None
    with pytest.raises(GenialError, match="garbage"):
        write(path, backend=Scheduler("garbage://x"), overwrite=existing)
    assert (snapshot(path) if existing else path.exists()) == (before if existing else False)


# -- what older versions wrote ---------------------------------------------------------------------


def test_a_format_1_dataset_still_reads(tmp_path: Path) -> None:
    """``tests/fixtures/dataset-v1`` was written by genial 0.2.0 before format 2 (no digests, no
    page checksums): it reads back exactly, checked but for the digests; resuming it is refused
    (only the version that wrote it resumes it), and nothing is touched."""
    path = tmp_path / "v1"
    shutil.copytree(Path(__file__).parent / "fixtures" / "dataset-v1", path)
    old = open_dataset(path)
    assert (len(old), old.complete) == (2 * CHUNK + 5, True)
    old.verify()
    back = old.to_playouts()
    runs = simulate(2 * CHUNK + 5, 2, policy="greedy", seed=17)
    for name in runs.rows.dtype.names or ():
        assert np.array_equal(back.rows[name], runs.rows[name]), name
    before = snapshot(path)
    with pytest.raises(GenialError, match="format version 1: it reads, but only resumes"):
        simulate(2 * CHUNK + 5, 2, policy="greedy", seed=17, out=Output(path, resume=True))
    assert snapshot(path) == before


def test_unknown_columns_are_refused(reference: Path) -> None:
    runs = open_dataset(reference)
    with pytest.raises(GenialError, match=r"columns: 'nope' is not a column"):
        runs.to_arrow(["game", "nope"])
    with pytest.raises(GenialError, match=r"columns: a list of column names"):
        runs.to_arrow("game")  # type: ignore[arg-type]
    assert runs.to_arrow(["winner"]).column_names == ["winner"]


# -- plans are lazy --------------------------------------------------------------------------------


def test_a_run_of_2_40_games_starts_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``simulate(2**40, out=...)`` is accepted and starts at once: the run, interrupted at its
    first chunk, allocates a few megabytes (bounded here at 100 MB; a listed plan would take
    tens of GB), and the writer is made without going through the plan (a billion chunks)."""
    with monkeypatch.context() as patch:

        def interrupt(*args: Any) -> Any:
            raise KeyboardInterrupt

        patch.setattr(RUN, "run_chunk", interrupt)
        tracemalloc.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                simulate(2**40, 2, seed=1, out=tmp_path / "huge")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 100 * 2**20
    huge = open_dataset(tmp_path / "huge")
    assert (len(huge), huge.games, len(huge.missing_chunks)) == (0, 2**40, 2**30)

    def listed(self: Any) -> Any:
        raise AssertionError("the plan was gone through")

    monkeypatch.setattr(SPEC.Plan, "__iter__", listed)
    writer = DATASET.DatasetWriter(tmp_path / "made", prepare(0, 2, seed=1), 2**40)
    try:
        assert (len(writer.todo), writer.todo.games_held) == (2**30, 2**40)
        assert len(pickle.dumps(writer.todo)) < 300
    finally:
        writer.close()


def reference_plan(games: int, size: int) -> list[tuple[int, int]]:
    return [(c, min(size, games - c * size)) for c in range(math.ceil(games / size))]


@settings(max_examples=120, deadline=None)
@given(
    games=st.integers(0, 3000),
    size=st.integers(1, 64),
    part_chunks=st.integers(1, 7),
    done=st.sets(st.integers(-2, 60), max_size=12),
    lo=st.integers(-80, 80),
    hi=st.integers(-80, 80),
)
def test_a_plan_is_the_list_it_describes(
    games: int, size: int, part_chunks: int, done: set[int], lo: int, hi: int
) -> None:
    """``Plan`` against the list it stands for: length, items, negative indices, slices,
    parts, the plan minus done parts, indices, membership, pickling."""
    plan = SPEC.Plan(games, size)
    listed = reference_plan(games, size)
    assert list(plan) == listed and len(plan) == len(listed) == plan.chunks
    assert plan.games_held == games == sum(n for _, n in listed)
    for i in range(-len(listed), len(listed)):
        assert plan[i] == listed[i]
    for bad in (len(listed), -len(listed) - 1):
        with pytest.raises(IndexError):
            plan[bad]
    rest = plan.without_parts(done, part_chunks)
    kept = [(c, n) for c, n in listed if c // part_chunks not in done]
    assert list(rest) == kept and len(rest) == len(kept)
    assert rest.games_held == sum(n for _, n in kept)
    assert list(rest.indices) == [c for c, _ in kept] == [rest.indices[i] for i in range(len(kept))]
    for i in range(-len(kept), len(kept)):
        assert rest[i] == kept[i]
    assert list(rest[lo:hi]) == kept[lo:hi] and rest[lo:hi].games_held == sum(
        n for _, n in kept[lo:hi]
    )
    assert list(rest.indices[lo:hi]) == [c for c, _ in kept[lo:hi]]
    for p in range(plan.parts(part_chunks) + 1):
        assert list(plan.part(p, part_chunks)) == [x for x in listed if x[0] // part_chunks == p]
        assert list(rest.part(p, part_chunks)) == [x for x in kept if x[0] // part_chunks == p]
    for item in itertools.islice(listed, 5):
        assert (item in rest) == (item in kept) and (item[0] in rest.indices) == (item in kept)
    assert (0, size + 1) not in plan
    assert pickle.loads(pickle.dumps(rest)) == rest and hash(rest) == hash(
        pickle.loads(pickle.dumps(rest))
    )


def test_a_plan_is_immutable_and_checked() -> None:
    plan = SPEC.Plan(10, 4)
    with pytest.raises(AttributeError):
        plan.games = 11  # type: ignore[misc]
    for games, size, spans, message in (
        (-1, 4, None, "a plan of -1 games"),
        (10, 0, None, "in chunks of 0"),
        (10, 4, [range(2, 1)], "not a span"),
        (10, 4, [range(0, 4)], "not a span"),
        (10, 4, [range(1, 2), range(0, 1)], "not a span"),
        (10, 4, [range(0, 3, 2)], "not a span"),
    ):
        with pytest.raises(ValueError, match=message):
            SPEC.Plan(games, size, spans)
    with pytest.raises(ValueError, match="step 1"):
        plan[::2]
