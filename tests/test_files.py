"""genial.files: the one atomic writer (threads and processes racing on one path leave one
whole version) and the one guarded reader (special files, sizes, JSON depth, numbers,
archives): every failure a ``GenialError`` naming the file, never another exception."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial.errors import GenialError
from genial.files import (
    MAX_JSON_DEPTH,
    DirectoryLock,
    atomic_path,
    check_zip,
    load_json,
    read_bounded,
    read_json,
    write_atomic,
)

from .depth import sized

EXAMPLES = sized("GENIAL_FUZZ_EXAMPLES", 400, 40)
ROUNDS = sized("GENIAL_RACE_ROUNDS", 100, 15)


class Refused(GenialError):
    """The error class a caller passes (the reader raises it, not a bare GenialError)."""


# -- the writer -----------------------------------------------------------------------------


def _texts(n: int) -> list[bytes]:
    """``n`` distinct contents of different lengths (a mixture would be none of them)."""
    return [(f"writer {i} ".encode() * (200 + 97 * i)) for i in range(n)]


def test_threads_racing_on_one_path_leave_one_whole_version(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    texts = _texts(8)
    for _ in range(ROUNDS):
        barrier = threading.Barrier(len(texts))
        errors: list[BaseException] = []

        def write(
            data: bytes, barrier: threading.Barrier = barrier, errors: list[BaseException] = errors
        ) -> None:
            barrier.wait()
            try:
                write_atomic(target, data)
            except BaseException as exc:  # (collected: the test fails on any)
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(t,)) for t in texts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert target.read_bytes() in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary left


def _write_many(path: str, data: bytes, rounds: int) -> None:  # (in a child process)
    for _ in range(rounds):
        write_atomic(path, data)


def test_processes_racing_on_one_path_leave_one_whole_version(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    texts = _texts(4)
    context = multiprocessing.get_context("spawn")
    children = [context.Process(target=_write_many, args=(str(target), t, ROUNDS)) for t in texts]
    seen = set()
    for child in children:
        child.start()
    while any(child.is_alive() for child in children):
        if target.exists():
            seen.add(target.read_bytes())  # a reader mid-race sees whole versions only
    for child in children:
        child.join()
        assert child.exitcode == 0
    assert target.read_bytes() in texts
    assert seen <= set(texts)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "kept.txt"
    write_atomic(target, "old")

    def fail() -> None:
        with atomic_path(target) as temporary:
            Path(temporary).write_text("half")
            raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError):
        fail()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_the_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "mode.txt"
    target.write_text("x")
    target.chmod(0o640)
    write_atomic(target, "y")
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_directory_lock_refuses_a_second_writer_with_the_callers_error(
    tmp_path: Path,
) -> None:
    second = DirectoryLock(tmp_path, error=Refused, what="book: ")
    with (
        DirectoryLock(tmp_path, error=Refused),
        pytest.raises(Refused, match=rf"^book: another writer \(pid {os.getpid()} "),
    ):
        second.acquire()
    with DirectoryLock(tmp_path):  # released: taken again
        pass
    assert list(tmp_path.iterdir()) == []


# -- the reader -----------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "zero").symlink_to("/dev/zero")
    for name in ("fifo", "dir", "zero"):
        with pytest.raises(Refused, match=rf"{name}: not a regular file"):
            read_bounded(tmp_path / name, 100, name, Refused)
        with pytest.raises(Refused, match="not a regular file"):
            read_json(tmp_path / name, 100, None, Refused)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "manifest.json"
    with open(huge, "wb") as out:
        out.truncate(8 << 30)  # 8 GiB, sparse: refused by its size, nothing read
    with pytest.raises(Refused, match=r"manifest.json: 8,589,934,592 bytes, more than the 1,024"):
        read_bounded(huge, 1024, "manifest.json", Refused)


def test_missing_and_unnameable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="cannot be read"):
        read_bounded(tmp_path / "missing", 10, None, Refused)
    with pytest.raises(Refused, match="not a file name"):
        read_bounded("a\0b", 10, None, Refused)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "nested deeper than 64"),
        ('{"a": NaN}', "NaN is not a number of JSON"),
        ('{"a": -Infinity}', "-Infinity is not a number of JSON"),
        ('{"games": 1e999}', "too large for a double"),
        ('{"games": 1' + "0" * 400 + "}", "over 400 digits"),
        ('{"games": 1' + "0" * 10_000 + "}", "over 400 digits"),
        ("{not json", "Expecting property name"),
        ("", "Expecting value"),
    ],
)
def test_hostile_json_is_refused_naming_the_file(text: str, why: str) -> None:
    with pytest.raises(Refused, match=rf"^book.json: cannot be read as JSON \(.*{why}"):
        load_json(text.encode(), "book.json", Refused)


def test_json_at_the_depth_limit_and_big_doubles_are_read() -> None:
    deep = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    value = load_json(deep, "x", Refused)
    for _ in range(MAX_JSON_DEPTH - 1):
        value = value[0]
    assert value == []
    assert load_json(b'{"w": 1.7e308, "n": -12}', "x") == {"w": 1.7e308, "n": -12}
    with pytest.raises(Refused, match="not UTF-8"):
        load_json(b'{"a": "\xff"}', "x", Refused)


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_an_archive_that_inflates_too_far_is_refused_before_inflating() -> None:
    bomb = _zip({"a.npy": bytes(64 << 20)})  # 64 MiB of zeros in about 64 KB
    assert len(bomb) < 1 << 20
    with pytest.raises(Refused, match=r"step.npz: inflates to 67,108,864 bytes, more than"):
        check_zip(bomb, "step.npz", Refused, limit=1 << 20)
    with pytest.raises(Refused, match=r"inflates .* times its size"):
        check_zip(bomb, "step.npz", Refused, limit=1 << 30, ratio=100)
    check_zip(_zip({"a.npy": bytes(1000)}), "step.npz", Refused, limit=1 << 20)
    with pytest.raises(Refused, match="not a readable archive"):
        check_zip(b"PK\x03\x04 broken", "step.npz", Refused, limit=1 << 20)
    many = _zip({f"m{i}": b"" for i in range(1100)}, zipfile.ZIP_STORED)
    with pytest.raises(Refused, match="1,100 members"):
        check_zip(many, "step.npz", Refused, limit=1 << 20)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(value=JSON)
def test_what_json_dumps_writes_load_json_reads_back(value: object) -> None:
    assert load_json(json.dumps(value).encode(), "x", Refused) == value


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=JSON,
    cut=st.integers(min_value=0, max_value=400),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4),
    noise=st.binary(max_size=40),
)
def test_mutated_json_gives_a_value_or_the_callers_error(
    value: object, cut: int, flips: list[tuple[int, int]], noise: bytes
) -> None:
    """Truncated, bit-flipped and padded JSON: a value (a dict, list, str, number, bool or
    None within the depth limit) or ``Refused``, never another exception."""
    raw = bytearray(json.dumps(value).encode())
    for at, byte in flips:
        if raw:
            raw[at % len(raw)] = byte
    raw = raw[: max(len(raw) - cut, 0)] + noise if cut % 3 else raw + noise
    try:
        got = load_json(bytes(raw), "x", Refused)
    except Refused:
        return
    assert got is None or isinstance(got, (dict, list, str, int, float, bool))


@settings(max_examples=max(EXAMPLES // 4, 10), deadline=None)
@given(
    data=st.binary(max_size=2048),
    limit=st.integers(min_value=0, max_value=4096),
)
def test_read_bounded_reads_whole_files_within_the_limit(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, limit: int
) -> None:
    path = tmp_path_factory.mktemp("read") / "f"
    path.write_bytes(data)
    if len(data) <= limit:
        assert read_bounded(path, limit, None, Refused) == data
    else:
        with pytest.raises(Refused, match="allowed"):
            read_bounded(path, limit, None, Refused)


def test_npz_written_by_numpy_passes_the_archive_check() -> None:
    buffer = io.BytesIO()
    np.savez(buffer, a=np.arange(1000, dtype=np.int64), b=np.zeros(10, np.uint8))
    check_zip(buffer.getvalue(), "step.npz", Refused, limit=1 << 20)
