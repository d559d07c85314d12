"""Batches on disk: a partitioned Parquet dataset written part by part as the games are played
(``simulate(..., out="runs/")``), and ``open_dataset`` to read it back without loading it whole.

Layout of a dataset directory (``docs/cluster.md``)::

    runs/
      _genial.json              the run: game, rules, policies, seed, plan, complete or not
      _common_metadata          the Parquet schema, with the same metadata
      part-00000000.parquet     games 0 .. 65,535 (64 chunks of 1,024 games)
      part-00000001.parquet     games 65,536 ..

One row per game: ``game`` (its number in the run: with the seed it replays the game), then the
kernel's result columns, per-seat ones flattened for the game's seats (``score_0_R`` ..
``score_0_P``, ``rank_0``, ``bonus_0``, ...), and ``log`` (the kernel's log, raw bytes) for runs
with records. Every part file carries the run's metadata too (key ``genial``), and is written to
a hidden temporary file then renamed: a part file that exists is complete. An interrupted run
keeps its finished parts (``simulate(..., resume=True)`` plays the others).

>>> import tempfile
>>> from genial.batch import open_dataset, simulate
>>> with tempfile.TemporaryDirectory() as tmp:
...     written = simulate(3000, 2, seed=1, out=f"{tmp}/runs")
...     runs = open_dataset(f"{tmp}/runs")
...     print(len(runs), runs.complete, runs.to_arrow().num_rows)
...     print(runs.summary().wins.sum() == simulate(3000, 2, seed=1).summary().wins.sum())
3000 True 3000
True
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._version import __version__
from ..errors import GenialError, excerpt
from ..policies import canonical
from ..registry import entry
from ..stats import wilson_interval
from .results import Playouts, Summary
from .run import check_memory, play_chunks
from .spec import CHUNK, BatchSpec, Chunk

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa
    import pyarrow.dataset as pads

__all__ = ["FORMAT", "PART_CHUNKS", "Dataset", "DatasetWriter", "open_dataset", "write"]

FORMAT = "genial-dataset"
FORMAT_VERSION = 1
PART_CHUNKS = 64
"""Chunks per part file: 65,536 games (about 4 MB of rows in memory, less on disk)."""
META = "_genial.json"
COMMON = "_common_metadata"
KEY = b"genial"
_PART = re.compile(r"part-(\d{8,})\.parquet")
_TEMP = re.compile(r"\.(?:part-\d{8,}\.parquet|_genial\.json)\.tmp-\d+")
_COLOURS = "RGBOYP"
_SINGULAR = {"scores": "score", "ranks": "rank"}


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - exercised only without pyarrow
        raise ImportError(
            "Parquet datasets need pyarrow: pip install 'genial-sim[parquet]'"
        ) from None
    return pa, pq


def _where(path: Path) -> str:
    """A directory in a message (quoted, cut if absurdly long)."""
    return excerpt(str(path), 160)


def part_name(part: int) -> str:
    return f"part-{part:08d}.parquet"


# -- columns -------------------------------------------------------------------------------------


def layout(row_dtype: np.dtype[Any], players: int) -> list[tuple[str, str, tuple[int, ...]]]:
    """``(column, field, index)`` of every stored result column: per-game fields as they are,
    per-seat ones (first axis the seat) cut to ``players`` seats and flattened."""
    out: list[tuple[str, str, tuple[int, ...]]] = []
    for name in row_dtype.names or ():
        sub = row_dtype.fields[name][0]  # type: ignore[index]
        if not sub.shape:
            out.append((name, name, ()))
        elif name == "scores":
            for s in range(players):
                out.extend((f"score_{s}_{c}", name, (s, i)) for i, c in enumerate(_COLOURS))
        else:
            base = _SINGULAR.get(name, name)
            out.extend((f"{base}_{s}", name, (s,)) for s in range(players))
    return out


def _at(index: tuple[int, ...]) -> tuple[Any, ...]:
    """The numpy index of a column's values in its field: every row, then ``index``."""
    return (slice(None), *index)


