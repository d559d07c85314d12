"""Batches on disk: a partitioned Parquet dataset written part by part as the games are played
(``simulate(..., out="runs/")``), and ``open_dataset`` to read it back without loading it whole.

Layout of a dataset directory (``docs/cluster.md``; what it guarantees: ``docs/datasets.md``)::

    runs/
      _genial.json              the run: game, rules, policies, seed, plan, complete or not
      _common_metadata          the Parquet schema, with the same metadata
      part-00000000.parquet     games 0 .. 65,535 (64 chunks of 1,024 games)
      _part-00000000.sha256     its SHA-256 (``sha256sum -c`` reads it)
      part-00000001.parquet     games 65,536 ..
      _part-00000001.sha256
      _genial.lock              while a writer writes

One row per game: ``game`` (its number in the run: with the seed it replays the game), then the
kernel's result columns, per-seat ones flattened for the game's seats (``score_0_R`` ..
``score_0_P``, ``rank_0``, ``bonus_0``, ...), and ``log`` (the kernel's log, raw bytes) for runs
with records. Every part file carries the run's metadata too (key ``genial``) and page
checksums, and is written to a hidden temporary file then renamed, after its digest: a part
file that exists is complete, and whatever is read back is checked against its digest, the
run's metadata and the plan (a damaged part is a ``DatasetError`` naming it). An interrupted run
keeps its finished parts (``simulate(..., out=Output(path, resume=True))`` checks them, plays
the others and plays again any that fails its checks). One writer at a time: a second is
refused.

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

import contextlib
import hashlib
import json
import math
import os
import re
import stat
import time
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._version import __version__
from ..errors import GenialError, excerpt, is_int
from ..files import (
    DirectoryLock,
    load_json,
    path_problem,
    read_bounded,
    write_atomic,
)
from ..policies import canonical, parse_policy
from ..registry import entry
from ..seeds import MAX_SEED_BITS, seed_words
from ..stats import wilson_interval
from .backends import connect, import_distributed
from .chunks import MAX_GAMES, Work, check_memory, play_chunks
from .results import Playouts, Summary
from .spec import BatchSpec, Chunk, Plan, check_fields

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa
    import pyarrow.dataset as pads

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "PART_CHUNKS",
    "AnotherRunError",
    "Dataset",
    "DatasetError",
    "DatasetExistsError",
    "DatasetRepairWarning",
    "DatasetWriter",
    "open_dataset",
    "write",
]

FORMAT = "genial-dataset"
FORMAT_VERSION = 2
"""The layout this version writes: 2 adds the parts' digests, their page checksums, the
metadata's digest and the writer's lock to 1 (which still reads, and does not resume)."""
VERSIONS = (1, 2)
"""The layouts this version reads."""
PART_CHUNKS = 64
"""Chunks per part file: 65,536 games (about 4 MB of rows in memory, less on disk). Read when a
writer is made."""
META = "_genial.json"
COMMON = "_common_metadata"
LOCK = "_genial.lock"
KEY = b"genial"
_PART = re.compile(r"part-(\d+)\.parquet")
_DIGEST = re.compile(r"_part-(\d+)\.sha256")
_TEMP = re.compile(r"\.(?:part-\d+\.parquet|_genial\.json|_part-\d+\.sha256)\.tmp-(\d+)")
_SUMLINE = re.compile(r"([0-9a-f]{64})  (part-\d+\.parquet)\n")
_COLOURS = "RGBOYP"
_SINGULAR = {"scores": "score", "ranks": "rank"}

# bounds of what a dataset's metadata may say (what simulate can write), checked on reading
MAX_META_BYTES = 1 << 20
"""Bytes of ``_genial.json`` read at most (a header is about 1 KB, a start position a few)."""
MAX_PART_CHUNKS = 1024
"""Chunks a part may hold (a part is read whole)."""
MAX_POOL_SIZE = 64
"""``pool_size`` of a stored seed at most (numpy's default is 4; the cost of every derived
seed grows with its square)."""
_WORD_DIGITS = len(str(2**MAX_SEED_BITS))
"""Decimal digits of a stored entropy word at most (a seed holds ``MAX_SEED_BITS`` bits)."""
MAX_SPAWN_KEY = 64
"""Length of a stored seed's spawn key at most (one per ``spawn`` generation)."""
MAX_TEXT = 100_000
"""Characters of a stored start position (or rules, policy, version text) at most."""


class DatasetError(GenialError):
    """A dataset on disk that cannot be used as it is: its metadata or a part damaged, edited,
    misplaced or of another run, or a directory another writer is writing to. The message names
    the file (and the field)."""


