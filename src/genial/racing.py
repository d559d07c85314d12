"""Racing: spend samples on the arms that can still be the best (successive elimination).

The adaptive opening analysis (``genial.openings.analyse(..., adaptive=True)``, docs/openings.md)
plays every class of openings in rounds: round ``r`` brings each class still in the race to
``min(cap, batch * 2**r)`` games, then stops playing every class whose upper bound is below the
best lower bound. The bounds are Hoeffding's, at an error of ``(1 - confidence) / (2 K (r+1)
(r+2))`` each (``K`` classes): summed over both bounds of every class in every round, at most
``1 - confidence``, so with probability at least ``confidence`` every bound ever computed holds
at once and the best class is never stopped (a family-wise guarantee over the classes and the
rounds, whatever the rule that decides when to stop; Even-Dar, Mannor, Mansour 2006).

>>> race = Race(3, cap=4096, batch=1024, confidence=0.95, span=1.0)
>>> race.targets()
{0: 1024, 1: 1024, 2: 1024}
>>> race.record(0, count=1024, total=800.0)
>>> race.record(1, count=1024, total=500.0)
>>> race.record(2, count=1024, total=520.0)
>>> race.end_round()
[1, 2]
>>> race.alive, race.targets()
([0], {0: 2048})

A :class:`Checkpoint` keeps the rounds on disk (one ``.npz`` file per step, listed with its
SHA-256 in ``manifest.json``, written atomically), so that a long analysis resumes where it was
stopped; whatever it reads back is checked like user input, and one race at a time writes to
a directory (its lock, held from ``Checkpoint.open`` to ``Checkpoint.close``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import threading
import weakref
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from .errors import GenialError, excerpt
from .files import DirectoryLock, check_zip, load_json, read_bounded, write_atomic

__all__ = ["FORMAT", "Checkpoint", "CheckpointError", "Race", "hoeffding_radius"]

FORMAT = "genial-race-1"
_MAX_MANIFEST = 64 << 20  # bytes
_MAX_STEP = 1 << 31


def hoeffding_radius(n: int, error: float, span: float) -> float:
    """The half-width of a one-sided Hoeffding bound on a mean of ``n`` samples in a range of
    ``span``, at ``error``: ``span * sqrt(log(1 / error) / (2 n))`` (infinite for n = 0).

    >>> round(hoeffding_radius(2000, 0.05, 1.0), 4)
    0.0274
    """
    return math.inf if n <= 0 else span * math.sqrt(math.log(1.0 / error) / (2.0 * n))


class Race:
    """Successive elimination among ``arms`` arms of samples in a range of ``span``: rounds
    bring each arm in the race to ``min(cap, batch * 2**r)`` samples (``targets``); the caller
    plays them, ``record``s their sums and ends the round (``end_round``), which stops the arms
    whose upper bound is below the best lower bound. ``done`` once every arm in the race has
    ``cap`` samples. Higher is better."""

    def __init__(
        self, arms: int, *, cap: int, batch: int, confidence: float = 0.95, span: float = 1.0
    ) -> None:
        if arms < 1 or cap < 1 or batch < 1:
            raise GenialError(f"a race needs arms, cap and batch >= 1, got {arms}, {cap}, {batch}")
        if not 0.0 < confidence < 1.0:
            raise GenialError(f"confidence must be in (0, 1), got {excerpt(confidence)}")
        self.arms, self.cap, self.batch = arms, cap, batch
        self.confidence, self.span = confidence, span
        self.round = 0
        self.count = [0] * arms
        self.total = [0.0] * arms
        self.alive = list(range(arms))
        self.stopped_after: list[int | None] = [None] * arms  # the round it was stopped after
        self.bounds: list[tuple[float, float]] = [(-math.inf, math.inf)] * arms

    @property
    def error(self) -> float:
        """The error of each bound computed at the end of this round."""
        r = self.round
        return (1.0 - self.confidence) / (2 * self.arms * (r + 1) * (r + 2))

    @property
    def done(self) -> bool:
        return all(self.count[i] >= self.cap for i in self.alive)

    def targets(self) -> dict[int, int]:
        """The samples each arm in the race must have at the end of this round."""
        goal = min(self.cap, self.batch << min(self.round, 40))
        return {i: goal for i in self.alive}

    def record(self, arm: int, *, count: int, total: float) -> None:
        """Add ``count`` samples summing to ``total`` to ``arm``."""
        if arm not in self.alive:
            raise GenialError(f"arm {arm} is not in the race")
        self.count[arm] += count
        self.total[arm] += total

    def end_round(self) -> list[int]:
        """The bounds of the arms in the race; stop those below the best lower bound; the arms
        stopped (and start the next round)."""
        targets = self.targets()
        short = [i for i in self.alive if self.count[i] < targets[i]]
        if short:
            raise GenialError(f"round {self.round}: arms {short[:5]} have fewer samples than due")
        error = self.error
        for i in self.alive:
            mean = self.total[i] / self.count[i]
            half = hoeffding_radius(self.count[i], error, self.span)
            self.bounds[i] = (mean - half, mean + half)
        best = max(self.bounds[i][0] for i in self.alive)
        stopped = [i for i in self.alive if self.bounds[i][1] < best]
        for i in stopped:
            self.stopped_after[i] = self.round
        self.alive = [i for i in self.alive if i not in set(stopped)]
        self.round += 1
        return stopped


class CheckpointError(GenialError):
    """A race's checkpoint on disk is damaged, belongs to another analysis, or is being written
    by another race."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_LOCKS: dict[str, tuple[DirectoryLock, object]] = {}