def _table(
    spec: BatchSpec, rows: npt.NDArray[Any], game: npt.NDArray[np.int64], logs: Any
) -> pa.Table:
    pa, _ = _pyarrow()
    columns: dict[str, Any] = {"game": pa.array(game)}
    for column, name, index in layout(rows.dtype, spec.rules.players):
        values = rows[name]
        columns[column] = pa.array(np.ascontiguousarray(values[_at(index)]))
    if logs is not None:
        raw = np.zeros(len(logs), logs.dtype)  # the fields only: padding bytes zero, so that
        for name in logs.dtype.names or ():  # the same run writes the same bytes
            raw[name] = logs[name]
        width = raw.dtype.itemsize
        columns["log"] = pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(width), len(raw), [None, pa.py_buffer(raw.view(np.uint8))]
        )
    return pa.table(columns)


def _playouts(spec: BatchSpec, table: pa.Table, where: str) -> Playouts:
    """The ``Playouts`` of a part's table (checked against the layout this version writes)."""
    adapter = entry(spec.game).adapter
    plan = layout(adapter.row_dtype, spec.rules.players)
    expected = ["game", *(c for c, _, _ in plan), *(["log"] if spec.records else [])]
    if table.column_names != expected:
        raise GenialError(
            f"{where}: columns {excerpt(table.column_names)} are not the layout of genial "
            f"{__version__} ({excerpt(expected)})"
        )
    n = table.num_rows
    rows = np.zeros(n, dtype=adapter.row_dtype)
    for column, name, index in plan:
        rows[name][_at(index)] = table.column(column).to_numpy()
    logs = None
    if spec.records:
        raw = table.column("log").combine_chunks()
        width = adapter.log_dtype.itemsize
        if raw.type.byte_width != width:
            raise GenialError(f"{where}: logs of {raw.type.byte_width} bytes, not {width}")
        logs = np.frombuffer(
            raw.buffers()[1], dtype=adapter.log_dtype, count=n, offset=raw.offset * width
        ).copy()
    game = table.column("game").to_numpy().astype(np.int64)
    return Playouts(spec, rows, game, logs)


# -- the run's metadata ----------------------------------------------------------------------------


def _header(spec: BatchSpec, games: int, part_chunks: int) -> dict[str, Any]:
    """What determines a dataset's contents, as JSON: the run's spec, the plan, the layout."""
    adapter = entry(spec.game).adapter
    entropy: Any = spec.seed.entropy
    n_chunks = len(spec.chunks(games))
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "genial_version": __version__,
        "game": spec.game,
        "rules": str(spec.rules),
        "players": int(spec.rules.players),
        "policies": list(spec.policies),
        "epsilons": [float(e) for e in spec.epsilons],
        "policy_labels": [
            canonical(n, e) for n, e in zip(spec.policies, spec.epsilons, strict=True)
        ],
        "start": spec.start,
        "openings": [int(a) for a in spec.openings],
        "records": bool(spec.records),
        "seed": {
            # as text: 128-bit entropy words survive every JSON reader
            "entropy": str(entropy) if isinstance(entropy, int) else [str(w) for w in entropy],
            "spawn_key": [int(k) for k in spec.seed.spawn_key],
            "pool_size": int(spec.seed.pool_size),
        },
        "games": int(games),
        "chunk_games": spec.chunk_games,
        "chunks": n_chunks,
        "part_chunks": int(part_chunks),
        "parts": math.ceil(n_chunks / part_chunks),
        "columns": ["game", *(c for c, _, _ in layout(adapter.row_dtype, spec.rules.players))]
        + (["log"] if spec.records else []),
    }


