"""The adaptive opening analysis: the race (genial.racing), its checkpoint on disk, and
``openings.analyse(adaptive=True)`` (docs/openings.md, "Adaptive analysis")."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

import numpy as np
import pytest
from genial.openings import analyse
from hypothesis import given, settings
from hypothesis import strategies as st

from genial import GenialError
from genial.board import openings as openings_module
from genial.racing import Checkpoint, CheckpointError, Race, hoeffding_radius, split

from .docs import run_examples

# -- the race ------------------------------------------------------------------------------------


def test_rounds_double_up_to_the_cap() -> None:
    race = Race(2, cap=3000, batch=1000, confidence=0.9, span=1.0)
    seen = []
    while not race.done:
        goal = race.targets()
        seen.append(goal[0])
        for i in race.alive:
            race.record(i, count=goal[i] - race.count[i], total=0.5 * (goal[i] - race.count[i]))
        assert race.end_round() == []  # equal means: nobody is stopped
    assert seen == [1000, 2000, 3000] and race.count == [3000, 3000]
    assert race.stopped_after == [None, None]


def test_a_class_below_the_best_bound_is_stopped_with_the_documented_bounds() -> None:
    race = Race(3, cap=8000, batch=1000, confidence=0.95, span=1.0)
    for i, wins in enumerate((700, 500, 640)):
        race.record(i, count=1000, total=wins)
    error = 0.05 / (2 * 3 * 1 * 2)  # round 0: (1 - confidence) / (2 K (r+1) (r+2))
    assert race.error == pytest.approx(error)
    half = math.sqrt(math.log(1 / error) / 2000)  # Hoeffding, n = 1000, span 1
    assert hoeffding_radius(1000, error, 1.0) == pytest.approx(half)
    # 0.7 - half = 0.638 > 0.5 + half = 0.562: class 1 stops; 0.64 + half = 0.702 stays
    assert race.end_round() == [1]
    assert race.bounds[0] == pytest.approx((0.7 - half, 0.7 + half))
    assert race.alive == [0, 2] and race.stopped_after == [None, 0, None]
    assert race.targets() == {0: 2000, 2: 2000}
    with pytest.raises(GenialError, match="not in the race"):
        race.record(1, count=1, total=1.0)
    with pytest.raises(GenialError, match="fewer samples"):
        race.end_round()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cap": 0, "batch": 1}, "cap and batch"),
        ({"cap": 10, "batch": 0}, "cap and batch"),
        ({"cap": 10, "batch": 1, "confidence": 1.0}, "confidence"),
        ({"cap": 10, "batch": 1, "confidence": 0.0}, "confidence"),
    ],
)
def test_bad_races(kwargs: dict, message: str) -> None:
    with pytest.raises(GenialError, match=message):
        Race(3, **kwargs)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.05, 0.95), min_size=2, max_size=12),
    st.integers(0, 2**32 - 1),
)
def test_the_best_arm_is_never_stopped(means: list[float], seed: int) -> None:
    """The guarantee, by simulation: Bernoulli arms of the given means raced at confidence
    0.95; the best arm (the first of the best) is stopped in at most 5% of races, and in these
    small races (whose bounds hold with room to spare) never."""
    rng = np.random.default_rng(seed)
    best = int(np.argmax(means))
    for _ in range(3):
        race = Race(len(means), cap=4096, batch=256, confidence=0.95, span=1.0)
        while not race.done:
            goal = race.targets()
            for i in race.alive:
                n = goal[i] - race.count[i]
                race.record(i, count=n, total=float(rng.binomial(n, means[i])))
            race.end_round()
        if means.count(means[best]) == 1:
            assert best in race.alive
        assert race.alive, "the race always keeps one arm"


def test_split() -> None:
    assert split(list(range(5)), 3) == [[0, 1, 2], [3, 4]]
    assert split([], 3) == []


# -- the checkpoint --------------------------------------------------------------------------------

ARRAYS = {"cls": ("uint16", 9), "win": ("uint8", 1)}


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    where = tmp_path / "race"
    check, steps = Checkpoint.open(where, {"a": 1}, resume=False, arrays=ARRAYS)
    assert steps == []
    check.add({"round": 0}, {"cls": np.array([0, 1], np.uint16), "win": np.array([1, 0], np.uint8)})
    check.add({"round": 1}, {"cls": np.array([2], np.uint16), "win": np.array([1], np.uint8)})
    again, steps = Checkpoint.open(where, {"a": 1}, resume=True, arrays=ARRAYS)
    assert [info for info, _ in steps] == [{"round": 0}, {"round": 1}]
    assert steps[0][1]["cls"].tolist() == [0, 1] and steps[1][1]["win"].tolist() == [1]
    assert len(again.steps) == 2
    with pytest.raises(CheckpointError, match="already holds an analysis"):
        Checkpoint.open(where, {"a": 1}, resume=False, arrays=ARRAYS)
    with pytest.raises(CheckpointError, match="differs in a"):
        Checkpoint.open(where, {"a": 2}, resume=True, arrays=ARRAYS)


def damage(where: Path, name: str, edit) -> None:
    path = where / name
    path.write_bytes(edit(path.read_bytes()))


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("step-000000.npz", lambda b: b[:-10], "checksum"),
        ("manifest.json", lambda b: b[:-5], "not JSON"),
        ("manifest.json", lambda b: b.replace(b"genial-race-1", b"genial-race-0"), "manifest"),
        ("manifest.json", lambda b: b.replace(b"step-000000", b"step-000009"), "must be"),
    ],
)
def test_a_damaged_checkpoint_is_refused(tmp_path: Path, name: str, edit, message: str) -> None:
    where = tmp_path / "race"
    check, _ = Checkpoint.open(where, {"a": 1}, resume=False, arrays=ARRAYS)
    check.add({"round": 0}, {"cls": np.array([3], np.uint16), "win": np.array([1], np.uint8)})
    damage(where, name, edit)
    with pytest.raises(CheckpointError, match=message):
        Checkpoint.open(where, {"a": 1}, resume=True, arrays=ARRAYS)


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"cls": np.array([10], np.uint16), "win": np.array([1], np.uint8)}, "outside 0..9"),
        ({"cls": np.array([1], np.int64), "win": np.array([1], np.uint8)}, "uint16"),
        ({"cls": np.array([1, 2], np.uint16), "win": np.array([1], np.uint8)}, "length"),
        ({"cls": np.array([1], np.uint16)}, "expected"),
    ],
)
def test_bad_arrays_are_refused(tmp_path: Path, arrays: dict, message: str) -> None:
    """A step whose file matches its checksum but whose arrays are wrong (written by anything
    but this analysis) is refused on reading, like any other input."""
    where = tmp_path / "race"
    check, _ = Checkpoint.open(where, {"a": 1}, resume=False, arrays=ARRAYS)
    check.add({"round": 0}, arrays)
    with pytest.raises(CheckpointError, match=message):
        Checkpoint.open(where, {"a": 1}, resume=True, arrays=ARRAYS)


# -- the adaptive analysis -------------------------------------------------------------------------


def test_adaptive_rows_are_the_uniform_analysis_first_games() -> None:
    """Without a class stopped, the race plays exactly the uniform analysis's games (the same
    seeds, chunk by chunk), so its table is the uniform table, plus the race's columns."""
    # mc:1:k1 plays greedy's best at once, at greedy's cost, in search-policy chunks of 16 games
    options = {"games_per_opening": 48, "seed": 5, "policy": "mc:1:k1"}
    uniform = analyse(2, **options)
    raced = analyse(2, adaptive=True, batch=16, **options)
    assert raced.race is not None and raced.race["rounds"] == 3  # 16, 32, then 48 games
    assert raced.race["games"] == raced.race["uniform_games"] == raced.race["played"] == 164 * 48
    columns = ["class", "games", "wins", "shared", "lowest", "margin"]
    assert raced.table[columns].equals(uniform.table[columns])
    assert (raced.table["stopped_after"] == -1).all()
    assert (raced.table["race_lo"] < raced.table["win_rate"]).all()
    assert "raced" in repr(raced)


