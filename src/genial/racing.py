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
stopped; whatever it reads back is checked like user input.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import GenialError, excerpt
from .files import write_atomic

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
    """A race's checkpoint on disk is damaged, or belongs to another analysis."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Checkpoint:
    """The steps of a race on disk, in directory ``path``: each step a set of named integer
    arrays of one length (``.npz``, no pickles), listed in order with its SHA-256 and its
    ``info`` in ``manifest.json`` beside the analysis's ``params``. ``Checkpoint.open`` makes
    the directory, or with ``resume`` reads the steps back (checked: the params must match, every
    file its checksum, every array its dtype, shape and range)."""

    def __init__(self, path: Path, params: Mapping[str, Any]) -> None:
        self.path = path
        self.params = dict(params)
        self.steps: list[dict[str, Any]] = []

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        params: Mapping[str, Any],
        *,
        resume: bool,
        arrays: Mapping[str, tuple[str, int]],
    ) -> tuple[Checkpoint, list[tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]]]:
        """The checkpoint at ``path`` and the steps already on it (``(info, arrays)`` each;
        none unless ``resume``). ``arrays``: each array's name -> (dtype, its largest value)."""
        where = Path(os.fspath(path))
        manifest = where / "manifest.json"
        if where.exists() and not where.is_dir():
            raise CheckpointError(f"{where} is not a directory")
        where.mkdir(parents=True, exist_ok=True)
        check = cls(where, json.loads(json.dumps(params)))
        if not manifest.exists():
            check._write_manifest()
            return check, []
        if not resume:
            raise CheckpointError(
                f"{where} already holds an analysis: resume=True continues it, or choose "
                "another directory"
            )
        data = manifest.read_bytes()
        if len(data) > _MAX_MANIFEST:
            raise CheckpointError(f"{manifest}: larger than {_MAX_MANIFEST} bytes")
        try:
            meta = json.loads(data)
        except (ValueError, UnicodeError):
            raise CheckpointError(f"{manifest}: not JSON") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"{manifest}: not a {FORMAT} manifest")
        if meta.get("params") != check.params:
            theirs = meta.get("params")
            diff = sorted(
                k
                for k in set(check.params) | set(theirs if isinstance(theirs, dict) else {})
                if not isinstance(theirs, dict) or theirs.get(k) != check.params.get(k)
            )
            raise CheckpointError(
                f"{where} holds another analysis (it differs in {', '.join(diff[:6]) or 'form'})"
            )
        steps = meta.get("steps")
        if not isinstance(steps, list):
            raise CheckpointError(f"{manifest}: steps must be a list")
        loaded = []
        for k, step in enumerate(steps):
            if not isinstance(step, dict) or not isinstance(step.get("info"), dict):
                raise CheckpointError(f"{manifest}: step {k} is not a step")
            name = f"step-{k:06d}.npz"
            if step.get("file") != name or not isinstance(step.get("sha256"), str):
                raise CheckpointError(f"{manifest}: step {k} must be {name} with its sha256")
            file = where / name
            try:
                raw = file.read_bytes()
            except OSError as err:
                raise CheckpointError(f"{file}: cannot be read ({err.strerror})") from None
            if _sha256(raw) != step["sha256"]:
                raise CheckpointError(f"{file}: its checksum does not match the manifest")
            loaded.append((step["info"], _read_arrays(raw, file, arrays)))
            check.steps.append(step)
        return check, loaded

    def add(self, info: Mapping[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        """Write one step (its file first, then the manifest that lists it)."""
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


def _read_arrays(
    raw: bytes, file: Path, arrays: Mapping[str, tuple[str, int]]
) -> dict[str, npt.NDArray[Any]]:
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            got = {k: npz[k] for k in npz.files}
    except Exception:  # a damaged archive raises many kinds of error
        raise CheckpointError(f"{file}: not a readable .npz archive") from None
    if sorted(got) != sorted(arrays):
        raise CheckpointError(f"{file}: arrays {sorted(got)}, expected {sorted(arrays)}")
    length = None
    for key, (dtype, top) in arrays.items():
        a = got[key]
        if a.dtype != np.dtype(dtype) or a.ndim != 1 or len(a) > _MAX_STEP:
            raise CheckpointError(f"{file}: {key} must be one row of {dtype}")
        if length is not None and len(a) != length:
            raise CheckpointError(f"{file}: its arrays differ in length")
        length = len(a)
        if len(a) and (int(a.min()) < 0 or int(a.max()) > top):
            raise CheckpointError(f"{file}: {key} holds values outside 0..{top}")
    return got


def split(values: Sequence[int], size: int) -> list[list[int]]:
    """``values`` in consecutive groups of at most ``size``.

    >>> split([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]
    """
    return [list(values[i : i + size]) for i in range(0, len(values), size)]
