"""genial.batch datasets: ``simulate(..., out=dir)`` writes the games part by part as Parquet and
``open_dataset(dir)`` reads them back exactly, without loading them whole; runs of different
seeds combine; wrong directories are refused before any game is played; an interrupted run keeps
its finished parts and resumes."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import genial.batch
from genial import GenialError, Playouts, simulate
from genial.batch import CHUNK, SEARCH_CHUNK, Dataset, Output, open_dataset

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")
RUN = importlib.import_module("genial.batch.chunks")  # the chunk loop simulate plays through
DATASET = importlib.import_module("genial.batch.dataset")


@pytest.fixture(autouse=True)
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two chunks (2,048 games) a part, so that small runs have several parts."""
    monkeypatch.setattr(DATASET, "PART_CHUNKS", 2)


def assert_same(a: Playouts, b: Playouts) -> None:
    assert a.rows.dtype == b.rows.dtype
    for name in a.rows.dtype.names or ():
        assert np.array_equal(a.rows[name], b.rows[name]), name
    assert np.array_equal(a.game, b.game)
    assert (a.logs is None) == (b.logs is None)
    if a.logs is not None and b.logs is not None:
        for name in a.logs.dtype.names or ():  # (not the padding: the kernel leaves it)
            assert np.array_equal(a.logs[name], b.logs[name]), name


def parts(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir() if p.name.startswith("part-"))


def rewrite_meta(path: Path, meta: dict[str, Any]) -> None:
    """Write a run's ``_genial.json`` with its digest, as a writer would: metadata that another
    writer (a crafted one) made, which only its fields' checks can refuse."""
    meta = {k: v for k, v in meta.items() if k != "sha256"}
    meta["sha256"] = DATASET._seal(meta)
    (path / "_genial.json").write_text(json.dumps(meta))


CASES = [
    {"rules": "2", "policy": "epsilon-greedy", "records": True},
    {"rules": "4t", "policy": ("greedy", "random", "random", "random")},
    {"rules": "1", "policy": "greedy"},
    {"rules": "c3", "game": "cards", "policy": "greedy", "records": True},
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["rules"])
def test_round_trip(tmp_path: Path, case: dict[str, Any]) -> None:
    n = 2 * 2 * CHUNK + 7  # three parts, the last of one short chunk
    runs = simulate(n, seed=3, **case)
    written = simulate(n, seed=3, out=tmp_path / "runs", **case)
    assert parts(tmp_path / "runs") == [f"part-{p:08d}.parquet" for p in range(3)]
    back = open_dataset(tmp_path / "runs")
    assert isinstance(written, Dataset) and back.complete and len(back) == n == back.games
    stored = back.to_playouts()
    assert_same(stored, runs)
    assert stored.spec == runs.spec and stored.policies == runs.policies
    assert stored.replay(n - 1).scores.tolist() == runs.scores[n - 1].tolist()  # seed kept
    if case.get("records"):
        assert stored.record(n - 1) == runs.record(n - 1)
    assert [len(p) for p in back.iter_playouts()] == [2 * CHUNK, 2 * CHUNK, 7]
    pd.testing.assert_frame_equal(back.to_pandas(), runs.to_pandas())
    # the summary goes part by part: counts and means exact, spreads to rounding
    got, want = back.summary(), runs.summary()
    for name in ("games", "players", "policies", "labels", "shared_first", "rules", "moves_label"):
        assert getattr(got, name) == getattr(want, name), name
    for name in (
        "wins",
        "win_rate",
        "win_rate_lo",
        "win_rate_hi",
        "mean_lowest",
        "mean_scores",
        "mean_bonus",
        "mean_swaps",
        "lowest_counts",
    ):
        assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), name
    assert (got.mean_plays, got.mean_turns) == (want.mean_plays, want.mean_turns)
    assert np.allclose(got.std_lowest, want.std_lowest, rtol=1e-12, atol=0)
    assert np.allclose(got.lowest_quantiles, want.lowest_quantiles, rtol=1e-12, atol=0)


