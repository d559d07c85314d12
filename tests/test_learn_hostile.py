"""``genial.learn`` against a hostile user: its arguments, the models it writes, the weights
files it reads.

- **arguments**: every bad argument of ``train`` is refused before a game is played; ``fit``,
  ``predict``, ``log_loss`` and ``calibration`` refuse arrays of the wrong shape, non-finite
  numbers and targets outside [0, 1] with a ``GenialError`` naming the argument;
- **writing**: ``write_weights`` writes only files the kernel reads (all four models, finite
  weights, ``N_FEATURES`` each), and what it writes reads back (``read_weights``) as the same
  model; a refused model writes nothing;
- **reading**: ``read_weights`` raises ``WeightsError`` naming the file for anything wrong in
  it (FIFO, huge sparse file, deep nesting, huge numbers, wrong types) and never another
  exception; mutated files (hypothesis: truncation, bit flips, generated JSON replacing
  fields, huge numbers, deep nesting) read as a ``WeightsError`` or a valid model.

The property runs ``QUICK`` examples by default and ``LONG`` in its ``slow`` version
(``GENIAL_TESTS=full``; ``GENIAL_LEARN_EXAMPLES`` overrides the long count).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from genial import GenialError, _core, learn
from genial.learn import Model, WeightsError, read_weights, write_weights

from .depth import sized

QUICK = 40
LONG = sized("GENIAL_LEARN_EXAMPLES", full=1000, quick=1000)
NF = _core.N_FEATURES


def shipped_text() -> str:
    return resources.files("genial").joinpath("value_weights.json").read_text("utf-8")


def rehash(doc: dict[str, Any]) -> None:
    """Give ``doc`` the checksum the kernel computes of its ``models``."""
    body = json.dumps(doc["models"], sort_keys=True, separators=(",", ":"))
    doc["sha256"] = hashlib.sha256(body.encode()).hexdigest()


def valid_model(model: Model) -> None:
    """What a model read from a file must be: four rows of N_FEATURES finite floats."""
    assert sorted(model.weights) == [1, 2, 3, 4]
    for row in model.weights.values():
        assert len(row) == NF and all(isinstance(x, float) and math.isfinite(x) for x in row)
    assert isinstance(model.metrics, dict) and isinstance(model.provenance, dict)
    assert all(k in (1, 2, 3, 4) and isinstance(v, dict) for k, v in model.metrics.items())


# ------------------------------------------------------------------ train's arguments


class Played(Exception):
    """Raised by the stand-in for ``samples``: a game was about to be played."""


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise Played

    monkeypatch.setattr(learn, "samples", refuse)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 0}, "games must be from 1"),
        ({"games": 2.0}, "games must be an int"),
        ({"games": True}, "games must be an int"),
        ({"holdout": 0}, "holdout must be from 1"),
        ({"holdout": 10**20}, "holdout must be from 1"),
        ({"holdout": "5"}, "holdout must be an int"),
        ({"policy": "nope"}, "unknown policy"),
        ({"policy": ["greedy", "greedy"]}, "policy: one policy name"),
        ({"policy": None}, "policy: one policy name"),
        ({"policy": "epsilon-greedy:2"}, "epsilon"),
        ({"policy": "mc:0"}, "mc"),
        ({"models": ()}, "at least one"),
        ({"models": (2, 2)}, "each number of counter sets once"),
        ({"models": (0,)}, "from 1 to 4"),
        ({"models": (5,)}, "from 1 to 4"),
        ({"models": (True,)}, "from 1 to 4"),
        ({"models": (2.0,)}, "from 1 to 4"),
        ({"models": "12"}, "a sequence"),
        ({"models": 2}, "a sequence"),
        ({"models": (2, 7)}, "from 1 to 4"),  # nothing trained for 2 first
        ({"l2": math.nan}, "l2"),
        ({"l2": math.inf}, "l2"),
        ({"l2": -1e-9}, "l2"),
        ({"l2": 1e300}, "l2"),
        ({"l2": 10**400}, "l2"),
        ({"l2": True}, "l2"),
        ({"l2": "0.1"}, "l2"),
        ({"seed": True}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": "x"}, "seed"),
    ],
)
def test_train_checks_every_argument_before_playing(
    no_games: None, kwargs: dict[str, Any], message: str
) -> None:
    args = {"games": 2, "holdout": 1, **kwargs}
    with pytest.raises(GenialError, match=message):
        learn.train(**args)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"seed": None},
        {"seed": 0},
        {"seed": [1, 2, 3]},
        {"seed": np.random.SeedSequence(5)},
        {"seed": np.random.default_rng(2)},
        {"models": [4, 1]},
        {"models": np.array([3])},
        {"models": range(1, 5)},
        {"models": (np.int64(2),)},
        {"l2": 0},
        {"l2": np.float32(0.5)},
        {"policy": "random"},
        {"policy": "epsilon-greedy:0.3"},
        {"games": np.int32(3), "holdout": np.int64(2)},
    ],
)
def test_train_accepts_good_arguments(no_games: None, kwargs: dict[str, Any]) -> None:
    with pytest.raises(Played):  # the checks passed: the first game is about to be played
        learn.train(**{"games": 2, "holdout": 1, **kwargs})


# ------------------------------------------------------------------ writing


@pytest.fixture(scope="module")
def trained() -> Model:
    """All four models from a few games (cheap: the fit, not the play, is what is tested)."""
    return learn.train(3, holdout=2, seed=5)


def test_a_partial_model_is_never_written(tmp_path: Path) -> None:
    model = learn.train(2, holdout=1, seed=3, models=(2,))
    path = tmp_path / "w.json"
    path.write_text("before")
    with pytest.raises(WeightsError, match=r"lacks 1, 3, 4.*train\(models=\(1, 2, 3, 4\)\)"):
        write_weights(model, path)
    with pytest.raises(WeightsError, match="lacks 1, 3, 4"):
        model.to_json()
    assert path.read_text() == "before"
    assert sorted(os.listdir(tmp_path)) == ["w.json"]  # no temporary file left either


def test_what_write_weights_writes_the_kernel_reads(trained: Model, tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    write_weights(trained, path)
    rows = _core._parse_value_weights(path.read_text("utf-8"))
    assert rows == [trained.weights[n] for n in (1, 2, 3, 4)]
    back = read_weights(path)
    valid_model(back)
    assert back == trained
    write_weights(back, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_the_shipped_model_round_trips(tmp_path: Path) -> None:
    model = Model.shipped()
    valid_model(model)
    path = tmp_path / "w.json"
    write_weights(model, path)
    assert path.read_text("utf-8") == shipped_text()
    assert read_weights(path) == model
    assert _core._parse_value_weights(path.read_text("utf-8")) == [
        model.weights[n] for n in (1, 2, 3, 4)
    ]


def edited(**changes: Any) -> Model:
    base = Model.shipped()
    fields = {"weights": dict(base.weights), "metrics": dict(base.metrics), **changes}
    fields.setdefault("provenance", dict(base.provenance))
    return Model(**fields)


def with_row(n: int, row: Any) -> dict[Any, Any]:
    weights: dict[Any, Any] = dict(Model.shipped().weights)
    weights[n] = row
    return weights


def deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (edited(weights=with_row(2, [math.nan] * NF)), r"weights\[2\].*finite"),
        (edited(weights=with_row(3, [0.0] * (NF - 1) + [math.inf])), r"weights\[3\].*finite"),
        (edited(weights=with_row(1, [0.0] * (NF - 1))), f"{NF} numbers"),
        (edited(weights=with_row(1, [0.0] * (NF + 1))), f"{NF} numbers"),
        (edited(weights=with_row(4, [10**400] + [0.0] * (NF - 1))), r"weights\[4\]"),
        (edited(weights=with_row(4, ["1"] + [0.0] * (NF - 1))), r"weights\[4\]"),
        (edited(weights=with_row(4, [True] + [0.0] * (NF - 1))), "bool"),
        (edited(weights=with_row(4, np.zeros(NF, dtype=bool))), "bool"),
        (edited(weights=with_row(4, np.zeros((2, NF)))), r"weights\[4\]"),
        (edited(weights=with_row(4, None)), r"weights\[4\]"),
        (edited(weights=with_row(5, [0.0] * NF)), "1 to 4"),
        (edited(weights={True: [0.0] * NF, 2: [0.0] * NF, 3: [0.0] * NF, 4: [0.0] * NF}), "1 to 4"),
        (edited(weights={str(k): v for k, v in Model.shipped().weights.items()}), "1 to 4"),
        (edited(weights=[]), "a dict"),
        (edited(weights={}), "lacks 1, 2, 3, 4"),
        (edited(metrics={2: {"log_loss": math.nan}}), r"metrics\[2\].*finite"),
        (edited(metrics={0: {}}), "metrics: keys"),
        (edited(metrics={"2": {}}), "metrics: keys"),
        (edited(metrics={2: [1]}), r"metrics\[2\]: a dict"),
        (edited(metrics=[]), "metrics: a dict"),
        (edited(metrics={2: {"x": deep(20)}}), "nested deeper"),
        (edited(metrics={2: {"x": {1, 2}}}), "a JSON value"),
        (edited(metrics={2: {"x": 10**500}}), "too large"),
        (edited(provenance={"seed": np.float64(math.inf)}), r"provenance.*finite"),
        (edited(provenance={1: "x"}), "keys must be strings"),
        (edited(provenance="x"), "provenance: a dict"),
        (edited(provenance={"note": "x" * (2 << 20)}), "more than"),
        (edited(provenance={"f": print}), "a JSON value"),
    ],
)
def test_a_model_the_kernel_would_refuse_is_never_written(
    model: Model, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "w.json"
    with pytest.raises(WeightsError, match=message):
        write_weights(model, path)
    assert not path.exists() and os.listdir(tmp_path) == []


def test_write_weights_wants_a_model(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="Model"):
        write_weights({1: [0.0] * NF}, tmp_path / "w.json")  # type: ignore[arg-type]


def test_a_model_of_plain_json_alike_values_is_written_plainly(tmp_path: Path) -> None:
    """Tuples, numpy numbers and arrays in a model are written as plain JSON and read back."""
    model = edited(
        weights={n: np.asarray(row) for n, row in Model.shipped().weights.items()},
        metrics={np.int64(2): {"bins": (1, 2), "loss": np.float32(0.5), "ok": np.bool_(True)}},
        provenance={"games": np.int64(3)},
    )
    path = tmp_path / "w.json"
    write_weights(model, path)
    back = read_weights(path)
    assert back.weights == Model.shipped().weights
    assert back.metrics == {2: {"bins": [1, 2], "loss": 0.5, "ok": True}}
    assert back.provenance == {"games": 3}


# ------------------------------------------------------------------ fit and the measures


X = np.column_stack([np.ones(6), np.arange(6.0) / 6])
Y = np.array([0.0, 0.0, 0.5, 0.5, 1.0, 1.0])
W = np.array([0.1, 0.2])


@pytest.mark.parametrize(
    ("features", "targets", "kwargs", "message"),
    [
        (np.where(X == 1.0, np.nan, X), Y, {}, "features: every number must be finite"),
        (np.where(X == 1.0, np.inf, X), Y, {}, "features: every number must be finite"),
        (X[:, 0], Y, {}, "features: a 2-d array"),
        (X[None], Y, {}, "features: a 2-d array"),
        (np.ones((0, 2)), np.ones(0), {}, "features: one position"),
        (np.ones((6, 0)), Y, {}, "features: one position"),
        (X.astype(str), Y, {}, "features: an array of numbers"),
        (X.astype(complex), Y, {}, "features: an array of numbers"),
        ([[1.0, 2.0], [3.0]], Y, {}, "features: not an array"),
        ([[10**400, 1]] * 6, Y, {}, "features: an array of numbers"),
        ("features", Y, {}, "features: an array of numbers"),
        (X, Y + 0.5, {}, r"targets: results in \[0, 1\]"),
        (X, Y - 0.5, {}, r"targets: results in \[0, 1\]"),
        (X, np.where(Y == 0.5, np.nan, Y), {}, "targets: every number must be finite"),
        (X, Y[:5], {}, "targets: one per position"),
        (X, Y[:, None], {}, "targets: a 1-d array"),
        (X, Y, {"l2": math.nan}, "l2"),
        (X, Y, {"l2": -1.0}, "l2"),
        (X, Y, {"l2": "1"}, "l2"),
        (X, Y, {"max_iter": 0}, "max_iter"),
        (X, Y, {"max_iter": 1.5}, "max_iter"),
        (X * 1e200, Y, {}, "overflow"),
    ],
)
def test_fit_refuses_bad_data(
    features: Any, targets: Any, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(GenialError, match=message):
        learn.fit(features, targets, **kwargs)


def test_fit_takes_what_it_took() -> None:
    w = learn.fit(X.astype(np.float32), Y.astype(np.float32), l2=0)
    assert w.shape == (2,) and np.all(np.isfinite(w))
    assert np.array_equal(learn.fit(X.tolist(), Y.tolist(), l2=0), w.astype(np.float64)) or (
        np.allclose(learn.fit(X.tolist(), Y.tolist(), l2=0), w)
    )
    assert np.array_equal(learn.fit(X, (Y > 0.5).astype(int)), learn.fit(X, Y > 0.5))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: learn.predict([np.nan, 0.0], X), "weights: every number must be finite"),
        (lambda: learn.predict([], np.ones((2, 0))), "weights: one number or more"),
        (lambda: learn.predict(W, X[:, :1]), "features: 2 numbers per position"),
        (lambda: learn.predict(W, np.ones((2, 2, 2))), "features: a 1-d or 2-d array"),
        (lambda: learn.predict(W, [[np.inf, 0.0]]), "features: every number must be finite"),
        (lambda: learn.predict([1e300, 1e300], [[1e300, -1e300]]), "overflows"),
        (lambda: learn.log_loss(W, X, Y * 2), r"targets: results in \[0, 1\]"),
        (lambda: learn.log_loss(W, X, Y[:3]), "targets: one per position"),
        (lambda: learn.log_loss(W, X[0], Y[:1]), "features: a 2-d array"),
        (lambda: learn.log_loss(W[:1], X, Y), "features: 1 columns"),
        (lambda: learn.log_loss(W, np.ones((0, 2)), []), "features: one position"),
        (lambda: learn.calibration(W, X, Y, bins=0), "bins"),
        (lambda: learn.calibration(W, X, Y, bins=True), "bins"),
        (lambda: learn.calibration(W, X, -Y), r"targets: results in \[0, 1\]"),
        (lambda: learn.calibration([[0.1, 0.2]], X, Y), "weights: a 1-d array"),
    ],
)
def test_the_measures_refuse_bad_arrays(call: Any, message: str) -> None:
    with pytest.raises(GenialError, match=message):
        call()


def test_the_measures_take_good_arrays() -> None:
    assert learn.predict(W, X[0]).shape == ()
    assert learn.predict(W, X).shape == (6,)
    assert math.isfinite(learn.log_loss(W.tolist(), X.tolist(), Y.tolist()))
    _, obs, count = learn.calibration(W, X, Y, bins=1)
    assert count.tolist() == [6] and obs[0] == pytest.approx(Y.mean())


# ------------------------------------------------------------------ reading hostile files


def valid_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(shipped_text())
    return doc


def text_with(edit: Any, hashed: bool = True) -> str:
    doc = valid_doc()
    edit(doc)
    if hashed:
        rehash(doc)
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "JSON"),
        ("[]", "not a weights file"),
        ('"x"', "not a weights file"),
        (shipped_text()[:-30], "JSON"),
        (shipped_text().replace("0.", "NaN", 1), "JSON"),
        (shipped_text().replace("0.", "Infinity + 0.", 1), "JSON"),
        (shipped_text().replace("0.", "1e400 + 0.", 1), "JSON"),
        (shipped_text().replace("0.", "1" + "0" * 400 + " + 0.", 1), "JSON"),
        (text_with(lambda d: d["models"]["2"].__setitem__(0, 10**320)), r"finite|too large"),
        (text_with(lambda d: d["models"]["2"].__setitem__(0, True)), "finite"),
        (text_with(lambda d: d["models"]["2"].__setitem__(0, None)), "finite"),
        (text_with(lambda d: d["models"]["2"].pop()), f"model 2: {NF}"),
        (text_with(lambda d: d["models"].pop("3")), "models"),
        (text_with(lambda d: d["models"].__setitem__("5", [0.0] * NF)), "models"),
        (text_with(lambda d: d.__setitem__("models", [])), "models"),
        (text_with(lambda d: d.__setitem__("format", 1)), "genial-value-1"),
        (text_with(lambda d: d.__setitem__("features", "40")), "features"),
        (text_with(lambda d: d.__setitem__("features", 1e300)), "features"),
        (text_with(lambda d: d.__setitem__("features", [40])), "features"),
        (text_with(lambda d: d.__setitem__("sha256", 5), hashed=False), "checksum"),
        (text_with(lambda d: d["models"]["1"].__setitem__(0, 9.0), hashed=False), "checksum"),
        (text_with(lambda d: d.__setitem__("metrics", [])), "metrics: a dict"),
        (text_with(lambda d: d.__setitem__("metrics", None)), "metrics: a dict"),
        (text_with(lambda d: d["metrics"].__setitem__("7", {})), "metrics: keys"),
        (text_with(lambda d: d["metrics"].__setitem__("02", {})), "metrics: keys"),
        (text_with(lambda d: d["metrics"].__setitem__("2", [])), r"metrics\[2\]: a dict"),
        (text_with(lambda d: d["metrics"]["2"].__setitem__("x", deep(30))), r"metrics\[2\]"),
        (text_with(lambda d: d.__setitem__("provenance", "x")), "provenance: a dict"),
        (text_with(lambda d: d["provenance"].__setitem__("x", deep(30))), "provenance"),
    ],
)
def test_damaged_files_are_refused(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    path.write_text(text, "utf-8")
    with pytest.raises(WeightsError, match=message) as caught:
        read_weights(path)
    assert "weights.json" in str(caught.value)


def test_metrics_nested_100000_deep_and_huge_numbers(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    depth = 100_000
    path.write_text(
        shipped_text().replace(
            '"metrics": {', '"metrics": {"9": ' + "[" * depth + "]" * depth + ","
        )
    )
    with pytest.raises(WeightsError, match="nested deeper"):
        read_weights(path)
    path.write_text(shipped_text().replace('"metrics": {', '"metrics": {"9": {},'))
    with pytest.raises(WeightsError, match="metrics: keys"):
        read_weights(path)
    doc = valid_doc()
    doc["models"]["2"][0] = 10**399  # 400 digits: read as JSON, then refused as no double
    rehash(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(WeightsError, match=r"model 2|too large"):
        read_weights(path)


def test_files_that_are_not_weights_files(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(WeightsError, match=r"fifo'?: not a regular file"):
        read_weights(fifo)  # (never waits for a writer)
    sparse = tmp_path / "sparse.json"
    with open(sparse, "wb") as file:
        file.truncate(1 << 40)  # a terabyte of holes: refused by its size, never read
    with pytest.raises(WeightsError, match=r"sparse\.json'?: 1,099,511,627,776 bytes"):
        read_weights(sparse)
    with pytest.raises(WeightsError, match="not a regular file"):
        read_weights(tmp_path)
    with pytest.raises(WeightsError, match=r"missing\.json'?: cannot be read"):
        read_weights(tmp_path / "missing.json")
    latin = tmp_path / "latin.json"
    latin.write_bytes(shipped_text().replace('"genial', '"g\xe9nial', 1).encode("latin-1"))
    with pytest.raises(WeightsError, match="not UTF-8"):
        read_weights(latin)
    with pytest.raises(WeightsError, match="not a file name"):
        read_weights(str(tmp_path / "a\0b"))
    for path in (None, 3.5, ["w.json"]):
        with pytest.raises(WeightsError, match="path"):
            read_weights(path)  # type: ignore[arg-type]


def test_a_file_without_metrics_or_provenance_reads(tmp_path: Path) -> None:
    doc = valid_doc()
    del doc["metrics"], doc["provenance"]
    doc["comment"] = {"ignored": [1, 2]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    model = read_weights(path)
    assert model.weights == Model.shipped().weights
    assert model.metrics == {} and model.provenance == {}


# ------------------------------------------------------------------ mutated files (hypothesis)


BASE = shipped_text()
PATHS: list[tuple[Any, ...]] = [
    (),
    ("format",),
    ("features",),
    ("models",),
    ("sha256",),
    ("metrics",),
    ("provenance",),
    ("models", "2"),
    ("models", "1", 0),
    ("models", "4", NF - 1),
    ("metrics", "2"),
    ("metrics", "3", "log_loss"),
    ("metrics", "1", "calibration"),
    ("metrics", "4", "calibration", 0),
    ("provenance", "seed"),
    ("provenance", "command"),
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**450), max_value=10**450)
    | st.floats()
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
number_texts = st.one_of(
    st.integers(min_value=1, max_value=1200).map(lambda n: "1" + "0" * n),
    st.integers(min_value=-2000, max_value=2000).map(lambda e: f"1e{e}"),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "-0", "1.", ".5", "0x10", "1_0", "+1"]),
)
nest_texts = st.integers(min_value=1, max_value=100_000).flatmap(
    lambda d: st.sampled_from(["[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, "[" * d])
)


def place(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """``doc`` with the value at ``path`` replaced (the whole document for ``()``); a path
    that no longer exists leaves it unchanged."""
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return doc
    with contextlib.suppress(IndexError, TypeError):
        node[path[-1]] = value
    return doc


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid weights file (as ``write_weights`` writes it), damaged one of several ways."""
    raw = BASE.encode("utf-8")
    kind = draw(st.sampled_from(["truncate", "flip", "splice", "replace", "number", "nest"]))
    if kind == "truncate":
        return raw[: draw(st.integers(0, len(raw) - 1))]
    if kind == "flip":
        data = bytearray(raw)
        for _ in range(draw(st.integers(1, 8))):
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
        return bytes(data)
    if kind == "splice":
        i = draw(st.integers(0, len(raw)))
        return raw[:i] + draw(st.binary(max_size=40)) + raw[i:]
    path = draw(st.sampled_from(PATHS))
    rehashed = draw(st.booleans())
    marker = "\u2603MUTANT\u2603"
    if kind == "replace":
        doc = place(valid_doc(), path, draw(json_values))
        if rehashed and isinstance(doc, dict) and isinstance(doc.get("models"), dict):
            rehash(doc)
        return json.dumps(doc).encode("utf-8")  # (NaN and Infinity written as such)
    text = draw(number_texts if kind == "number" else nest_texts)
    doc = place(valid_doc(), path, marker)
    out = json.dumps(doc).replace(f'"{marker}"', text)
    if rehashed and isinstance(doc, dict) and isinstance(doc.get("models"), dict):
        try:  # the checksum of what a plain JSON reader makes of it (the kernel's view)
            plain = json.loads(out)
            doc["sha256"] = hashlib.sha256(
                json.dumps(plain["models"], sort_keys=True, separators=(",", ":")).encode()
            ).hexdigest()
            out = json.dumps(doc).replace(f'"{marker}"', text)
        except (ValueError, RecursionError, TypeError, KeyError):
            pass
    return out.encode("utf-8")