class DatasetExistsError(GenialError):
    """``out=`` names a directory that holds a dataset already, and neither ``overwrite`` nor
    ``resume`` was given: ``path`` is the directory (nothing in it was touched)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.path))


class AnotherRunError(DatasetError):
    """``resume=True`` found the dataset of another run: its header's ``key`` holds
    ``stored`` where this run has ``given`` (the values as the header keeps them)."""

    def __init__(self, message: str, key: str, stored: Any, given: Any) -> None:
        super().__init__(message)
        self.key, self.stored, self.given = key, stored, given

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.key, self.stored, self.given))


class DatasetRepairWarning(UserWarning):
    """``simulate(..., out=Output(path, resume=True))`` found finished parts that fail their
    checks (damaged, truncated, of another run, misplaced) or are missing from a run marked
    complete: it plays them again (the message names them)."""


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


def checked_path(value: Any, what: str) -> Path:
    """A directory path the dataset layer accepts (``open_dataset``, ``out=``), checked once:
    a ``str`` or ``os.PathLike`` naming a text path a file system takes (``files.path_problem``:
    no NUL byte, encodable, its names at most ``MAX_NAME_BYTES`` bytes and the whole at most
    ``MAX_PATH_BYTES``); anything else is a ``DatasetError`` naming ``what`` and the
    (excerpted) path."""
    if not isinstance(value, (str, os.PathLike)):
        raise DatasetError(f"{what}: a directory path, got {excerpt(value)}")
    try:
        text = os.fspath(value)
    except TypeError as error:  # (__fspath__ returned neither str nor bytes)
        raise DatasetError(f"{what}: {excerpt(value)} is not a path ({error})") from None
    if not isinstance(text, str):
        raise DatasetError(f"{what}: a path as text, got {excerpt(text)}")
    problem = path_problem(text)
    if problem is not None:
        raise DatasetError(f"{what}: {excerpt(text)}: {problem}")
    return Path(text)


def _regular(path: Path) -> None:
    """Refuse ``path`` if it exists and is not a regular file (a directory, a FIFO, a device:
    reading it would fail, or block; symlinks are followed, what they point to is checked)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise DatasetError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise DatasetError(f"{path}: not a regular file: move it away")


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


def digest_name(part: int) -> str:
    """The name of part ``part``'s digest file (a line of ``sha256sum``)."""
    return f"_{part_name(part)[: -len('.parquet')]}.sha256"


def _schema(spec: BatchSpec) -> pa.Schema:
    """The Arrow schema of a run's parts (without metadata)."""
    adapter = entry(spec.game).adapter
    return _table(
        spec,
        np.zeros(0, adapter.row_dtype),
        np.zeros(0, np.int64),
        np.zeros(0, adapter.log_dtype) if spec.records else None,
    ).schema


def _sha256(data: Any) -> str:
    return hashlib.sha256(data).hexdigest()


# -- the run's metadata ----------------------------------------------------------------------------


def _header(spec: BatchSpec, games: int, part_chunks: int) -> dict[str, Any]:
    """What determines a dataset's contents, as JSON: the run's spec, the plan, the layout."""
    adapter = entry(spec.game).adapter
    entropy: Any = spec.seed.entropy
    plan = spec.chunks(games)
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
            "entropy": str(entropy) if is_int(entropy) else [str(w) for w in entropy],
            "spawn_key": [int(k) for k in spec.seed.spawn_key],
            "pool_size": int(spec.seed.pool_size),
        },
        "games": int(games),
        "chunk_games": spec.chunk_games,
        "chunks": plan.chunks,
        "part_chunks": int(part_chunks),
        "parts": plan.parts(part_chunks),
        "columns": ["game", *(c for c, _, _ in layout(adapter.row_dtype, spec.rules.players))]
        + (["log"] if spec.records else []),
    }


_HEADER_KEYS = (
    "format",
    "format_version",
    "genial_version",
    "game",
    "rules",
    "players",
    "policies",
    "epsilons",
    "policy_labels",
    "start",
    "openings",
    "records",
    "seed",
    "games",
    "chunk_games",
    "chunks",
    "part_chunks",
    "parts",
    "columns",
)


@dataclass(frozen=True)
class _Checked:
    """A run's header, checked: what it determines."""

    spec: BatchSpec
    plan: Plan
    part_chunks: int
    version: int


def _field(where: str, name: str, value: Any, kind: str) -> DatasetError:
    return DatasetError(f"{where}: {name} must be {kind}, got {excerpt(value)}")


def _count(value: Any) -> str:
    """A number from a file in a message: ``1,024``, or the excerpt of what is not an int."""
    return f"{int(value):,}" if is_int(value) else excerpt(value)


def _int_field(where: str, name: str, value: Any, lo: int, hi: int) -> int:
    if not is_int(value) or not lo <= value <= hi:
        raise _field(where, name, value, f"an int in {lo:,}..{hi:,}")
    return int(value)


def _text_field(where: str, name: str, value: Any, limit: int = 200) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise _field(where, name, value, f"a text of at most {limit:,} characters")
    return value


def _list_field(where: str, name: str, value: Any, limit: int) -> list[Any]:
    if not isinstance(value, list) or len(value) > limit:
        raise _field(where, name, value, f"a list of at most {limit} items")
    return value


def _word(where: str, name: str, value: Any) -> int:
    """An entropy word stored as decimal text."""
    digits = rf"0|[1-9][0-9]{{0,{_WORD_DIGITS - 1}}}"
    if not isinstance(value, str) or not re.fullmatch(digits, value):
        raise _field(where, name, value, "a decimal number as text")
    return int(value)