def test_an_interrupted_analysis_resumes_to_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {"games_per_opening": 32, "seed": 7, "workers": 2, "adaptive": True,
               "policy": "mc:1:k1", "batch": 16}  # fmt: skip
    whole = analyse(2, **options)
    calls = {"n": 0}
    real = openings_module.run_many

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(openings_module, "run_many", interrupted)
    with pytest.raises(KeyboardInterrupt):
        analyse(2, out=tmp_path / "book", **options)
    monkeypatch.setattr(openings_module, "run_many", real)
    manifest = json.loads((tmp_path / "book" / "manifest.json").read_text())
    assert len(manifest["steps"]) == 2  # the steps finished before Ctrl-C are kept
    resumed = analyse(2, out=tmp_path / "book", resume=True, **options)
    assert resumed.table.equals(whole.table)
    assert resumed.race is not None and resumed.race["played"] == 164 * 32 - 2 * 1024
    assert "resumed: 2,048 games read from disk" in resumed.summary()
    # a finished analysis resumes to itself without playing a game
    monkeypatch.setattr(openings_module, "run_many", None)
    again = analyse(2, out=tmp_path / "book", resume=True, **options)
    assert again.table.equals(whole.table)
    monkeypatch.setattr(openings_module, "run_many", real)
    with pytest.raises(CheckpointError, match="another analysis"):
        analyse(2, out=tmp_path / "book", resume=True, **{**options, "seed": 8})
    with pytest.raises(CheckpointError, match="already holds"):
        analyse(2, out=tmp_path / "book", **options)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"out": "x"}, "options of adaptive=True"),
        ({"batch": 1024}, "options of adaptive=True"),
        ({"adaptive": True, "batch": 1000}, "multiple of 1024"),
        ({"adaptive": True, "confidence": 1.5}, "confidence"),
        ({"adaptive": True, "confidence": "high"}, "confidence"),
        ({"adaptive": True, "resume": True}, "needs out="),
        ({"adaptive": "yes"}, "adaptive must be"),
    ],
)
def test_bad_adaptive_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(GenialError, match=message):
        analyse(2, games_per_opening=10, seed=1, **kwargs)