def _spec_of(header: dict[str, Any], where: str) -> BatchSpec:
    try:
        if header.get("format") != FORMAT or header.get("format_version") != FORMAT_VERSION:
            raise GenialError(
                f"{where}: not a {FORMAT} of version {FORMAT_VERSION} "
                f"(format {excerpt(header.get('format'))}, "
                f"version {excerpt(header.get('format_version'))})"
            )
        game = entry(header["game"])
        rules = game.rules(rules=header["rules"])
        seed = header["seed"]
        entropy = seed["entropy"]
        entropy = int(entropy) if isinstance(entropy, str) else [int(w) for w in entropy]
        root = np.random.SeedSequence(
            entropy, spawn_key=tuple(int(k) for k in seed["spawn_key"]), pool_size=seed["pool_size"]
        )
        return BatchSpec(
            game.name,
            rules,
            tuple(str(p) for p in header["policies"]),
            tuple(float(e) for e in header["epsilons"]),
            seed=root,
            start=header["start"],
            openings=tuple(int(a) for a in header["openings"]),
            records=bool(header["records"]),
        )
    except GenialError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise GenialError(
            f"{where}: unreadable run metadata ({type(error).__name__}: {error})"
        ) from None


def _read_meta(path: Path) -> dict[str, Any]:
    where = str(path / META)
    try:
        meta = json.loads((path / META).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GenialError(f"{_where(path)} is not a genial dataset (no {META})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GenialError(f"{where}: cannot be read ({error})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("header"), dict):
        raise GenialError(f"{where}: not the metadata of a genial dataset")
    return meta


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed)."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


# -- writing ---------------------------------------------------------------------------------------