def _format_version(header: Any, where: str) -> int:
    """The format version of a header: one this version reads, or a ``DatasetError``."""
    if not isinstance(header, dict):
        raise DatasetError(f"{where}: not the metadata of a genial dataset")
    version = header.get("format_version")
    if header.get("format") != FORMAT or not is_int(version) or version not in VERSIONS:
        raise DatasetError(
            f"{where}: not a {FORMAT} of a version this genial reads "
            f"({', '.join(map(str, VERSIONS))}): format {excerpt(header.get('format'))}, version "
            f"{excerpt(version)}"
        )
    return int(version)


def _check_header(header: Any, where: str) -> _Checked:
    """A run's header (``_header``) checked as user input, field by field and bounded (what
    ``simulate`` can write): the spec, the plan and the part size it determines. Every refusal
    is a ``DatasetError`` naming ``where`` and the field; nothing is allocated beyond the
    bounds."""
    version = _format_version(header, where)
    for key in header:
        if key not in _HEADER_KEYS:
            raise DatasetError(f"{where}: an unknown field {excerpt(key)}")
    for key in _HEADER_KEYS:
        if key not in header:
            raise DatasetError(f"{where}: no field {key!r}")
    _text_field(where, "genial_version", header["genial_version"], 64)
    name = _text_field(where, "game", header["game"], 64)
    try:
        game = entry(name)
        rules = game.rules(rules=_text_field(where, "rules", header["rules"], 64))
    except DatasetError:
        raise
    except GenialError as error:
        raise DatasetError(f"{where}: {error}") from None
    players = int(rules.players)
    if header["players"] != players or not is_int(header["players"]):
        raise _field(where, "players", header["players"], f"{players} (the rules' seats)")
    policies = _list_field(where, "policies", header["policies"], players)
    epsilons = _list_field(where, "epsilons", header["epsilons"], players)
    labels = _list_field(where, "policy_labels", header["policy_labels"], players)
    openings = _list_field(where, "openings", header["openings"], players)
    start = header["start"]
    if start is not None:
        _text_field(where, "start", start, MAX_TEXT)
    if not all(is_int(a) for a in openings):
        raise _field(where, "openings", openings, "a list of action ids")
    if len(policies) != players or len(epsilons) != players:
        raise _field(where, "policies and epsilons", policies, f"one per seat ({players})")
    checked_epsilons = []
    for seat, (policy, epsilon) in enumerate(zip(policies, epsilons, strict=True)):
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
            raise _field(where, f"epsilons[{seat}]", epsilon, "a number")
        try:
            base, value = parse_policy(policy, float(epsilon), search=game.name == "board")
        except GenialError as error:
            raise DatasetError(f"{where}: policies[{seat}]: {error}") from None
        if base != policy or value != epsilon:
            raise _field(where, f"policies[{seat}]", policy, "a policy's canonical name")
        checked_epsilons.append(value)
    try:
        options: dict[str, Any] = {"epsilon": checked_epsilons[0] if checked_epsilons else 0.0}
        if openings:  # (a game without forced openings has no such option)
            options["openings"] = [int(a) for a in openings]
        checked = check_fields(
            game, rules, policy=[str(p) for p in policies], start=start, options=options
        )
    except GenialError as error:
        raise DatasetError(f"{where}: {error}") from None
    if checked["start"] != start:
        raise _field(where, "start", start, "a position's canonical text")
    if list(checked["openings"]) != openings:
        raise _field(where, "openings", openings, "the canonical action ids")
    if labels != [canonical(p, e) for p, e in zip(policies, checked_epsilons, strict=True)]:
        raise _field(where, "policy_labels", labels, "the labels of the policies")
    records = header["records"]
    if not isinstance(records, bool):
        raise _field(where, "records", records, "true or false")
    seed = header["seed"]
    if not isinstance(seed, dict) or sorted(seed) != ["entropy", "pool_size", "spawn_key"]:
        raise _field(where, "seed", seed, "entropy, spawn_key and pool_size")
    entropy: int | list[int]
    if isinstance(seed["entropy"], list):
        words = _list_field(where, "seed.entropy", seed["entropy"], MAX_SEED_BITS // 32)
        entropy = [_word(where, "seed.entropy", w) for w in words]
    else:
        entropy = _word(where, "seed.entropy", seed["entropy"])
    if seed_words(entropy) is None:  # the bound of every seed (genial.seeds)
        raise _field(
            where, "seed.entropy", seed["entropy"], f"a seed of at most {MAX_SEED_BITS} bits"
        )
    spawn_key = _list_field(where, "seed.spawn_key", seed["spawn_key"], MAX_SPAWN_KEY)
    keys = tuple(_int_field(where, "seed.spawn_key", k, 0, 2**64 - 1) for k in spawn_key)
    pool_size = _int_field(where, "seed.pool_size", seed["pool_size"], 4, MAX_POOL_SIZE)
    try:
        root = np.random.SeedSequence(entropy, spawn_key=keys, pool_size=pool_size)
    except (TypeError, ValueError) as error:  # pragma: no cover - the bounds above
        raise DatasetError(f"{where}: seed: {error}") from None
    spec = BatchSpec(
        game.name,
        rules,
        tuple(policies),
        tuple(checked_epsilons),
        seed=root,
        start=start,
        openings=tuple(int(a) for a in openings),
        records=records,
    )
    games = _int_field(where, "games", header["games"], 0, MAX_GAMES)
    chunk_games = header["chunk_games"]
    if chunk_games != spec.chunk_games or not is_int(chunk_games):
        raise DatasetError(
            f"{where}: chunks of {_count(chunk_games)} games, but genial {__version__} "
            f"plays this run in chunks of {spec.chunk_games:,} (the games would differ)"
        )
    plan = spec.chunks(games)
    if header["chunks"] != plan.chunks or not is_int(header["chunks"]):
        raise _field(where, "chunks", header["chunks"], f"{plan.chunks:,} (games / chunk_games)")
    part_chunks = _int_field(where, "part_chunks", header["part_chunks"], 1, MAX_PART_CHUNKS)
    n_parts = plan.parts(part_chunks)
    if header["parts"] != n_parts or not is_int(header["parts"]):
        raise _field(where, "parts", header["parts"], f"{n_parts:,} (chunks / part_chunks)")
    columns = ["game", *_schema(spec).names[1:]]
    if header["columns"] != columns:
        raise _field(
            where, "columns", header["columns"], f"the columns of genial {__version__}'s layout"
        )
    return _Checked(spec, plan, part_chunks, version)


def _seal(meta: dict[str, Any]) -> str:
    """The digest of a run's metadata (its canonical JSON, the digest itself left out)."""
    body = {k: v for k, v in meta.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return _sha256(text.encode("utf-8"))


def _load_json(data: bytes, where: str) -> Any:
    """JSON read as user input (``genial.files.load_json``: no NaN, no deep nesting)."""
    return load_json(data, where, DatasetError)


def _read_bounded(path: Path, limit: int, where: str) -> bytes:
    """At most ``limit`` bytes of a regular file (``genial.files.read_bounded``)."""
    return read_bounded(path, limit, where, DatasetError)


def _read_meta(path: Path) -> tuple[dict[str, Any], _Checked]:
    """A run's ``_genial.json``, its digest and every field checked."""
    where = str(path / META)
    if not (path / META).exists():
        raise DatasetError(f"{_where(path)} is not a genial dataset (no {META})")
    meta = _load_json(_read_bounded(path / META, MAX_META_BYTES, where), where)
    if not isinstance(meta, dict) or not isinstance(meta.get("header"), dict):
        raise DatasetError(f"{where}: not the metadata of a genial dataset")
    for key in meta:
        if key not in ("header", "complete", "seconds", "sha256"):
            raise DatasetError(f"{where}: an unknown field {excerpt(key)}")
    version = _format_version(meta["header"], where)
    if version >= 2:  # (format 1 has no digest)
        if not isinstance(meta.get("sha256"), str) or meta["sha256"] != _seal(meta):
            raise DatasetError(
                f"{where}: its content does not match its digest (sha256): the file is damaged "
                "or was edited"
            )
    elif "sha256" in meta:
        raise DatasetError(f"{where}: a digest in metadata of format version {excerpt(version)}")
    checked = _check_header(meta["header"], where)
    if not isinstance(meta.get("complete"), bool):
        raise _field(where, "complete", meta.get("complete"), "true or false")
    seconds = meta.get("seconds")
    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float))
        or not 0 <= seconds < math.inf
    ):
        raise _field(where, "seconds", seconds, "a number of seconds, or null")
    return meta, checked