def check_mutant(data: bytes, folder: Path) -> str:
    """Read ``data`` as a weights file: a WeightsError naming it, or a valid model the kernel
    reads too and that writes back as itself."""
    path = folder / "mutant.json"
    path.write_bytes(data)
    try:
        model = read_weights(path)
    except WeightsError as error:
        message = str(error)
    else:
        message = ""
    if message:
        assert "mutant.json" in message and len(message) < 1000
        return "refused"
    valid_model(model)
    rows = _core._parse_value_weights(data.decode("utf-8"))
    assert rows == [model.weights[n] for n in (1, 2, 3, 4)]
    write_weights(model, folder / "again.json")
    assert read_weights(folder / "again.json") == model
    return "read"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mutants")


@settings(max_examples=QUICK, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_read_or_are_refused(folder: Path, data: bytes) -> None:
    event(check_mutant(data, folder))


@pytest.mark.slow
@settings(max_examples=LONG, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_read_or_are_refused_long(folder: Path, data: bytes) -> None:
    event(check_mutant(data, folder))


def test_the_mutations_reach_both_outcomes(tmp_path: Path) -> None:
    """The strategy is no straw man: seeded draws of it give both refused and valid files."""
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, database=None, derandomize=True)
    @given(mutated())
    def run(data: bytes) -> None:
        seen.add(check_mutant(data, tmp_path))

    run()
    assert seen == {"refused", "read"}