def test_layout_and_metadata(tmp_path: Path) -> None:
    seed = np.random.SeedSequence(2024).spawn(3)[2]  # a seed with a spawn key
    n = 3 * CHUNK
    simulate(n, 3, policy=("greedy", "epsilon-greedy:0.3", "random"), seed=seed, out=tmp_path)
    meta = json.loads((tmp_path / "_genial.json").read_text())
    assert meta["complete"] is True and meta["seconds"] > 0
    header = meta["header"]
    assert header["game"] == "board" and header["rules"] == "3" and header["players"] == 3
    assert header["policy_labels"] == ["greedy", "epsilon-greedy:0.3", "random"]
    assert header["epsilons"][1] == 0.3
    assert header["seed"] == {"entropy": str(seed.entropy), "spawn_key": [2], "pool_size": 4}
    assert (header["games"], header["chunk_games"], header["part_chunks"]) == (n, CHUNK, 2)
    assert header["genial_version"] == genial.__version__
    files = sorted(tmp_path.glob("part-*.parquet"))
    assert len(files) == 2
    for p, path in enumerate(files):
        info = json.loads(pq.read_schema(path).metadata[b"genial"])
        assert {k: v for k, v in info.items() if k != "part"} == header
        assert info["part"] == {
            "index": p,
            "chunks": [2 * p, min(2 * p + 2, 3)],
            "games": [2 * CHUNK, CHUNK][p],
            "first_game": 2 * p * CHUNK,
        }
    common = pq.read_schema(tmp_path / "_common_metadata")
    assert json.loads(common.metadata[b"genial"]) == header
    names = common.names
    assert names[:8] == ["game", *(f"score_0_{c}" for c in "RGBOYP"), "score_1_R"]
    assert {"rank_2", "winner", "bonus_2", "swaps_0", "opening_1", "truncated"} <= set(names)
    assert "rank_3" not in names  # only the game's seats
    # any Parquet reader takes the directory (the metadata files start with "_")
    frame = pd.read_parquet(tmp_path)
    runs = simulate(n, 3, policy=("greedy", "epsilon-greedy:0.3", "random"), seed=seed)
    assert frame["score_1_G"].tolist() == runs.scores[:, 1, 1].tolist()
    assert open_dataset(tmp_path).dataset.count_rows() == n
    table = open_dataset(tmp_path).to_arrow(["game", "winner"])
    assert table.column_names == ["game", "winner"]
    assert table.column("winner").to_numpy().tolist() == runs.winner.tolist()


def test_runs_of_two_seeds_combine(tmp_path: Path) -> None:
    a = simulate(3 * CHUNK, 2, policy="greedy", seed=1, out=tmp_path / "a")
    b = simulate(CHUNK + 5, 2, policy="greedy", seed=2, out=tmp_path / "b")
    both = open_dataset([tmp_path / "a", tmp_path / "b"])
    assert len(both) == len(a + b) == 4 * CHUNK + 5
    assert [len(r) for r in both.runs] == [3 * CHUNK, CHUNK + 5]
    ra, rb = a.to_playouts(), b.to_playouts()
    pooled = Playouts(ra.spec, np.concatenate([ra.rows, rb.rows]), np.arange(len(both)))
    got, want = both.summary(), pooled.summary()
    assert np.array_equal(got.wins, want.wins) and np.array_equal(got.win_rate, want.win_rate)
    assert np.array_equal(got.mean_scores, want.mean_scores)
    frame = both.to_pandas()
    assert frame["run"].tolist() == [0] * 2 * 3 * CHUNK + [1] * 2 * (CHUNK + 5)
    assert frame.groupby("run")["won"].sum().tolist() == [
        int((ra.winner >= 0).sum()),
        int((rb.winner >= 0).sum()),
    ]
    assert both.to_arrow().column("run").to_numpy().tolist() == frame["run"].tolist()[::2]
    with pytest.raises(GenialError, match="combines 2 runs"):
        both.to_playouts()
    with pytest.raises(GenialError, match="combines 2 runs"):
        _ = both.spec
    assert "2 runs" in repr(both)