def test_the_command_line_races_writes_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from genial.cli import main

    where = tmp_path / "race"
    argv = ["openings", "--players", "2", "--games-per-opening", "32", "--policy",
            "mc:1:k1", "--adaptive", "--batch", "16", "--seed", "3", "--no-progress",
            "--rows", "1", "--out", str(where)]  # fmt: skip
    assert main(argv) == 0
    first = (where / "table.csv").read_text()
    assert first.count("\n") == 165 and "stopped_after" in first.splitlines()[0]
    assert main([*argv, "--resume"]) == 0  # finished: the same table, no game played
    assert (where / "table.csv").read_text() == first
    assert main(argv) == 2  # exists, no --resume: refused, nothing lost
    assert "already holds an analysis" in capsys.readouterr().err
    assert (where / "table.csv").read_text() == first
    assert main(["openings", "--resume", "--no-progress"]) == 2
    assert "need --adaptive" in capsys.readouterr().err


def test_ctrl_c_on_the_command_line_says_how_to_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in ``genial openings --adaptive --out DIR`` keeps the finished steps and says the
    command that goes on, with the seed the run drew when it was given none (issue 42)."""
    from genial.cli import PATH_LIMIT, main
    from genial.errors import excerpt

    real = openings_module.run_many
    calls = {"n": 0}

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    where = tmp_path / "race"
    argv = ["openings", "--players", "2", "--games-per-opening", "32", "--policy",
            "mc:1:k1", "--adaptive", "--batch", "16", "--no-progress", "--rows", "1",
            "--out", str(where)]  # fmt: skip
    monkeypatch.setattr(openings_module, "run_many", interrupted)
    assert main(argv) == 130
    err = capsys.readouterr().err
    kept = f"every finished step is kept in {excerpt(str(where), PATH_LIMIT)}"
    assert err.startswith(f"genial openings: interrupted; {kept}")
    again = err.split("goes on from there: ", 1)[1].strip()
    words = shlex.split(again)
    assert words[:2] == ["genial", "openings"] and words[-1] == "--resume"
    seed = words[words.index("--seed") + 1]
    assert seed.isdigit() and words.count("--resume") == 1
    monkeypatch.setattr(openings_module, "run_many", real)
    assert main(words[1:]) == 0  # the command it said goes on to the end
    plain = tmp_path / "plain"
    assert main([*argv[:-1], str(plain), "--seed", seed]) == 0
    assert (where / "table.csv").read_text() == (plain / "table.csv").read_text()


def test_the_race_shows_one_bar_with_its_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One bar for the whole race (the uniform analysis's games its total, the most the race
    can play), the games read back on a resume counted in it, and each round said as it
    begins; the confirmation has one bar of its own (issue 42)."""
    import io

    from genial.batch.progress import progress_lines

    options = {"games_per_opening": 32, "seed": 7, "workers": 2, "adaptive": True,
               "policy": "mc:1:k1", "batch": 16, "progress": True}  # fmt: skip
    lines = io.StringIO()
    with progress_lines("race", interval=0.0, stream=lines):
        analyse(2, out=tmp_path / "book", confirm=32, **options)
    shown = [line.split(": ", 1)[1].split(" games")[0] for line in lines.getvalue().splitlines()]
    race = [s for s in shown if s.endswith(f"/{164 * 32:,}")]
    done = [int(s.split("/")[0].replace(",", "")) for s in race]
    assert done == sorted(done) and done[-1] == 164 * 32  # one bar, to the end
    confirm = [s for s in shown if s not in race]
    assert confirm and all(s.split("/")[1] == confirm[-1].split("/")[0] for s in confirm)
    err = capsys.readouterr().err
    assert f"round 1 of the race begins: 164 of 164 classes still in it, {164 * 16:,} games" in err
    # resumed, the games read from disk move the bar as the games played do
    lines = io.StringIO()
    with progress_lines("race", interval=0.0, stream=lines):
        analyse(2, out=tmp_path / "book", confirm=32, resume=True, **options)
    last = lines.getvalue().splitlines()
    assert any(line.endswith(f"{164 * 32:,}/{164 * 32:,} games, 0 s") or
               f"{164 * 32:,}/{164 * 32:,} games" in line for line in last)  # fmt: skip