"""This process's checkpoint directories: each one's lock and the token of the ``Checkpoint``
writing to it (a later ``Checkpoint.open`` of the directory in this process supersedes it)."""
_LOCKS_GUARD = threading.Lock()
_PENDING: list[tuple[str, object]] = []
"""Releases asked for by collected checkpoints while the guard was taken: a finalizer may run
in any thread at any allocation, the guard's holder included, so it never waits for the guard
(that would deadlock); whoever holds the guard gives these back before letting it go."""


def _release_held(key: str, token: object) -> None:
    """Give back the lock of directory ``key`` if the checkpoint of ``token`` still holds it
    (the caller holds ``_LOCKS_GUARD``)."""
    held = _LOCKS.get(key)
    if held is not None and held[1] is token:
        del _LOCKS[key]
        held[0].release()


def _drain() -> None:
    """Give back the pending releases (the caller holds ``_LOCKS_GUARD``)."""
    while _PENDING:
        _release_held(*_PENDING.pop())


@contextlib.contextmanager
def _guarded() -> Iterator[None]:
    """Hold ``_LOCKS_GUARD``; on leaving, give back what collected checkpoints left pending."""
    with _LOCKS_GUARD:
        try:
            yield
        finally:
            _drain()
    while _PENDING and _LOCKS_GUARD.acquire(blocking=False):  # (left while we were leaving)
        try:
            _drain()
        finally:
            _LOCKS_GUARD.release()


def _release(key: str, token: object) -> None:
    """Give back the lock of directory ``key`` if the checkpoint of ``token`` still holds it."""
    with _guarded():
        _release_held(key, token)


def _collected(key: str, token: object) -> None:
    """A checkpoint's finalizer: its lock given back now if the guard is free, else left
    pending for the guard's holder (never waited for: the holder may be this very thread)."""
    _PENDING.append((key, token))
    if _LOCKS_GUARD.acquire(blocking=False):
        try:
            _drain()
        finally:
            _LOCKS_GUARD.release()