def test_runs_that_do_not_combine(tmp_path: Path) -> None:
    two = simulate(100, 2, seed=1, out=tmp_path / "two")
    three = simulate(100, 3, seed=2, out=tmp_path / "three")
    simulate(100, 2, policy="greedy", seed=3, out=tmp_path / "greedy")
    again = simulate(100, 2, seed=1, out=tmp_path / "again")
    with pytest.raises(GenialError, match=r"different rules: '2' in .*two.*'3' in .*three"):
        _ = two + three
    with pytest.raises(GenialError, match="different policies"):
        open_dataset([tmp_path / "two", tmp_path / "greedy"])
    with pytest.raises(GenialError, match="same seed"):
        _ = two + again
    with pytest.raises(TypeError):
        _ = two + 1  # type: ignore[operator]


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game played fails the test: the refusals come first."""

    def played(*args: Any) -> Any:
        raise AssertionError("a game was played")

    monkeypatch.setattr(RUN, "run_chunk", played)


def test_a_dataset_is_not_written_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    simulate(100, 2, seed=1, out=tmp_path / "runs")
    before = {p.name: p.read_bytes() for p in (tmp_path / "runs").iterdir()}

    def played(*args: Any) -> Any:
        raise AssertionError("a game was played")

    with monkeypatch.context() as patch:
        patch.setattr(RUN, "run_chunk", played)
        with pytest.raises(
            GenialError, match=r"already holds a dataset: pass out=Output\(path, overwrite=True\)"
        ):
            simulate(100, 2, seed=2, out=tmp_path / "runs")
    assert {p.name: p.read_bytes() for p in (tmp_path / "runs").iterdir()} == before
    simulate(300, 2, seed=2, out=Output(tmp_path / "runs", overwrite=True))
    replaced = open_dataset(tmp_path / "runs")
    assert len(replaced) == 300 and replaced.spec.seed.entropy == 2
    with pytest.warns(DeprecationWarning, match="overwrite="):  # genial 0.2's spelling
        again = simulate(200, 2, seed=3, out=tmp_path / "runs", overwrite=True)  # type: ignore[call-overload]
    assert len(again) == 200 and open_dataset(tmp_path / "runs").spec.seed.entropy == 3


@pytest.mark.usefixtures("no_games")
def test_wrong_outputs_are_refused_before_playing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("x")
    with pytest.raises(GenialError, match="is a file, not a directory"):
        simulate(10, out=tmp_path / "file")
    with pytest.raises(GenialError, match="cannot write to"):
        simulate(10, out=tmp_path / "file" / "runs")  # (a file on the way: even root fails)
    with pytest.raises(GenialError, match="holds other files"):
        simulate(10, out=tmp_path / "mine")
    with pytest.raises(GenialError, match="holds other files"):
        simulate(10, out=Output(tmp_path / "mine", overwrite=True))  # never deletes others
    with pytest.raises(GenialError, match="exclude each other"):
        simulate(10, out=Output(tmp_path / "new", overwrite=True, resume=True))
    with pytest.raises(GenialError, match="resume must be"):
        simulate(10, out=Output(tmp_path / "new", resume="yes"))  # type: ignore[arg-type]
    with (  # genial 0.2's spelling
        pytest.warns(DeprecationWarning, match=r"use out=Output\(path, resume=True\)"),
        pytest.raises(GenialError, match="options of out="),
    ):
        simulate(10, resume=True)  # type: ignore[call-overload]
    with pytest.raises(GenialError, match="a directory path"):
        simulate(10, out=3)  # type: ignore[call-overload]
    with pytest.raises(GenialError, match="n_games"):
        simulate(-1, out=tmp_path / "new")
    assert not (tmp_path / "new").exists()
    assert sorted(os.listdir(tmp_path / "mine")) == ["notes.txt"]


@pytest.mark.usefixtures("no_games")
def test_an_unwritable_directory_is_refused_before_playing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory the run cannot write to is refused before any game (the operating system's
    refusal is simulated: CI runs as root, who may write anywhere)."""
    import errno

    import genial.batch.dataset as dataset

    def refuse(path: Path, data: bytes | str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(dataset, "write_atomic", refuse)
    with pytest.raises(GenialError, match=r"cannot write to .*Permission denied"):
        simulate(10, out=tmp_path / "runs")


def test_huge_runs_go_to_disk_not_memory(tmp_path: Path) -> None:
    """10**9 games do not fit in memory (refused at once) but are accepted for a dataset: the
    writer holds a part at a time (here interrupted at once, after its checks)."""
    with pytest.raises(GenialError, match="GiB"):
        simulate(10**9)

    def stop(*args: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RUN, "run_chunk", stop)
        with pytest.raises(KeyboardInterrupt):
            simulate(10**9, out=tmp_path / "big")
    big = open_dataset(tmp_path / "big")
    assert (len(big), big.games, big.complete) == (0, 10**9, False)


def _interrupting_bar(after: int) -> Any:
    def bar(total: int, enabled: bool, unit: str = "games") -> Any:
        done = [0]

        def update(k: int) -> None:
            done[0] += k
            if done[0] >= after:
                raise KeyboardInterrupt

        return update

    return bar


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_keeps_its_parts_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    n = 8 * CHUNK  # four parts
    full = simulate(n, 2, seed=9)
    with monkeypatch.context() as patch:
        patch.setattr(RUN, "progress_bar", _interrupting_bar(5 * CHUNK))
        with pytest.raises(KeyboardInterrupt):
            simulate(n, 2, seed=9, out=tmp_path, progress=True, workers=workers)
    part = open_dataset(tmp_path)
    assert not part.complete and "incomplete" in repr(part)
    assert all(not name.startswith(".") for name in os.listdir(tmp_path))  # no temporary file
    stored = part.to_playouts()
    assert len(stored) % (2 * CHUNK) == 0 and 2 * CHUNK <= len(stored) < n
    assert_same(stored, full[stored.game])  # whichever parts finished, they are the run's games
    assert list(part.missing_chunks) == [c for c in range(8) if c * CHUNK not in set(stored.game)]
    assert json.loads((tmp_path / "_genial.json").read_text())["complete"] is False
    with pytest.raises(GenialError, match=r"resume: .* another run: its seed"):
        simulate(n, 2, seed=10, out=Output(tmp_path, resume=True))
    with pytest.raises(GenialError, match="already holds a dataset"):
        simulate(n, 2, seed=9, out=tmp_path)
    played: list[int] = []
    original = RUN.run_chunk

    def counting(spec: Any, chunk: int, size: int) -> Any:
        played.append(chunk)
        return original(spec, chunk, size)

    monkeypatch.setattr(RUN, "run_chunk", counting)
    done = simulate(n, 2, seed=9, out=Output(tmp_path, resume=True), workers=workers)
    assert sorted(played) == list(part.missing_chunks)  # only the missing parts were played
    assert done.complete
    assert_same(done.to_playouts(), full)


def test_an_error_in_a_chunk_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = RUN.run_chunk

    def failing(spec: Any, chunk: int, size: int) -> Any:
        if chunk == 3:
            raise RuntimeError("chunk 3 fails")
        return original(spec, chunk, size)

    monkeypatch.setattr(RUN, "run_chunk", failing)
    with pytest.raises(RuntimeError, match="chunk 3 fails"):
        simulate(6 * CHUNK, 2, seed=1, out=tmp_path, workers=2)
    assert parts(tmp_path) == ["part-00000000.parquet"]
    assert all(not name.startswith(".") for name in os.listdir(tmp_path))


def test_an_empty_run(tmp_path: Path) -> None:
    empty = simulate(0, 2, seed=1, out=tmp_path)
    assert (len(empty), empty.complete, parts(tmp_path)) == (0, True, [])
    assert len(empty.to_playouts()) == 0 and empty.summary().games == 0
    assert empty.to_arrow().num_rows == 0 and "score_1_P" in empty.to_arrow().column_names
    assert empty.dataset.count_rows() == 0 and len(empty.to_pandas()) == 0


def test_damaged_datasets_are_refused(tmp_path: Path) -> None:
    simulate(3 * CHUNK, 2, seed=1, out=tmp_path / "a")
    simulate(3 * CHUNK, 2, seed=2, out=tmp_path / "b")
    with pytest.raises(GenialError, match="not a genial dataset"):
        open_dataset(tmp_path)
    with pytest.raises(GenialError, match="not a directory"):
        open_dataset(tmp_path / "nowhere")
    with pytest.raises(GenialError, match="a directory or a list"):
        open_dataset(3)  # type: ignore[arg-type]
    # a part of another run slipped in
    (tmp_path / "a" / "part-00000001.parquet").write_bytes(
        (tmp_path / "b" / "part-00000001.parquet").read_bytes()
    )
    with pytest.raises(GenialError, match="metadata is not its run's"):
        open_dataset(tmp_path / "a").to_arrow()
    # a part lost from a complete run
    (tmp_path / "b" / "part-00000000.parquet").unlink()
    with pytest.raises(GenialError, match=r"marked complete but part-00000000\.parquet is missing"):
        open_dataset(tmp_path / "b")
    (tmp_path / "b" / "_genial.json").write_text("{not json")
    with pytest.raises(GenialError, match="cannot be read"):
        open_dataset(tmp_path / "b")
    (tmp_path / "b" / "_genial.json").write_text(json.dumps({"header": {"format": "csv"}}))
    with pytest.raises(GenialError, match="not a genial-dataset"):
        open_dataset(tmp_path / "b")


def test_open_is_open_dataset() -> None:
    assert genial.batch.open is open_dataset
    assert "open" not in genial.batch.__all__  # (it would shadow the builtin on import *)


def test_a_failed_write_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part that cannot be written (a full disk, here simulated) stops the run with the
    error; no temporary file stays, the run stays incomplete."""

    def full(self: Any, part: int, rows: Any, logs: Any) -> None:
        temp = self.path / f".{DATASET.part_name(part)}.tmp-{os.getpid()}"
        self._temps.add(temp)
        temp.write_bytes(b"half a part")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(DATASET.DatasetWriter, "_write_part", full)
    with pytest.raises(OSError, match="No space left"):
        simulate(8 * CHUNK, 2, seed=1, out=tmp_path)
    assert all(not name.startswith(".") for name in os.listdir(tmp_path))
    assert not open_dataset(tmp_path).complete


def test_a_search_run_on_disk_has_its_small_chunks(tmp_path: Path) -> None:
    """A run with a search policy plays in chunks of SEARCH_CHUNK games: its dataset says so,
    reads back as the run in memory, resumes, and a dataset whose chunk size is not the one
    this version plays is refused (its games would differ)."""
    policy = ("mc:3:random", "random")
    n = 2 * 2 * SEARCH_CHUNK + 5  # three parts of two small chunks
    runs = simulate(n, 2, policy=policy, seed=9)
    written = simulate(n, 2, policy=policy, seed=9, out=tmp_path / "s")
    meta = json.loads((tmp_path / "s" / "_genial.json").read_text())
    assert meta["header"]["chunk_games"] == SEARCH_CHUNK
    assert meta["header"]["parts"] == 3
    assert_same(runs, written.to_playouts())
    back = open_dataset(tmp_path / "s").to_playouts()
    assert back.replay(n - 1).scores.tolist() == runs.scores[-1].tolist()
    meta["header"]["chunk_games"] = CHUNK
    (tmp_path / "s" / "_genial.json").write_text(json.dumps(meta))
    with pytest.raises(GenialError, match="does not match its digest"):
        open_dataset(tmp_path / "s")  # an edit
    rewrite_meta(tmp_path / "s", meta)
    with pytest.raises(GenialError, match=f"chunks of {CHUNK:,} games, but genial"):
        open_dataset(tmp_path / "s")


def test_refusals_say_what_differs_as_data(tmp_path: Path) -> None:
    """A dataset already there and a resume of another run are refused with exceptions that
    carry what was found (the command line words its messages from them), pickle whole, and
    leave the dataset as it was."""
    import pickle

    from genial.batch import AnotherRunError, DatasetExistsError

    out = tmp_path / "runs"
    simulate(200, seed=1, workers=1, out=Output(out))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(DatasetExistsError, match="already holds a dataset") as exists:
        simulate(200, seed=1, workers=1, out=Output(out))
    assert exists.value.path == str(out)
    with pytest.raises(AnotherRunError, match="is another run: its games is 200") as other:
        simulate(300, seed=1, workers=1, out=Output(out, resume=True))
    assert (other.value.key, other.value.stored, other.value.given) == ("games", 200, 300)
    for error in (exists.value, other.value):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
        assert vars(back) == vars(error)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