# -- the opening books -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "classes"), [(2, 164), (3, 308), (4, 436)])
def test_the_shipped_books(players: int, classes: int) -> None:
    from genial.openings import book

    result = book(players)
    meta = result.provenance
    assert meta is not None and len(result.table) == classes == len(set(result.table["class"]))
    assert all(p.partition(":")[0] in ("mc", "mcts") for p in meta["policy"])  # a search
    assert all(":value" in p for p in meta["policy"])
    assert meta["command"].startswith("genial openings") and "--adaptive" in meta["command"]
    assert meta["games"] == int(result.table["games"].sum()) and meta["seed"] is not None
    assert (result.table["win_rate_lo"] <= result.table["win_rate"]).all()
    best = result.table.iloc[0]
    assert best["win_rate"] == result.table["win_rate"].max()
    if players == 2:  # the bar: the best class to within 2.5 points
        assert best["win_rate_hi"] - best["win_rate"] <= 0.025
        assert best["win_rate"] - best["win_rate_lo"] <= 0.025


def small_book(where: Path) -> None:
    result = analyse(2, games_per_opening=16, seed=2, policy="mc:1:k1", adaptive=True)
    result.to_book(where, command="test")


def test_a_book_round_trips(tmp_path: Path) -> None:
    from genial.openings import read_book

    result = analyse(2, games_per_opening=16, seed=2, policy="mc:1:k1", adaptive=True)
    result.to_book(tmp_path / "b", command="test")
    back = read_book(tmp_path / "b")
    columns = ["class", "games", "wins", "win_rate", "win_rate_lo", "margin", "p_value"]
    assert back.table[columns].equals(result.table[columns])
    assert back.provenance is not None and back.provenance["command"] == "test"
    assert back.average == result.average and back.policy == result.policy


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("\n", "\n ", 3), "sha256"),
        (lambda t: None, "bad counts"),
        (lambda t: False, "every one of the 164"),
    ],
)
def test_a_damaged_book_is_refused(tmp_path: Path, edit, message: str) -> None:
    import hashlib

    from genial.openings import read_book

    where = tmp_path / "b"
    small_book(where)
    text = (where / "table.csv").read_text()
    changed = edit(text)
    if changed is None or changed is False:  # a consistent file with a wrong table
        import io

        import pandas as pd

        table = pd.read_csv(io.StringIO(text))
        if changed is None:
            table.loc[0, "wins"] = 999
        else:
            table = table.drop(index=5)
        changed = table.to_csv(index=False, lineterminator="\n")
        meta = json.loads((where / "book.json").read_text())
        meta["sha256"] = hashlib.sha256(changed.encode()).hexdigest()
        (where / "book.json").write_text(json.dumps(meta))
    (where / "table.csv").write_text(changed)
    with pytest.raises(GenialError, match=message):
        read_book(where)
    from genial.openings import book

    with pytest.raises(GenialError, match="2, 3 or 4"):
        book(5)