# -- the directory ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Listing:
    """What a dataset directory holds, by name."""

    ours: tuple[str, ...]  # metadata, lock, parts and digests: what overwrite may remove
    parts: tuple[int, ...]
    digests: tuple[int, ...]
    temps: tuple[tuple[str, int], ...]  # (name, pid of the writer)
    foreign: tuple[str, ...]

    @classmethod
    def of(cls, path: Path, *, writing: bool = False) -> _Listing:
        """The names in ``path``; a misnamed part or digest (a number not written the way
        genial writes it, which would stand for another part's) is a ``DatasetError``. For a
        writer (``writing``), so is any of genial's names, or a temporary file, that is not a
        regular file (a directory, a FIFO): checked before anything is deleted or written
        (readers check each file as they open it)."""
        try:
            names = sorted(os.listdir(path))
        except OSError as error:
            raise DatasetError(f"{_where(path)}: cannot be listed ({error.strerror})") from None
        ours: list[str] = []
        parts: list[int] = []
        digests: list[int] = []
        temps: list[tuple[str, int]] = []
        foreign: list[str] = []
        for name in names:
            numbered = _PART.fullmatch(name) or _DIGEST.fullmatch(name)
            temp = _TEMP.fullmatch(name)
            if numbered:
                digits = numbered.group(1).lstrip("0") or "0"
                number = int(digits) if len(digits) <= 20 else -1  # (no part has more)
                right = (part_name if numbered.re is _PART else digest_name)(max(number, 0))
                if number < 0:
                    raise DatasetError(
                        f"{path / name}: a stray file, not a name genial writes (a number of "
                        f"{len(digits)} digits, beyond any part's): move it away"
                    )
                if name != right:
                    raise DatasetError(
                        f"{path / name}: a stray file, not a name genial writes (part "
                        f"{number:,}'s would be {right}): move it away"
                    )
                ours.append(name)
                (parts if numbered.re is _PART else digests).append(number)
            elif name in (META, COMMON, LOCK):
                ours.append(name)
            elif temp:
                digits = temp.group(1)[:20]  # (a pid)
                temps.append((name, int(digits)))
            else:
                foreign.append(name)
        if writing:
            for name in (*ours, *(name for name, _ in temps)):
                _regular(path / name)
        return cls(tuple(ours), tuple(parts), tuple(digests), tuple(temps), tuple(foreign))

    def strays(self, path: Path, n_parts: int) -> None:
        """Refuse parts and digests beyond a plan of ``n_parts`` parts (stray files of another
        run?), naming the first: they are not the run's, so nothing may delete them."""
        beyond = [(part_name(p), "part") for p in self.parts if p >= n_parts]
        beyond += [(digest_name(d), "digest") for d in self.digests if d >= n_parts]
        if beyond:
            name, what = min(beyond)
            raise DatasetError(
                f"{path / name}: a {what} beyond the run's {n_parts:,} parts (a stray file of "
                "another run?): move it away"
            )


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine may be running (True where it cannot be told)."""
    if pid == os.getpid():
        return True
    if os.name != "posix":  # pragma: no cover - no signal 0 to ask with
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _Lock(path: Path) -> DirectoryLock:
    """A dataset directory's writer lock (``genial.files.DirectoryLock``, file ``LOCK``)."""
    return DirectoryLock(path, LOCK, DatasetError, "out: ")