class DatasetWriter:
    """Writes one run's chunks as they arrive (in any order) into part files. Checks the
    directory and writes the run's metadata on construction, before any game is played;
    ``todo`` is the chunks still to play (all, or the missing ones with ``resume``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        spec: BatchSpec,
        games: int,
        *,
        overwrite: bool = False,
        resume: bool = False,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise GenialError(f"out: a directory path, got {excerpt(path)}")
        if overwrite and resume:
            raise GenialError("overwrite and resume exclude each other")
        _pyarrow()  # before anything is written
        self.path = Path(os.fspath(path))
        self.spec = spec
        self.games = games
        self.adapter = entry(spec.game).adapter
        self.header = _header(spec, games, PART_CHUNKS)
        self.part_chunks = int(self.header["part_chunks"])
        self.plan = spec.chunks(games)
        self.seconds = 0.0
        done = self._prepare(overwrite, resume)
        self.todo = [(c, n) for c, n in self.plan if c // self.part_chunks not in done]
        self._buffers: dict[int, list[Any]] = {}
        self._temps: set[Path] = set()
        # parts are compressed and written by a thread of their own (pyarrow releases the
        # GIL), so the chunks keep coming meanwhile; at most two parts wait for it
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="genial-parts")
        self._writes: deque[Future[None]] = deque()

    def _part_chunks(self, part: int) -> list[tuple[int, int]]:
        return self.plan[part * self.part_chunks : (part + 1) * self.part_chunks]

    def _prepare(self, overwrite: bool, resume: bool) -> set[int]:
        """Check (and make) the directory; the parts already written (with ``resume``)."""
        where = _where(self.path)
        if self.path.exists() and not self.path.is_dir():
            raise GenialError(f"out: {where} is a file, not a directory")
        done: set[int] = set()
        if self.path.is_dir():
            names = os.listdir(self.path)
            ours = {n for n in names if n in (META, COMMON) or _PART.fullmatch(n)}
            foreign = sorted(n for n in names if n not in ours and not _TEMP.fullmatch(n))
            if foreign:
                raise GenialError(
                    f"out: {where} holds other files ({excerpt(foreign[0])}"
                    f"{', ...' if len(foreign) > 1 else ''}): give a new or empty directory"
                )
            if ours and resume:
                meta = _read_meta(self.path)
                old = meta["header"]
                for key, value in self.header.items():
                    if old.get(key) != value:
                        raise GenialError(
                            f"resume: the dataset in {where} is another run: its {key} is "
                            f"{excerpt(old.get(key))}, here {excerpt(value)}"
                        )
                self.seconds = float(meta.get("seconds") or 0.0)
                done = {int(m.group(1)) for n in ours if (m := _PART.fullmatch(n))}
            elif ours and not overwrite:
                raise GenialError(
                    f"out: {where} already holds a dataset: pass overwrite=True to replace it "
                    "(or resume=True to finish an interrupted run)"
                )
            for name in names:
                if _TEMP.fullmatch(name) or (overwrite and name in ours):
                    (self.path / name).unlink(missing_ok=True)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._write_meta(complete=False)
            _, pq = _pyarrow()
            schema = _table(
                self.spec,
                np.zeros(0, self.adapter.row_dtype),
                np.zeros(0, np.int64),
                np.zeros(0, self.adapter.log_dtype) if self.spec.records else None,
            ).schema.with_metadata({KEY: json.dumps(self.header)})
            pq.write_metadata(schema, self.path / COMMON)
        except OSError as error:
            raise GenialError(f"out: cannot write to {where} ({error.strerror or error})") from None
        return done

    def _write_meta(self, *, complete: bool) -> None:
        meta = {"header": self.header, "complete": complete, "seconds": self.seconds or None}
        _write_text(self.path / META, json.dumps(meta, indent=1) + "\n")

    def add(self, chunk: Chunk) -> None:
        """Take a chunk; write its part when the part's last chunk is in."""
        part = chunk.index // self.part_chunks
        buffer = self._buffers.get(part)
        if buffer is None:
            games = sum(n for _, n in self._part_chunks(part))
            logs = np.zeros(games, self.adapter.log_dtype) if self.spec.records else None
            buffer = [np.zeros(games, self.adapter.row_dtype), logs, len(self._part_chunks(part))]
            self._buffers[part] = buffer
        lo = (chunk.index - part * self.part_chunks) * self.spec.chunk_games
        buffer[0][lo : lo + len(chunk.rows)] = chunk.rows
        if buffer[1] is not None and chunk.logs is not None:
            buffer[1][lo : lo + len(chunk.rows)] = chunk.logs
        buffer[2] -= 1
        if buffer[2] == 0:
            del self._buffers[part]
            self._writes.append(self._writer.submit(self._write_part, part, buffer[0], buffer[1]))
            while self._writes and (len(self._writes) > 2 or self._writes[0].done()):
                self._writes.popleft().result()  # (raises a failed write's error)

    def _write_part(self, part: int, rows: npt.NDArray[Any], logs: Any) -> None:
        _, pq = _pyarrow()
        first, last = self._part_chunks(part)[0][0], self._part_chunks(part)[-1][0]
        begin = first * self.spec.chunk_games
        game = np.arange(begin, begin + len(rows), dtype=np.int64)
        info = {
            **self.header,
            "part": {
                "index": part,
                "chunks": [first, last + 1],
                "games": len(rows),
                "first_game": begin,
            },
        }
        table = _table(self.spec, rows, game, logs).replace_schema_metadata({KEY: json.dumps(info)})
        final = self.path / part_name(part)
        temp = self.path / f".{final.name}.tmp-{os.getpid()}"
        self._temps.add(temp)
        pq.write_table(table, temp, compression="zstd")
        os.replace(temp, final)
        self._temps.discard(temp)

    def finish(self, seconds: float) -> Dataset:
        """Wait for the last parts, mark the run complete and open it."""
        assert not self._buffers, "every part is written once its chunks are in"
        while self._writes:
            self._writes.popleft().result()
        self.seconds += seconds
        self._write_meta(complete=True)
        return open_dataset(self.path)

    def close(self) -> None:
        """Let the parts handed to the writing thread finish (they are complete: an
        interruption keeps them), then remove any temporary file (of a write that failed)."""
        self._writer.shutdown(wait=True)
        self._writes.clear()
        for temp in self._temps:
            temp.unlink(missing_ok=True)
        self._temps.clear()


def write(
    spec: BatchSpec,
    games: int,
    out: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    resume: bool = False,
    workers: int | None = None,
    backend: str = "threads",
    address: Any = None,
    progress: bool = False,
) -> Dataset:
    """Play ``games`` games of ``spec`` into the dataset ``out`` (``simulate(..., out=...)``,
    whose checked arguments these are); an interruption keeps the finished parts."""
    writer = DatasetWriter(out, spec, games, overwrite=overwrite, resume=resume)
    began = time.perf_counter()
    try:
        play_chunks(
            [(0, spec, c, n) for c, n in writer.todo],
            lambda _, done: writer.add(done),
            workers=workers,
            backend=backend,
            address=address,
            progress=progress,
        )
        return writer.finish(time.perf_counter() - began)
    finally:
        writer.close()