def test_the_docs_examples_run() -> None:
    """The Python blocks of docs/openings.md run as written."""
    result = run_examples("openings.md")
    assert result.attempted >= 4 and result.failed == 0


def _collect_in_a_thread(call: object, seconds: float = 60.0) -> dict[str, object]:
    """``call()`` in a daemon thread joined within ``seconds``: what it returned or raised,
    or ``{"hung": True}``."""
    import threading

    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()  # type: ignore[operator]
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        box["hung"] = True
    return box


def test_a_checkpoint_collected_while_another_opens_gives_its_lock_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint left in a reference cycle is collected by the garbage collector at any
    allocation: here while ``Checkpoint.open`` of another directory holds the process's table
    of locks. Its finalizer must not wait for that table (it deadlocked, found by CI), and its
    directory's lock must come back: a second writer may then open it."""
    import gc

    first = tmp_path / "first"
    check, _ = Checkpoint.open(first, {"a": 1}, resume=False, arrays=ARRAYS)
    check.cycle = check  # type: ignore[attr-defined]  # (only the collector frees it)
    del check
    loading = Checkpoint._load

    def load_collecting(self: Checkpoint, *args: object) -> object:
        assert gc.collect() > 0  # the abandoned checkpoint is collected here, mid-open
        return loading(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Checkpoint, "_load", load_collecting)
    gc.disable()
    try:
        box = _collect_in_a_thread(
            lambda: Checkpoint.open(tmp_path / "second", {"a": 1}, resume=False, arrays=ARRAYS)
        )
    finally:
        gc.enable()
    assert "hung" not in box, "Checkpoint.open deadlocked on a collected checkpoint's finalizer"
    assert "error" not in box, box.get("error")
    second, _ = box["value"]  # type: ignore[misc]
    monkeypatch.undo()
    from genial.files import DirectoryLock

    with DirectoryLock(first):  # the collected checkpoint's lock was given back
        pass
    with pytest.raises(CheckpointError, match="another writer"):
        DirectoryLock(tmp_path / "second", error=CheckpointError).acquire()
    second.close()