# -- writing ---------------------------------------------------------------------------------------


class DatasetWriter:
    """Writes one run's chunks as they arrive (in any order) into part files. Takes the
    directory's lock, checks the directory (with ``resume``, every finished part: those that
    fail are played again, with a ``DatasetRepairWarning``) and writes the run's metadata on
    construction, before any game is played; ``todo`` is the ``Plan`` of the chunks still to
    play (all, or the missing ones with ``resume``), never a list. ``close`` releases the
    lock."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        spec: BatchSpec,
        games: int,
        *,
        overwrite: bool = False,
        resume: bool = False,
    ) -> None:
        self.path = checked_path(path, "out")
        if overwrite and resume:
            raise GenialError("overwrite and resume exclude each other")
        _pyarrow()  # before anything is written
        self.spec = spec
        self.games = games
        self.adapter = entry(spec.game).adapter
        self.header = _header(spec, games, PART_CHUNKS)
        checked = _check_header(self.header, "out")  # what is written can be read back
        self.part_chunks = checked.part_chunks
        self.plan = checked.plan
        self.seconds = 0.0
        self.repaired: tuple[str, ...] = ()
        """What resume found wrong with the parts it plays again (a line each)."""
        self._lock = _Lock(self.path)
        self._buffers: dict[int, list[Any]] = {}
        self._temps: set[Path] = set()
        try:
            done = self._prepare(overwrite, resume)
        except BaseException:
            self._lock.release()
            raise
        self.todo = self.plan.without_parts(done, self.part_chunks)
        # parts are compressed and written by a thread of their own (pyarrow releases the
        # GIL), so the chunks keep coming meanwhile; at most two parts wait for it
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="genial-parts")
        self._writes: deque[Future[None]] = deque()

    def _part_chunks(self, part: int) -> Plan:
        return self.plan.part(part, self.part_chunks)

    def _prepare(self, overwrite: bool, resume: bool) -> set[int]:
        """Lock, check (and make) the directory; the parts already written and sound (with
        ``resume``)."""
        where = _where(self.path)
        if self.path.exists() and not self.path.is_dir():
            raise GenialError(f"out: {where} is a file, not a directory")
        existed = self.path.is_dir()
        if existed:
            _regular(self.path / LOCK)  # (before it is opened)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except OSError as error:
            raise GenialError(f"out: cannot write to {where} ({error.strerror or error})") from None
        done: set[int] = set()
        stale: list[int] = []
        try:
            # every name this call may delete or write is checked first (a regular file, or
            # absent; no stray): a refused call changes nothing
            listing = _Listing.of(self.path, writing=True)
            if listing.foreign:
                raise GenialError(
                    f"out: {where} holds other files ({excerpt(listing.foreign[0])}"
                    f"{', ...' if len(listing.foreign) > 1 else ''}): give a new or empty directory"
                )
            data = [n for n in listing.ours if n != LOCK]
            if data and resume:
                done, stale = self._sound_parts(listing)
            elif data and not overwrite:
                raise DatasetExistsError(
                    f"out: {where} already holds a dataset: pass out=Output(path, "
                    "overwrite=True) to replace it (or resume=True to finish an interrupted run)",
                    str(self.path),
                )
            elif data:
                try:
                    _, old = _read_meta(self.path)
                except DatasetError:
                    pass  # (no plan to be beyond: every part and digest is the dataset's)
                else:
                    listing.strays(self.path, old.plan.parts(old.part_chunks))
            # -- from here on, the directory changes
            for part in stale:
                for name in (part_name(part), digest_name(part)):
                    (self.path / name).unlink(missing_ok=True)
            for name, pid in listing.temps:  # a failed writer's (never a live one's)
                if pid == os.getpid() or not _alive(pid):
                    (self.path / name).unlink(missing_ok=True)
            if overwrite:
                for name in data:
                    (self.path / name).unlink(missing_ok=True)
            self._write_meta(complete=False)
            _, pq = _pyarrow()
            schema = _schema(self.spec).with_metadata({KEY: json.dumps(self.header)})
            pq.write_metadata(schema, self.path / COMMON)
        except OSError as error:
            if not existed:
                _remove_empty(self.path, self._lock)
            raise GenialError(f"out: cannot write to {where} ({error.strerror or error})") from None
        return done

    def _sound_parts(self, listing: _Listing) -> tuple[set[int], list[int]]:
        """The finished parts of the run being resumed that pass every check (digest, Parquet
        footer, metadata, rows, game numbers), and the others, to be removed and played again
        (said: ``DatasetRepairWarning``). Another run is refused."""
        where = _where(self.path)
        run = _Run.open(self.path, listing)
        old = run.header
        if run.version != FORMAT_VERSION:
            raise DatasetError(
                f"resume: {where} is a dataset of format version {run.version}: it reads, but "
                f"only resumes with the version of genial that wrote it (this one writes "
                f"version {FORMAT_VERSION}): finish it with that version, or start anew"
            )
        for key, value in self.header.items():
            if old.get(key) != value:
                raise AnotherRunError(
                    f"resume: the dataset in {where} is another run: its {key} is "
                    f"{excerpt(old.get(key))}, here {excerpt(value)}",
                    key,
                    old.get(key),
                    value,
                )
        self.seconds = run.seconds or 0.0
        sound, stale, problems = set(), [], []
        for part in run.parts:
            problem = run.problem(part)
            if problem is None:
                sound.add(part)
            else:
                stale.append(part)
                problems.append(problem)
        if run.marked_complete:
            problems.extend(
                f"{part_name(p)}: missing from a run marked complete"
                for p in range(run.plan.parts(run.part_chunks))
                if p not in run.parts
            )
        if problems:
            self.repaired = tuple(problems)
            shown = "; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else "")
            warnings.warn(
                f"resume: {len(problems)} part(s) of {where} fail their checks and are played "
                f"again: {shown}",
                DatasetRepairWarning,
                stacklevel=6,  # (simulate's caller)
            )
        return sound, stale

    def _write_meta(self, *, complete: bool) -> None:
        meta: dict[str, Any] = {
            "header": self.header,
            "complete": complete,
            "seconds": self.seconds or None,
        }
        meta["sha256"] = _seal(meta)
        write_atomic(self.path / META, json.dumps(meta, indent=1) + "\n")

    def add(self, chunk: Chunk) -> None:
        """Take a chunk; write its part when the part's last chunk is in."""
        part = chunk.index // self.part_chunks
        buffer = self._buffers.get(part)
        if buffer is None:
            plan = self._part_chunks(part)
            games = plan.games_held
            logs = np.zeros(games, self.adapter.log_dtype) if self.spec.records else None
            buffer = [np.zeros(games, self.adapter.row_dtype), logs, len(plan)]
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
        """Write a part: its bytes to a temporary file, then its digest, then the rename (so a
        part file that exists is complete and has its digest)."""
        pa, pq = _pyarrow()
        plan = self._part_chunks(part)
        begin = plan[0][0] * self.spec.chunk_games
        game = np.arange(begin, begin + len(rows), dtype=np.int64)
        table = _table(self.spec, rows, game, logs).replace_schema_metadata(
            {KEY: json.dumps({**self.header, "part": _part_info(part, plan, len(rows))})}
        )
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd", write_page_checksum=True)
        data = sink.getvalue()
        final = self.path / part_name(part)
        temp = self.path / f".{final.name}.tmp-{os.getpid()}"
        self._temps.add(temp)
        with open(temp, "wb") as file:
            file.write(data)
        write_atomic(self.path / digest_name(part), f"{_sha256(data)}  {final.name}\n")
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
        interruption keeps them), remove any temporary file (of a write that failed), and
        release the directory's lock."""
        try:
            self._writer.shutdown(wait=True)
            self._writes.clear()
            for temp in self._temps:
                temp.unlink(missing_ok=True)
            self._temps.clear()
        finally:
            self._lock.release()