class Checkpoint:
    """The steps of a race on disk, in directory ``path``: each step a set of named integer
    arrays of one length (``.npz``, no pickles), listed in order with its SHA-256 and its
    ``info`` in ``manifest.json`` beside the analysis's ``params``. ``Checkpoint.open`` makes
    the directory, or with ``resume`` reads the steps back (checked as untrusted input: the
    params must match, every file its checksum and its size, every array its dtype, shape and
    range; every failure a ``CheckpointError`` naming the file and the field).

    One race writes to a directory at a time: ``open`` takes the directory's lock
    (``genial.files.DirectoryLock``), held until ``close`` (or the end of a ``with`` block, or
    the object's collection); another process, or a book written to the directory meanwhile,
    is refused with a ``CheckpointError``. In one process a later ``open`` of the directory
    takes the lock over from an earlier ``Checkpoint``, whose ``add`` is then refused."""

    def __init__(self, path: Path, params: Mapping[str, Any]) -> None:
        self.path = path
        self.params = dict(params)
        self.steps: list[dict[str, Any]] = []
        self._key: str | None = None
        self._token = object()

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Give the directory's lock back (nothing more can be added); idempotent."""
        if self._key is not None:
            _release(self._key, self._token)
            self._key = None

    @property
    def closed(self) -> bool:
        """Whether this checkpoint no longer holds its directory (closed or superseded)."""
        with _guarded():
            return not self._holds()

    def _holds(self) -> bool:
        held = None if self._key is None else _LOCKS.get(self._key)
        return held is not None and held[1] is self._token

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        params: Mapping[str, Any],
        *,
        resume: bool,
        arrays: Mapping[str, tuple[str, int]],
        rows: int = _MAX_STEP,
    ) -> tuple[Checkpoint, list[tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]]]:
        """The checkpoint at ``path`` and the steps already on it (``(info, arrays)`` each;
        none unless ``resume``). ``arrays``: each array's name -> (dtype, its largest value);
        ``rows``: the most rows a step may hold (it bounds what a step file may weigh). The
        checkpoint holds the directory's lock until ``close``."""
        where = Path(os.fspath(path))
        shown = excerpt(str(where), 200)
        if isinstance(rows, bool) or not isinstance(rows, int) or not 1 <= rows <= _MAX_STEP:
            raise CheckpointError(f"rows must be an int in 1..{_MAX_STEP}, got {excerpt(rows)}")
        try:
            if where.exists() and not where.is_dir():
                raise CheckpointError(f"{shown} is not a directory")
            where.mkdir(parents=True, exist_ok=True)
            key = os.path.realpath(where)
        except OSError as err:
            raise CheckpointError(f"{shown}: cannot be made ({err.strerror or err})") from None
        params = dict(params)
        check = cls(where, json.loads(json.dumps(params)))
        with _guarded():
            held = _LOCKS.get(key)
            lock = held[0] if held is not None else None
            if lock is None:
                lock = DirectoryLock(where, error=CheckpointError, what="race checkpoint: ")
                lock.acquire()
            try:
                loaded = check._load(resume, arrays, rows)
            except BaseException:
                if held is None:
                    lock.release()
                raise
            _LOCKS[key] = (lock, check._token)  # (an earlier Checkpoint of it is superseded)
            check._key = key
        weakref.finalize(check, _collected, key, check._token)
        return check, loaded

    def _load(
        self, resume: bool, arrays: Mapping[str, tuple[str, int]], rows: int
    ) -> list[tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]]:
        """Under the lock: make the manifest, or read the steps back (``open``)."""
        where = self.path
        manifest = where / "manifest.json"
        shown = excerpt(str(manifest), 200)
        if not os.path.lexists(manifest):
            self._write_manifest()
            return []
        if not resume:
            raise CheckpointError(
                f"{excerpt(str(where), 200)} already holds an analysis: resume=True continues "
                "it, or choose another directory"
            )
        raw = read_bounded(manifest, _MAX_MANIFEST, shown, CheckpointError)
        try:
            meta = load_json(raw, "manifest.json", CheckpointError)
        except CheckpointError as err:
            why = str(err).removeprefix("manifest.json: ")
            raise CheckpointError(f"{shown}: not JSON: {why}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"{shown}: format: not a {FORMAT} manifest")
        unknown = sorted(set(meta) - {"format", "params", "steps"})
        if unknown:
            raise CheckpointError(f"{shown}: unknown field {excerpt(unknown[0])}")
        theirs = meta.get("params")
        if theirs != self.params:
            diff = sorted(
                k if len(k) <= 40 else excerpt(k)
                for k in set(self.params) | set(theirs if isinstance(theirs, dict) else {})
                if not isinstance(theirs, dict) or theirs.get(k) != self.params.get(k)
            )
            raise CheckpointError(
                f"{excerpt(str(where), 200)} holds another analysis (it differs in "
                f"{', '.join(diff[:6]) or 'form'})"
            )
        steps = meta.get("steps")
        if not isinstance(steps, list):
            raise CheckpointError(f"{shown}: steps must be a list")
        loaded = []
        for k, step in enumerate(steps):
            name = f"step-{k:06d}.npz"
            if not isinstance(step, dict) or sorted(step) != ["file", "info", "sha256"]:
                raise CheckpointError(
                    f"{shown}: steps[{k}]: must hold file, sha256 and info, got {excerpt(step)}"
                )
            if not isinstance(step["info"], dict):
                raise CheckpointError(f"{shown}: steps[{k}].info must be an object")
            if step["file"] != name:
                raise CheckpointError(
                    f"{shown}: steps[{k}].file must be {name}, got {excerpt(step['file'])}"
                )
            digest = step["sha256"]
            if not isinstance(digest, str) or not _is_sha256(digest):
                raise CheckpointError(
                    f"{shown}: steps[{k}].sha256 must be 64 hex digits, got {excerpt(digest)}"
                )
            file = where / name
            where_file = excerpt(str(file), 200)
            raw = read_bounded(file, _step_bytes(arrays, rows), where_file, CheckpointError)
            if _sha256(raw) != digest:
                raise CheckpointError(f"{where_file}: its checksum does not match the manifest")
            loaded.append((step["info"], _read_arrays(raw, where_file, arrays, rows)))
            self.steps.append(step)
        return loaded

    def add(self, info: Mapping[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        """Write one step (its file first, then the manifest that lists it). Refused once the
        checkpoint is closed or superseded."""
        with _guarded():
            if not self._holds():
                raise CheckpointError(
                    f"{excerpt(str(self.path), 200)}: this checkpoint is closed (or another "
                    "Checkpoint.open of the directory took it over): it can no longer be written"
                )
            name = f"step-{len(self.steps):06d}.npz"
            buffer = io.BytesIO()
            contents: dict[str, Any] = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
            np.savez(buffer, **contents)
            raw = buffer.getvalue()
            write_atomic(self.path / name, raw)
            self.steps.append({"file": name, "sha256": _sha256(raw), "info": dict(info)})
            self._write_manifest()

    def _write_manifest(self) -> None:
        meta = {"format": FORMAT, "params": self.params, "steps": self.steps}
        write_atomic(self.path / "manifest.json", (json.dumps(meta, indent=1) + "\n").encode())


def _is_sha256(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


_NPY_HEADER = 4096  # bytes: the most an array's .npy header may take (numpy writes 128)


def _step_bytes(arrays: Mapping[str, tuple[str, int]], rows: int) -> int:
    """The most a step of ``rows`` rows of ``arrays`` may inflate to (data and headers)."""
    width = sum(np.dtype(dtype).itemsize for dtype, _ in arrays.values())
    return rows * width + (_NPY_HEADER + 256) * max(1, len(arrays)) + 1024


def _read_arrays(
    raw: bytes, file: str, arrays: Mapping[str, tuple[str, int]], rows: int = _MAX_STEP
) -> dict[str, npt.NDArray[Any]]:
    """A step's arrays from its ``.npz`` bytes, read as untrusted input: the archive's stated
    sizes bounded before anything is inflated (``check_zip``), each member's ``.npy`` header
    checked (dtype, one dimension, at most ``rows`` rows) before its data is read, and every
    value in range. ``file`` names the step in messages."""
    check_zip(raw, file, CheckpointError, limit=_step_bytes(arrays, rows))
    got: dict[str, npt.NDArray[Any]] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = archive.infolist()
            names = [m.filename for m in members]
            expected = sorted(f"{key}.npy" for key in arrays)
            if sorted(names) != expected:
                raise CheckpointError(
                    f"{file}: arrays {excerpt(sorted(n.removesuffix('.npy') for n in names))}, "
                    f"expected {sorted(arrays)}"
                )
            for key, (dtype, _) in arrays.items():
                with archive.open(f"{key}.npy") as member:
                    got[key] = _read_npy(member, file, key, np.dtype(dtype), rows)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError, RuntimeError):  # fmt: skip
        raise CheckpointError(f"{file}: not a readable .npz archive") from None
    length = None
    for key, (_, top) in arrays.items():
        a = got[key]
        if length is not None and len(a) != length:
            raise CheckpointError(f"{file}: its arrays differ in length ({key})")
        length = len(a)
        if len(a) and (int(a.min()) < 0 or int(a.max()) > top):
            raise CheckpointError(f"{file}: {key} holds values outside 0..{top}")
    return got


def _read_npy(
    member: IO[bytes], file: str, key: str, dtype: np.dtype[Any], rows: int
) -> npt.NDArray[Any]:
    """One ``.npy`` member: its header checked (``dtype``, one row of at most ``rows``), then
    exactly its data."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(member)
        if version == (1, 0):
            shape, _, got = fmt.read_array_header_1_0(member, max_header_size=_NPY_HEADER)
        elif version == (2, 0):
            shape, _, got = fmt.read_array_header_2_0(member, max_header_size=_NPY_HEADER)
        else:
            raise ValueError(f"version {version}")
    except (ValueError, SyntaxError, TypeError, KeyError, EOFError, RecursionError):
        raise CheckpointError(f"{file}: {key}: not a readable .npy array") from None
    if got != dtype or not isinstance(shape, tuple) or len(shape) != 1:
        raise CheckpointError(f"{file}: {key} must be one row of {dtype}")
    (length,) = shape
    if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= rows:
        raise CheckpointError(f"{file}: {key}: {excerpt(length)} rows, at most {rows:,} allowed")
    size = length * dtype.itemsize
    data = member.read(size + 1)
    if len(data) != size:
        raise CheckpointError(f"{file}: {key}: its data does not match its header")
    values: npt.NDArray[Any] = np.frombuffer(data, dtype=dtype).copy()
    return values


def split(values: Sequence[int], size: int) -> list[list[int]]:
    """``values`` in consecutive groups of at most ``size``.

    >>> split([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]
    """
    return [list(values[i : i + size]) for i in range(0, len(values), size)]