# -- reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Run:
    """One run on disk: its metadata and the part files present."""

    path: Path
    header: dict[str, Any]
    spec: BatchSpec
    marked_complete: bool
    seconds: float | None
    parts: tuple[int, ...]
    plan: list[tuple[int, int]] = field(repr=False)

    @classmethod
    def open(cls, path: Path) -> _Run:
        meta = _read_meta(path)
        header = meta["header"]
        spec = _spec_of(header, str(path / META))
        try:
            games, part_chunks, n_parts = (
                int(header["games"]),
                int(header["part_chunks"]),
                int(header["parts"]),
            )
        except (KeyError, TypeError, ValueError):
            raise GenialError(f"{path / META}: unreadable plan") from None
        chunk_games = int(header.get("chunk_games", CHUNK))
        if chunk_games != spec.chunk_games:
            raise GenialError(
                f"{path / META}: chunks of {chunk_games:,} games, but genial {__version__} "
                f"plays this run in chunks of {spec.chunk_games:,} (the games would differ)"
            )
        plan = spec.chunks(games)
        if part_chunks < 1 or n_parts != math.ceil(len(plan) / part_chunks):
            raise GenialError(f"{path / META}: the plan does not add up")
        parts = []
        for name in os.listdir(path):
            match = _PART.fullmatch(name)
            if match:
                part = int(match.group(1))
                if part >= n_parts:
                    raise GenialError(f"{path / name}: a part beyond the run's {n_parts} parts")
                parts.append(part)
        complete = bool(meta.get("complete"))
        if complete and len(parts) != n_parts:
            missing = min(set(range(n_parts)) - set(parts))
            raise GenialError(
                f"{path}: the run is marked complete but {part_name(missing)} is missing"
            )
        seconds = meta.get("seconds")
        return cls(
            path,
            header,
            spec,
            complete,
            None if seconds is None else float(seconds),
            tuple(sorted(parts)),
            plan,
        )

    def part_plan(self, part: int) -> list[tuple[int, int]]:
        k = int(self.header["part_chunks"])
        return self.plan[part * k : (part + 1) * k]

    def part_games(self, part: int) -> int:
        return sum(n for _, n in self.part_plan(part))

    def read(self, part: int, columns: Sequence[str] | None = None) -> pa.Table:
        """A part's table, its metadata checked against the run's."""
        _, pq = _pyarrow()
        where = str(self.path / part_name(part))
        try:
            table = pq.read_table(where, columns=None if columns is None else list(columns))
        except OSError as error:
            raise GenialError(f"{where}: cannot be read ({error})") from None
        raw = (table.schema.metadata or {}).get(KEY)
        try:
            info = json.loads(raw) if raw is not None else None
        except json.JSONDecodeError:
            info = None
        if (
            not isinstance(info, dict)
            or {k: v for k, v in info.items() if k != "part"} != self.header
        ):
            raise GenialError(f"{where}: its metadata is not its run's ({self.path / META})")
        expected = self.part_games(part)
        if info.get("part", {}).get("index") != part or table.num_rows != expected:
            raise GenialError(f"{where}: {table.num_rows:,} games, the plan says {expected:,}")
        return table.replace_schema_metadata(None)