def _remove_empty(path: Path, lock: DirectoryLock) -> None:
    """Undo the directory made for a refused run (only if nothing else is in it)."""
    lock.release()
    with contextlib.suppress(OSError):
        path.rmdir()


def _part_info(part: int, plan: Plan, games: int) -> dict[str, Any]:
    """The ``part`` entry of a part's metadata."""
    first, last = plan[0][0], plan[-1][0]
    return {
        "index": part,
        "chunks": [first, last + 1],
        "games": games,
        "first_game": first * plan.size,
    }


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
    whose checked arguments these are); an interruption keeps the finished parts. A Dask
    scheduler at ``address`` is connected to first, before the directory is touched (a failed
    connection leaves nothing behind), and the client made here is closed after."""
    checked_path(out, "out")
    with contextlib.ExitStack() as stack:
        if backend == "dask" and address is not None and not _is_client(address):
            client = connect(address)
            stack.callback(client.close)
            address = client
        writer = DatasetWriter(out, spec, games, overwrite=overwrite, resume=resume)
        stack.callback(writer.close)
        began = time.perf_counter()
        play_chunks(
            Work(((0, spec, writer.todo),)),
            lambda _, done: writer.add(done),
            workers=workers,
            backend=backend,
            address=address,
            progress=progress,
        )
        return writer.finish(time.perf_counter() - began)


def _is_client(address: Any) -> bool:
    """Whether ``address`` is a ``distributed.Client`` already (used as it is, left open)."""
    return isinstance(address, import_distributed().Client)


# -- reading ---------------------------------------------------------------------------------------


def _arrow_errors() -> tuple[type[BaseException], ...]:
    """What pyarrow raises on a file it cannot read."""
    pa, _ = _pyarrow()
    return (pa.ArrowException, OSError, ValueError, TypeError, KeyError, IndexError)


@dataclass(frozen=True, eq=False)
class _Run:
    """One run on disk: its checked metadata and the part files present."""

    path: Path
    header: dict[str, Any]
    spec: BatchSpec
    plan: Plan
    part_chunks: int
    version: int
    marked_complete: bool
    seconds: float | None
    parts: tuple[int, ...]

    @classmethod
    def open(cls, path: Path, listing: _Listing | None = None) -> _Run:
        """The run in ``path``: its metadata checked (bounded, every field), its parts by name
        (a misnamed part, or one beyond the plan, refused). The parts are read (and checked)
        when asked."""
        meta, checked = _read_meta(path)
        listing = _Listing.of(path) if listing is None else listing
        listing.strays(path, checked.plan.parts(checked.part_chunks))
        seconds = meta.get("seconds")
        return cls(
            path,
            meta["header"],
            checked.spec,
            checked.plan,
            checked.part_chunks,
            checked.version,
            meta["complete"],
            None if seconds is None else float(seconds),
            tuple(sorted(listing.parts)),
        )

    @property
    def n_parts(self) -> int:
        return self.plan.parts(self.part_chunks)

    def part_plan(self, part: int) -> Plan:
        return self.plan.part(part, self.part_chunks)

    def part_games(self, part: int) -> int:
        return self.part_plan(part).games_held

    @cached_property
    def schema(self) -> pa.Schema:
        return _schema(self.spec)

    def read(self, part: int, columns: Sequence[str] | None = None) -> pa.Table:
        """A part's table (``columns`` of it), after every check: its Parquet footer, its
        metadata (the run's, and this part's: a part of another run, or swapped with another,
        says so), its digest (format 2), its pages' checksums, its schema, its rows and game
        numbers (the plan's). A part that fails one is a ``DatasetError`` naming it and what is
        wrong. The file is read once, into memory: what is checked is what is decoded."""
        pa, pq = _pyarrow()
        file = self.path / part_name(part)
        where = str(file)
        plan = self.part_plan(part)
        games = plan.games_held
        adapter = entry(self.spec.game).adapter
        per_game = adapter.row_dtype.itemsize + 8
        per_game += adapter.log_dtype.itemsize if self.spec.records else 0
        # (compressed, a part is smaller than its rows: a larger file is not one genial wrote)
        data = _read_bounded(file, 2 * games * per_game + (1 << 20), where)
        damaged = "damaged (a flipped bit, a truncated or overwritten file)"
        try:
            parquet = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
            raw = (parquet.schema_arrow.metadata or {}).get(KEY)
            rows = parquet.metadata.num_rows
        except _arrow_errors() as error:
            raise DatasetError(
                f"{where}: not a readable Parquet file: {damaged}? ({type(error).__name__}: "
                f"{excerpt(str(error), 120)})"
            ) from None
        info = _load_json(raw, f"{where} (its metadata)") if raw is not None else None
        if not isinstance(info, dict) or {k: v for k, v in info.items() if k != "part"} != (
            self.header
        ):
            raise DatasetError(
                f"{where}: its metadata is not its run's ({self.path / META}): a part of "
                f"another run, or {damaged}"
            )
        own = info.get("part")
        expected = _part_info(part, plan, games)
        if own != expected:
            index = own.get("index") if isinstance(own, dict) else None
            first = own.get("first_game") if isinstance(own, dict) else None
            if is_int(index) and index != part:
                raise DatasetError(
                    f"{where}: holds part {index:,}'s games (from game {excerpt(first)}), not "
                    f"part {part:,}'s (from game {expected['first_game']:,}): parts swapped or "
                    "renamed"
                )
            raise DatasetError(f"{where}: its part metadata {excerpt(own)} is not {expected}")
        if rows != games:
            raise DatasetError(f"{where}: {rows:,} rows, part {part:,} of the plan has {games:,}")
        if self.version >= 2:
            sums = self.path / digest_name(part)
            if not sums.exists():
                raise DatasetError(f"{where}: its digest ({sums.name}) is missing")
            line = _read_bounded(sums, 256, str(sums))
            match = _SUMLINE.fullmatch(line.decode("ascii", "replace"))
            if match is None:
                raise DatasetError(f"{sums}: not a digest line ('<sha256>  {file.name}')")
            if match.group(2) != file.name:
                raise DatasetError(f"{sums}: the digest of {match.group(2)}, not of {file.name}")
            if _sha256(data) != match.group(1):
                raise DatasetError(
                    f"{where}: its content does not match its digest ({sums.name}): the file is "
                    f"{damaged}; {len(data):,} bytes"
                )
        wanted = list(self.schema.names if columns is None else columns)
        try:
            table = parquet.read(columns=list(dict.fromkeys(["game", *wanted])))
        except _arrow_errors() as error:
            raise DatasetError(
                f"{where}: cannot be read: {damaged}? ({type(error).__name__}: "
                f"{excerpt(str(error), 120)})"
            ) from None
        if table.num_rows != games or not table.schema.equals(
            pa.schema([self.schema.field(n) for n in table.column_names]), check_metadata=False
        ):
            raise DatasetError(f"{where}: its columns are not the run's layout")
        numbers = table.column("game").to_numpy()
        begin = expected["first_game"]
        if not np.array_equal(numbers, np.arange(begin, begin + games, dtype=np.int64)):
            raise DatasetError(
                f"{where}: its game numbers are not part {part:,}'s ({begin:,} .. "
                f"{begin + games - 1:,})"
            )
        return table.select(wanted)

    def problem(self, part: int) -> str | None:
        """What is wrong with a part (``read``'s checks), or None."""
        try:
            self.read(part, ["game"])
        except DatasetError as error:
            return str(error).replace(f"{self.path}{os.sep}", "")
        return None

    def missing(self) -> Plan:
        """The chunks of the parts not on disk."""
        return self.plan.without_parts(self.parts, self.part_chunks)


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
        return all(r.marked_complete and len(r.parts) == r.n_parts for r in self._runs)

    @property
    def missing_chunks(self) -> Sequence[int]:
        """Chunk indices of a single run not on disk (resuming, ``simulate(...,
        out=Output(path, resume=True))``, plays them): a lazy sequence (a run of 2**40 games
        has a billion chunks)."""
        return self._single("missing_chunks").missing().indices

    @property
    def files(self) -> list[Path]:
        """The part files, run by run, in game order."""
        return [run.path / part_name(p) for run in self._runs for p in run.parts]

    def __len__(self) -> int:
        return sum(run.part_games(p) for run in self._runs for p in run.parts)

    def verify(self) -> None:
        """Check every part of every run as reading it does (its digest, its Parquet pages'
        checksums, its metadata, rows and game numbers) without keeping it: a
        ``DatasetError`` names the first part that fails (resuming plays such parts again).
        Reading checks each part anyway, and ``dataset`` calls ``verify``; call it before a
        copy, or after one."""
        for _, run, part in self._parts():
            run.read(part, ["game"])

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
        disk; ``dataset.runs`` tells runs apart), made after every part is checked as reading
        checks it (``verify()``: a damaged part is a ``DatasetError`` naming it). Scans of the
        returned object are pyarrow's: they check the pages' checksums, and a file damaged after
        it was made raises pyarrow's own errors, not a ``DatasetError``."""
        _pyarrow()
        import pyarrow.dataset as pads

        checked = pads.ParquetFileFormat(
            default_fragment_scan_options=pads.ParquetFragmentScanOptions(
                page_checksum_verification=True
            )
        )
        self.verify()
        files = [str(f) for f in self.files]
        return pads.dataset(files, schema=self._schema(), format=checked)

    def _schema(self) -> pa.Schema:
        return self._runs[0].schema

    def _columns(self, columns: Sequence[str] | None) -> list[str] | None:
        """``columns`` checked: names of the runs' columns."""
        if columns is None:
            return None
        names = self._schema().names
        if isinstance(columns, str) or not isinstance(columns, (list, tuple)):
            raise GenialError(f"columns: a list of column names, got {excerpt(columns)}")
        for name in columns:
            if name not in names:
                raise GenialError(
                    f"columns: {excerpt(name)} is not a column of this dataset ({excerpt(names)})"
                )
        return list(columns)

    def to_arrow(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The stored games as one ``pyarrow.Table`` (one row per game; with several runs a
        first column ``run`` numbers them). ``columns`` picks columns."""
        pa, _ = _pyarrow()
        columns = self._columns(columns)
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
    plays: int  # tiles placed (board game) or cards played (card game)
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
            int(runs._plays().sum(dtype=np.int64)),
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
            plays=self.plays + other.plays,
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
            mean_plays=self.plays / n,
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
        raise DatasetError(f"open_dataset: a directory or a list of them, got {excerpt(path)}")
    runs = []
    for item in paths:
        where = checked_path(item, "open_dataset")
        if not where.is_dir():
            raise GenialError(f"{_where(where)} is not a directory")
        run = _Run.open(where)
        if run.marked_complete and len(run.parts) != run.n_parts:
            present = set(run.parts)
            missing = next(p for p in range(run.n_parts) if p not in present)
            raise DatasetError(
                f"{where}: the run is marked complete but {part_name(missing)} is missing "
                "(simulate(..., out=Output(path, resume=True)) plays it again)"
            )
        runs.append(run)
    return Dataset(runs)