class Dataset:
    """A Parquet dataset of games on disk: one run (``simulate(..., out=...)``), or several runs
    of the same game, rules and policies with different seeds (``a + b``, ``open_dataset([...])``).
    Nothing is loaded until asked; ``iter_playouts`` and ``summary`` go part by part.
    """

    def __init__(self, runs: Sequence[_Run]) -> None:
        self._runs = tuple(runs)
        if not self._runs:
            raise GenialError("a dataset of no runs")
        first = self._runs[0].spec
        seen: dict[Any, Path] = {}
        for run in self._runs:
            spec = run.spec
            for what, a, b in (
                ("game", first.game, spec.game),
                ("rules", str(first.rules), str(spec.rules)),
                ("policies", first.policies, spec.policies),
                ("epsilons", first.epsilons, spec.epsilons),
                ("start", first.start, spec.start),
                ("openings", first.openings, spec.openings),
            ):
                if a != b:
                    raise GenialError(
                        f"cannot combine runs of different {what}: {excerpt(a)} in "
                        f"{_where(self._runs[0].path)}, {excerpt(b)} in {_where(run.path)}"
                    )
            key = (str(spec.seed.entropy), spec.seed.spawn_key)
            if key in seen:
                raise GenialError(
                    f"{_where(run.path)} and {_where(seen[key])} are runs of the same seed: "
                    "their games would count twice"
                )
            seen[key] = run.path

    # -- what it is ----------------------------------------------------------------------------
    @property
    def runs(self) -> tuple[Dataset, ...]:
        """The runs, each as a dataset of its own."""
        return tuple(Dataset([run]) for run in self._runs)

    @property
    def path(self) -> Path:
        """The directory of a single run."""
        return self._single("path").path

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(run.path for run in self._runs)

    @property
    def spec(self) -> BatchSpec:
        """The ``BatchSpec`` of a single run (replays any of its games)."""
        return self._single("spec").spec

    @property
    def game(self) -> str:
        return self._runs[0].spec.game

    @property
    def rules(self) -> Any:
        return self._runs[0].spec.rules

    @property
    def players(self) -> int:
        return int(self.rules.players)

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(self._runs[0].header["policy_labels"])

    @property
    def games(self) -> int:
        """Games the runs were asked for (``len`` counts the ones on disk)."""
        return sum(int(run.header["games"]) for run in self._runs)

    @property
    def complete(self) -> bool:
        """Every run finished (an interrupted run keeps its finished parts)."""
        return all(r.marked_complete and len(r.parts) == r.header["parts"] for r in self._runs)

    @property
    def missing_chunks(self) -> list[int]:
        """Chunk indices of a single run not on disk (``simulate(..., resume=True)`` plays
        them)."""
        run = self._single("missing_chunks")
        present = set(run.parts)
        k = int(run.header["part_chunks"])
        return [c for c, _ in run.plan if c // k not in present]

    @property
    def files(self) -> list[Path]:
        """The part files, run by run, in game order."""
        return [run.path / part_name(p) for run in self._runs for p in run.parts]

    def __len__(self) -> int:
        return sum(run.part_games(p) for run in self._runs for p in run.parts)

    def __repr__(self) -> str:
        state = "" if self.complete else f" (incomplete: {len(self):,} of {self.games:,})"
        runs = f", {len(self._runs)} runs" if len(self._runs) > 1 else ""
        return (
            f"<Dataset: {len(self):,} games{state}{runs}, rules {self.rules}, "
            f"policies {self.policies}>"
        )

    def __add__(self, other: object) -> Dataset:
        if not isinstance(other, Dataset):
            return NotImplemented
        return Dataset([*self._runs, *other._runs])

    def _single(self, what: str) -> _Run:
        if len(self._runs) != 1:
            raise GenialError(
                f"{what}: this dataset combines {len(self._runs)} runs (seeds); take one of "
                "dataset.runs"
            )
        return self._runs[0]

    def _parts(self) -> Iterator[tuple[int, _Run, int]]:
        for i, run in enumerate(self._runs):
            for part in run.parts:
                yield i, run, part

    # -- reading -------------------------------------------------------------------------------
    @property
    def dataset(self) -> pads.Dataset:
        """A ``pyarrow.dataset.Dataset`` of the part files (filters and projections stay on
        disk; ``dataset.runs`` tells runs apart)."""
        _pyarrow()
        import pyarrow.dataset as pads

        files = [str(f) for f in self.files]
        if not files:
            return pads.dataset([], schema=self._schema(), format="parquet")
        return pads.dataset(files, format="parquet")

    def _schema(self) -> pa.Schema:
        run = self._runs[0]
        adapter = entry(run.spec.game).adapter
        return _table(
            run.spec,
            np.zeros(0, adapter.row_dtype),
            np.zeros(0, np.int64),
            np.zeros(0, adapter.log_dtype) if run.spec.records else None,
        ).schema

    def to_arrow(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The stored games as one ``pyarrow.Table`` (one row per game; with several runs a
        first column ``run`` numbers them). ``columns`` picks columns."""
        pa, _ = _pyarrow()
        tables = []
        for i, run, part in self._parts():
            table = run.read(part, columns)
            if len(self._runs) > 1:
                table = table.add_column(0, "run", pa.array(np.full(len(table), i, np.int16)))
            tables.append(table)
        if not tables:
            empty = self._schema().empty_table()
            return empty if columns is None else empty.select(list(columns))
        return pa.concat_tables(tables)

    def iter_playouts(self) -> Iterator[Playouts]:
        """The games part by part (65,536 at a time), each part a ``Playouts`` with its run's
        spec."""
        for _, run, part in self._parts():
            yield _playouts(run.spec, run.read(part), str(run.path / part_name(part)))

    def to_playouts(self) -> Playouts:
        """Every stored game of a single run in one ``Playouts`` (refused if it cannot fit in
        memory, as ``simulate`` refuses)."""
        run = self._single("to_playouts")
        adapter = entry(run.spec.game).adapter
        check_memory(len(self), adapter, run.spec.records)
        n = len(self)
        rows = np.zeros(n, adapter.row_dtype)  # (filled, not concatenated: numpy would drop
        game = np.zeros(n, np.int64)  # the padding of the kernel's dtype)
        logs = np.zeros(n, adapter.log_dtype) if run.spec.records else None
        lo = 0
        for part in self.iter_playouts():
            hi = lo + len(part)
            rows[lo:hi] = part.rows
            game[lo:hi] = part.game
            if logs is not None and part.logs is not None:
                logs[lo:hi] = part.logs
            lo = hi
        return Playouts(run.spec, rows, game, logs, seconds=run.seconds)

    def to_pandas(self) -> pd.DataFrame:
        """The games as ``Playouts.to_pandas`` gives them (one row per game and seat), built
        part by part; with several runs a first column ``run`` numbers them."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - exercised only without pandas
            raise ImportError(
                "Dataset.to_pandas needs pandas: pip install 'genial-sim[parquet]'"
            ) from None
        frames = []
        for i, run, part in self._parts():
            frame = _playouts(run.spec, run.read(part), str(run.path)).to_pandas()
            if len(self._runs) > 1:
                frame.insert(0, "run", np.int16(i))
            frames.append(frame)
        if not frames:
            return self._empty_playouts().to_pandas()
        return pd.concat(frames, ignore_index=True)

    def _empty_playouts(self) -> Playouts:
        spec = self._runs[0].spec
        adapter = entry(spec.game).adapter
        return Playouts(spec, np.zeros(0, adapter.row_dtype), np.zeros(0, np.int64))

    def summary(self) -> Summary:
        """``Playouts.summary`` of all the stored games, computed part by part (counts exact;
        spreads and quantiles from the exact histogram of lowest counters)."""
        total: _Totals | None = None
        for runs in self.iter_playouts():
            total = _Totals.of(runs) if total is None else total + _Totals.of(runs)
        if total is None:
            return self._empty_playouts().summary()
        seconds = [run.seconds for run in self._runs]
        return total.summary(None if None in seconds else sum(s for s in seconds if s))


@dataclass(frozen=True)
class _Totals:
    """Sums of a part's results from which ``Summary`` is computed exactly as
    ``Playouts.summary`` computes it over all the games."""

    head: Summary  # the part's own summary: labels, policies, rules
    games: int
    wins: npt.NDArray[np.int64]
    shared: int
    lowest_counts: npt.NDArray[np.int64]
    scores: npt.NDArray[np.int64]  # (entries, 6) sums
    placements: int
    turns: int
    bonus: npt.NDArray[np.int64]  # per seat sums
    swaps: npt.NDArray[np.int64]
    truncated: int

    @classmethod
    def of(cls, runs: Playouts) -> _Totals:
        head = runs.summary()
        p = runs.rules.counter_sets
        return cls(
            head,
            len(runs),
            head.wins,
            head.shared_first,
            head.lowest_counts,
            runs.scores[:, :p].sum(axis=0, dtype=np.int64),
            int(runs._placements().sum(dtype=np.int64)),
            int(runs.turns.sum(dtype=np.int64)),
            runs.bonus.sum(axis=0, dtype=np.int64),
            runs.swaps.sum(axis=0, dtype=np.int64),
            head.truncated,
        )

    def __add__(self, other: _Totals) -> _Totals:
        return replace(
            self,
            games=self.games + other.games,
            wins=self.wins + other.wins,
            shared=self.shared + other.shared,
            lowest_counts=self.lowest_counts + other.lowest_counts,
            scores=self.scores + other.scores,
            placements=self.placements + other.placements,
            turns=self.turns + other.turns,
            bonus=self.bonus + other.bonus,
            swaps=self.swaps + other.swaps,
            truncated=self.truncated + other.truncated,
        )

    def summary(self, seconds: float | None) -> Summary:
        n = self.games
        lo, hi = wilson_interval(self.wins, n)
        values = np.arange(self.lowest_counts.shape[1], dtype=np.float64)
        mean = (self.lowest_counts * values).sum(axis=1) / n
        var = (self.lowest_counts * (values[None, :] - mean[:, None]) ** 2).sum(axis=1) / n
        quantiles = np.array(
            [_quantiles(row, (0.05, 0.25, 0.5, 0.75, 0.95)) for row in self.lowest_counts]
        )
        teams = self.head.labels[0].startswith("team")

        def per_entry(sums: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
            means = sums / n
            return np.array([means[0] + means[2], means[1] + means[3]]) if teams else means

        return replace(
            self.head,
            games=n,
            wins=self.wins,
            shared_first=self.shared,
            win_rate=self.wins / n,
            win_rate_lo=np.atleast_1d(lo),
            win_rate_hi=np.atleast_1d(hi),
            mean_lowest=mean,
            std_lowest=np.sqrt(var),
            lowest_quantiles=quantiles,
            mean_scores=self.scores / n,
            mean_placements=self.placements / n,
            mean_turns=self.turns / n,
            mean_bonus=per_entry(self.bonus),
            mean_swaps=per_entry(self.swaps),
            lowest_counts=self.lowest_counts,
            seconds=seconds,
            truncated=self.truncated,
        )


def _quantiles(counts: npt.NDArray[np.int64], qs: Sequence[float]) -> list[float]:
    """``numpy.quantile`` (linear) of the values whose histogram ``counts`` is."""
    n = int(counts.sum())
    ends = np.cumsum(counts)  # values[k] = first v with ends[v] > k

    def value(k: int) -> float:
        return float(np.searchsorted(ends, k, side="right"))

    out = []
    for q in qs:
        h = (n - 1) * q
        k = math.floor(h)
        a, b = value(k), value(min(k + 1, n - 1))
        t = h - k
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


def open_dataset(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
) -> Dataset:
    """The dataset at ``path`` (a directory ``simulate(..., out=...)`` wrote), or several runs
    combined (a list of directories: same game, rules and policies, different seeds). An
    interrupted run opens with its finished parts (``complete`` is False).

    >>> import tempfile
    >>> from genial.batch import simulate
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     a = simulate(1500, 2, seed=1, out=f"{tmp}/a")
    ...     b = simulate(2500, 2, seed=2, out=f"{tmp}/b")
    ...     both = open_dataset([f"{tmp}/a", f"{tmp}/b"])
    ...     print(len(both), len(a + b), both.to_pandas().shape)
    4000 4000 (8000, 19)
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(paths, (list, tuple)) or not paths:
        raise GenialError(f"open_dataset: a directory or a list of them, got {excerpt(path)}")
    runs = []
    for item in paths:
        if not isinstance(item, (str, os.PathLike)):
            raise GenialError(f"open_dataset: a directory path, got {excerpt(item)}")
        where = Path(os.fspath(item))
        if not where.is_dir():
            raise GenialError(f"{_where(where)} is not a directory")
        runs.append(_Run.open(where))
    return Dataset(runs)
