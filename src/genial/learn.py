"""The learned evaluation of the board game: its training data, its fit, its weights file.

The ``value`` policy (``genial.policies``) scores each of greedy's best placements by the
position just after it, as the kernel's evaluation rates it for the mover: a logistic model of
``N_FEATURES`` features of that position, from the mover's view only (its counters and the
leading opponent's, sorted; the best open line per colour on the board; its rack once refilled,
the draws counted at their expected shares among the tiles it has not seen; the bonus plays it
is owed; how far the game is). docs/value.md lists them. The model estimates the share of
first place the mover ends with (solo: its lowest counter over the cap), one weight vector per
number of counter sets: 1 (solo), 2 (two players; the team game uses it too), 3 and 4.

This module makes the weights genial ships (``genial/value_weights.json``) and lets anyone make
them again: :func:`samples` plays games in the kernel and records, after every placement, the
features and the seat's final result; :func:`fit` is logistic regression by Newton's method
(numpy only); :func:`train` does both for every model, measures the log loss and calibration on
games it did not train on, and :func:`write_weights` writes the file the kernel reads (when a
value policy first needs it), refusing any model the kernel would refuse (all four models,
finite weights). :func:`read_weights` reads a weights file back as untrusted input (a
:class:`WeightsError` naming the file and the field for anything wrong in it). The command
line is ``genial learn`` (``python -m genial learn --help``).

>>> s = samples(Rules(2), 20, seed=1)
>>> s.features.shape[1] == N_FEATURES and len(s.targets) == len(s.features) > 500
True
>>> w = fit(s.features, s.targets)
>>> 0.0 < log_loss(w, s.features, s.targets) < 0.7
True
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _core
from ._version import __version__
from .board.rules import Rules
from .errors import GenialError, checked_int, checked_real, excerpt, is_int
from .files import MAX_NUMBER_DIGITS, load_json, read_bounded, write_atomic
from .policies import kernel_policies, parse_policies, parse_policy
from .seeds import POLICY_STREAM, as_seed_sequence, child_seed, stream

__all__ = [
    "FORMAT",
    "MAX_WEIGHTS_BYTES",
    "MODELS",
    "N_FEATURES",
    "Model",
    "Samples",
    "WeightsError",
    "calibration",
    "fit",
    "log_loss",
    "predict",
    "read_weights",
    "samples",
    "train",
    "write_weights",
]

N_FEATURES: int = _core.N_FEATURES
FORMAT = "genial-value-1"
MODELS: dict[int, Rules] = {1: Rules(1), 2: Rules(2), 3: Rules(3), 4: Rules(4)}
"""The rules each model is trained under, by its number of counter sets."""

MAX_WEIGHTS_BYTES = 1 << 20
"""The most a weights file may hold (one is about 20 KB): :func:`read_weights` refuses more,
and :meth:`Model.to_json` never writes more."""

_MAX_GAMES = 10_000_000
_MAX_L2 = 1e6
_MAX_ITER = 1_000
_MAX_BINS = 10_000
_FIELD_DEPTH = 16  # how deep one model's metrics, or the provenance, may nest
_MAX_INT_BITS = int(MAX_NUMBER_DIGITS * 3.32)  # (an int of at most MAX_NUMBER_DIGITS digits)


class WeightsError(GenialError):
    """A weights file that cannot be read, or a :class:`Model` that cannot be written as one
    the kernel reads; the message names the file (or the model) and the field."""


@dataclass(frozen=True)
class Samples:
    """Training positions: ``features`` (``(n, N_FEATURES)`` float32), the seat that had just
    placed (``seats``), its result (``targets``: share of first place, or solo's lowest counter
    over the cap), and the number of games they come from."""

    features: npt.NDArray[np.float32]
    seats: npt.NDArray[np.int16]
    targets: npt.NDArray[np.float32]
    games: int

    def __repr__(self) -> str:
        return f"<Samples: {len(self.targets):,} positions from {self.games:,} games>"


# -- the arguments -----------------------------------------------------------------------------


def _games(games: object, what: str = "games") -> int:
    if not is_int(games):
        raise GenialError(f"{what} must be an int, got {excerpt(games)}")
    assert isinstance(games, (int, np.integer))
    if not 1 <= games <= _MAX_GAMES:
        raise GenialError(f"{what} must be from 1 to {_MAX_GAMES:,}, got {excerpt(int(games))}")
    return int(games)


def _l2(l2: object) -> float:
    """``l2`` as a float: a finite number from 0 to ``_MAX_L2`` (a larger penalty fits nothing
    but the bias, and one near the largest double overflows the Newton steps)."""
    return checked_real(l2, "l2", 0.0, _MAX_L2)


def _models(models: object) -> tuple[int, ...]:
    """``models`` as a tuple: a non-empty sequence of distinct ints from 1 to 4 (no bools)."""
    if isinstance(models, (str, bytes, bytearray)) or not isinstance(
        models, (Sequence, np.ndarray)
    ):
        raise GenialError(
            f"models: a sequence of numbers of counter sets (1 to 4), got {excerpt(models)}"
        )
    items = list(models)
    if not items:
        raise GenialError("models: at least one number of counter sets (1 to 4), got none")
    for k in items:
        if not is_int(k) or int(k) not in MODELS:
            raise GenialError(f"models: numbers of counter sets from 1 to 4, got {excerpt(k)}")
    ks = tuple(int(k) for k in items)
    if len(set(ks)) != len(ks):
        raise GenialError(f"models: each number of counter sets once, got {excerpt(list(ks))}")
    return ks


def _train_policy(policy: object, ks: Sequence[int]) -> str:
    """``policy`` checked as ``samples`` will use it under every model's rules: one name."""
    if not isinstance(policy, str):
        raise GenialError(f"policy: one policy name (every seat plays it), got {excerpt(policy)}")
    parse_policy(policy)
    for k in ks:
        names, eps = parse_policies(policy, MODELS[k].players)
        kernel_policies(names, eps)
    return policy


def _numbers(value: object, what: str, ndims: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """``value`` as a float64 array of one of ``ndims`` dimensions, every entry finite."""
    try:
        raw = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise GenialError(f"{what}: not an array of numbers ({excerpt(str(exc), 80)})") from None
    if raw.dtype.kind not in "biuf":
        raise GenialError(f"{what}: an array of numbers expected, got one of {raw.dtype}")
    if raw.ndim not in ndims:
        shapes = " or ".join(f"{d}-d" for d in ndims)
        raise GenialError(f"{what}: a {shapes} array expected, got shape {raw.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        array = raw.astype(np.float64)
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise GenialError(
            f"{what}: every number must be finite, got {array[where]} at index "
            f"{where[0] if len(where) == 1 else where}"
        )
    return array


def _features(features: object, k: int | None = None) -> npt.NDArray[np.float64]:
    """``features``: a 2-d array of finite numbers (``k`` columns if given), one row or more."""
    x = _numbers(features, "features", (2,))
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise GenialError(f"features: one position (row) or more expected, got shape {x.shape}")
    if k is not None and x.shape[1] != k:
        raise GenialError(f"features: {k} columns (one per weight) expected, got {x.shape[1]}")
    return x


def _targets(targets: object, n: int) -> npt.NDArray[np.float64]:
    """``targets``: ``n`` finite numbers in [0, 1] (one per row of the features)."""
    y = _numbers(targets, "targets", (1,))
    if y.shape != (n,):
        raise GenialError(f"targets: one per position of the features ({n:,}), got {len(y):,}")
    outside = (y < 0.0) | (y > 1.0)
    if outside.any():
        i = int(np.argmax(outside))
        raise GenialError(f"targets: results in [0, 1] expected, got {y[i]} at index {i}")
    return y


def _weights(weights: object) -> npt.NDArray[np.float64]:
    w = _numbers(weights, "weights", (1,))
    if len(w) == 0:
        raise GenialError("weights: one number or more expected, got none")
    return w


# -- the games and the fit ---------------------------------------------------------------------


def samples(
    rules: Rules, games: int, *, policy: str | Sequence[str] = "greedy", seed: Any = None
) -> Samples:
    """Play ``games`` games under ``rules`` with ``policy`` (one name, or one per seat) and
    record, after every placement that does not end the game, the features of the position for
    the seat that placed and, once the game is over, that seat's result. The games come from
    ``seed`` (chance and policy on separate streams, as in ``simulate``)."""
    if not isinstance(rules, Rules):
        raise GenialError(f"rules: a genial.Rules, got {excerpt(rules)}")
    n = _games(games)
    names, eps = parse_policies(policy, rules.players)
    codes, epsilons, search = kernel_policies(names, eps)
    root = as_seed_sequence(seed)
    r = rules.radius
    per_game = (3 * r * (r + 1) + 1) // 2 + 1  # more than its placements: half its cells
    features = np.empty((n * per_game, N_FEATURES), dtype=np.float32)
    seats = np.empty(n * per_game, dtype=np.int16)
    targets = np.empty(n * per_game, dtype=np.float32)
    played, rows = _core.value_samples(
        rules.core(),
        stream(root),
        stream(child_seed(root, POLICY_STREAM)),
        codes,
        epsilons,
        search,
        features,
        seats,
        targets,
        n,
    )
    if played != n:  # (never: the arrays hold every game's rows)
        raise RuntimeError(f"value_samples played {played} of {n} games")
    return Samples(features[:rows].copy(), seats[:rows].copy(), targets[:rows].copy(), n)


def _logistic(w: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    with np.errstate(over="ignore", invalid="ignore"):
        z = x @ w
    if not np.all(np.isfinite(z)):  # (finite inputs whose products overflow a double)
        raise GenialError(
            "features @ weights overflows a double: features and weights of that size "
            "are no model of a game"
        )
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0))), dtype=np.float64)


def predict(weights: npt.ArrayLike, features: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The model's estimates: the logistic of ``features @ weights``, as the kernel computes it
    (the sum clipped to [-40, 40]). ``weights`` is ``k`` finite numbers, ``features`` one
    position (``k`` numbers) or one per row (``(n, k)``); ``GenialError`` naming the argument
    otherwise."""
    w = _weights(weights)
    x = _numbers(features, "features", (1, 2))
    if x.shape[-1] != len(w):
        raise GenialError(
            f"features: {len(w)} numbers per position (one per weight), got {x.shape[-1]}"
        )
    return _logistic(w, x)


def log_loss(weights: npt.ArrayLike, features: npt.ArrayLike, targets: npt.ArrayLike) -> float:
    """The mean cross-entropy of the estimates against the (fractional) targets, in nats:
    ``features`` ``(n, k)`` for ``k`` weights, ``n`` targets in [0, 1]."""
    w = _weights(weights)
    x = _features(features, len(w))
    y = _targets(targets, len(x))
    p = np.clip(_logistic(w, x), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def calibration(
    weights: npt.ArrayLike, features: npt.ArrayLike, targets: npt.ArrayLike, bins: int = 10
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """``(mean estimate, mean target, positions)`` in each of ``bins`` (1 to 10,000)
    equal-width bins of the estimate (empty bins: nan): a calibrated model has the first two
    equal. The arrays are checked as :func:`log_loss` checks them."""
    nbins = checked_int(bins, "bins", 1, _MAX_BINS)
    w = _weights(weights)
    x = _features(features, len(w))
    y = _targets(targets, len(x))
    p = _logistic(w, x)
    which = np.minimum((p * nbins).astype(np.int64), nbins - 1)
    count = np.bincount(which, minlength=nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.bincount(which, weights=p, minlength=nbins) / count
        obs = np.bincount(which, weights=y, minlength=nbins) / count
    return est, obs, count


def fit(
    features: npt.ArrayLike, targets: npt.ArrayLike, *, l2: float = 1e-4, max_iter: int = 50
) -> npt.NDArray[np.float64]:
    """Logistic regression of ``targets`` (in [0, 1]) on ``features`` by Newton's method, with
    an L2 penalty ``l2`` per position on every weight but the bias (feature 0); stops when a
    step changes no weight by more than 1e-9. Deterministic: the same data, the same weights.

    ``features`` is a 2-d array of finite numbers, one row per position (any number of columns,
    the first the bias; ``samples`` gives ``N_FEATURES``), ``targets`` one finite number in
    [0, 1] per row, ``l2`` a number from 0 to 1e6, ``max_iter`` an int from 1 to 1,000:
    ``GenialError`` naming the argument otherwise, or if the steps overflow (features too
    large to fit)."""
    x = _features(features)
    y = _targets(targets, len(x))
    lam = _l2(l2)
    iterations = checked_int(max_iter, "max_iter", 1, _MAX_ITER)
    n, k = x.shape
    penalty = np.full(k, lam * n)
    penalty[0] = 0.0
    w = np.zeros(k)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(iterations):
            p = _logistic(w, x)
            grad = x.T @ (p - y) + penalty * w
            hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(k)
            try:
                step = np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:
                step = np.full(k, np.nan)
            if not np.all(np.isfinite(step)):
                raise GenialError(
                    "fit: the Newton steps overflow: features of this size cannot be fitted "
                    "(scale them)"
                )
            w -= step
            if np.max(np.abs(step)) < 1e-9:
                break
    return w


# -- the model and its file --------------------------------------------------------------------


def _json_value(value: object, field: str, error: type[GenialError], depth: int = 1) -> Any:
    """``value`` as plain JSON (tuples as lists, numpy scalars as Python numbers), checked:
    at most ``_FIELD_DEPTH`` deep, string keys, finite numbers, ints of at most
    ``MAX_NUMBER_DIGITS`` digits; ``error`` naming ``field`` otherwise."""
    if depth > _FIELD_DEPTH:
        raise error(f"{field}: nested deeper than {_FIELD_DEPTH}")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if is_int(value):
        assert isinstance(value, (int, np.integer))
        if int(value).bit_length() > _MAX_INT_BITS:
            raise error(f"{field}: {excerpt(int(value))}, an int too large")
        return int(value)
    if isinstance(value, (float, np.floating)):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise error(f"{field}: {number} is not a finite number")
        return number
    if isinstance(value, (list, tuple)):
        return [_json_value(v, f"{field}[{i}]", error, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if not isinstance(key, str):
                raise error(f"{field}: keys must be strings, got {excerpt(key)}")
            out[key] = _json_value(v, f"{field}[{excerpt(key, 20)}]", error, depth + 1)
        return out
    raise error(
        f"{field}: a JSON value (number, string, list, dict) expected, got {excerpt(value)}"
    )


def _checked_metrics(
    metrics: object, where: str, error: type[GenialError], from_file: bool
) -> dict[int, dict[str, Any]]:
    """One dict per model (1 to 4), plain JSON: the keys are ints in a Model, their decimal
    strings in a file."""
    if not isinstance(metrics, dict):
        raise error(
            f"{where}metrics: a dict of the models' metrics expected, got {excerpt(metrics)}"
        )
    out: dict[int, dict[str, Any]] = {}
    for key, value in metrics.items():
        if from_file:
            ok = isinstance(key, str) and key in {str(k) for k in MODELS}
        else:
            ok = is_int(key) and int(key) in MODELS
        if not ok:
            expected = '"1" to "4"' if from_file else "1 to 4"
            raise error(
                f"{where}metrics: keys are the numbers of counter sets {expected}, "
                f"got {excerpt(key)}"
            )
        if not isinstance(value, dict):
            raise error(f"{where}metrics[{key}]: a dict expected, got {excerpt(value)}")
        out[int(key)] = _json_value(value, f"{where}metrics[{key}]", error)
    return dict(sorted(out.items()))


def _checked_provenance(provenance: object, where: str, error: type[GenialError]) -> dict[str, Any]:
    if not isinstance(provenance, dict):
        raise error(f"{where}provenance: a dict expected, got {excerpt(provenance)}")
    checked = _json_value(provenance, f"{where}provenance", error)
    assert isinstance(checked, dict)
    return checked


def _checked_weights(weights: object) -> dict[int, list[float]]:
    """A model's weights as the kernel needs them: one row of ``N_FEATURES`` finite numbers for
    each of 1, 2, 3 and 4 counter sets; ``WeightsError`` naming what is missing or wrong."""
    if not isinstance(weights, dict):
        raise WeightsError(
            f"model weights: a dict by number of counter sets, got {excerpt(weights)}"
        )
    for key in weights:
        if not is_int(key) or int(key) not in MODELS:
            raise WeightsError(
                f"model weights: keys are the numbers of counter sets 1 to 4, got {excerpt(key)}"
            )
    missing = sorted(set(MODELS) - {int(k) for k in weights})
    if missing:
        raise WeightsError(
            f"model weights: the kernel needs a model for each of 1, 2, 3 and 4 counter sets; "
            f"this one lacks {', '.join(map(str, missing))}: train them all "
            "(train(models=(1, 2, 3, 4)))"
        )
    rows: dict[int, list[float]] = {}
    for key, row in weights.items():
        k = int(key)
        if isinstance(row, (list, tuple)) and any(isinstance(x, (bool, np.bool_)) for x in row):
            raise WeightsError(f"model weights[{k}]: numbers expected, got a bool")
        if isinstance(row, np.ndarray) and row.dtype.kind == "b":
            raise WeightsError(f"model weights[{k}]: numbers expected, got an array of bools")
        try:
            array = _numbers(row, f"model weights[{k}]", (1,))
        except GenialError as exc:
            raise WeightsError(str(exc)) from None
        if len(array) != N_FEATURES:
            raise WeightsError(
                f"model weights[{k}]: {N_FEATURES} numbers (one per feature), got {len(array)}"
            )
        rows[k] = [float(x) for x in array]
    return dict(sorted(rows.items()))


def _parse_kernel(text: str, where: str) -> list[list[float]]:
    """The kernel's reading of a weights file's text (the one the value policy uses)."""
    try:
        rows = _core._parse_value_weights(text)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise WeightsError(f"{where}{excerpt(str(exc), 200)}") from None
    return [[float(x) for x in row] for row in rows]


@dataclass(frozen=True)
class Model:
    """The weights of every model (by number of counter sets), how well each predicts games
    it did not see (``metrics``: log loss, that of the constant estimate, calibration bins,
    positions), and how they were made (``provenance``).

    Only a model of all four numbers of counter sets (1 to 4) makes a weights file
    (:meth:`to_json`, :func:`write_weights`): the kernel needs them all."""

    weights: dict[int, list[float]]
    metrics: dict[int, dict[str, Any]] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def plot_calibration(self, path: str | os.PathLike[str] | None = None) -> Any:
        """A figure of the held-out calibration of every model (docs/value.md), saved to
        ``path`` if given; returns the matplotlib Figure. Needs ``genial-sim[plot]``."""
        from .board.pictures import calibration_figure

        figure = calibration_figure(self.metrics)
        if path is not None:
            figure.savefig(path, dpi=110, bbox_inches="tight")
        return figure

    @classmethod
    def shipped(cls) -> Model:
        """The model genial ships (``genial/value_weights.json``), read by :func:`read_weights`
        (checked as the kernel checks it; ``WeightsError`` if it is damaged).

        >>> sorted(Model.shipped().weights)
        [1, 2, 3, 4]
        """
        from importlib import resources

        source = resources.files("genial").joinpath("value_weights.json")
        with resources.as_file(source) as path:
            return _read_weights(path, "genial/value_weights.json")

    def to_json(self) -> str:
        """The weights file's text (``FORMAT``), with the SHA-256 the kernel checks; the text
        is one the kernel reads (checked before it is returned). ``WeightsError`` if the model
        cannot make one: a model missing any of 1 to 4 counter sets (``train`` with fewer
        ``models``), a weight not finite or a row not of ``N_FEATURES``, metrics or provenance
        that are not plain JSON of finite numbers at most 16 deep, a file over
        ``MAX_WEIGHTS_BYTES``."""
        weights = _checked_weights(self.weights)
        metrics = _checked_metrics(self.metrics, "model ", WeightsError, from_file=False)
        provenance = _checked_provenance(self.provenance, "model ", WeightsError)
        models = {str(k): v for k, v in weights.items()}
        body = json.dumps(models, sort_keys=True, separators=(",", ":"))
        doc = {
            "format": FORMAT,
            "features": N_FEATURES,
            "models": models,
            "sha256": hashlib.sha256(body.encode()).hexdigest(),
            "metrics": {str(k): v for k, v in metrics.items()},
            "provenance": provenance,
        }
        text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
        size = len(text.encode("utf-8"))
        if size > MAX_WEIGHTS_BYTES:
            raise WeightsError(
                f"model: its weights file would hold {size:,} bytes, more than the "
                f"{MAX_WEIGHTS_BYTES:,} a reader accepts (metrics or provenance too large)"
            )
        _parse_kernel(text, "model: the kernel would refuse its weights file: ")
        return text


def train(
    games: int = 20_000,
    *,
    holdout: int = 2_000,
    policy: str = "greedy",
    seed: Any = 1,
    models: Sequence[int] = (1, 2, 3, 4),
    l2: float = 1e-4,
) -> Model:
    """Fit every model in ``models`` on the positions of ``games`` games played with ``policy``
    under its rules (``MODELS``) and measure it on ``holdout`` other games (another stream of
    the same seed): its log loss, the constant estimate's, and its calibration. The
    provenance records the seed's entropy, so a run from fresh entropy (``seed=None``) can be
    made again.

    Every argument is checked before a game is played (``GenialError`` naming it): ``games``
    and ``holdout`` ints from 1 to 10,000,000, ``policy`` one policy name, ``models`` distinct
    numbers of counter sets from 1 to 4, ``l2`` a number from 0 to 1e6. A model trained with
    fewer than all four ``models`` is for study: :func:`write_weights` refuses it, since the
    kernel needs a weight vector for each of 1, 2, 3 and 4 counter sets."""
    n = _games(games)
    held = _games(holdout, "holdout")
    ks = _models(models)
    name = _train_policy(policy, ks)
    lam = _l2(l2)
    root = as_seed_sequence(seed)
    weights: dict[int, list[float]] = {}
    metrics: dict[int, dict[str, Any]] = {}
    for k in ks:
        rules = MODELS[k]
        train_set = samples(rules, n, policy=name, seed=child_seed(root, k, 0))
        test_set = samples(rules, held, policy=name, seed=child_seed(root, k, 1))
        w = fit(train_set.features, train_set.targets, l2=lam)
        base = float(np.mean(train_set.targets))
        est, obs, count = calibration(w, test_set.features, test_set.targets)
        weights[k] = [float(x) for x in w]
        metrics[k] = {
            "log_loss": round(log_loss(w, test_set.features, test_set.targets), 5),
            "log_loss_constant": round(
                log_loss(
                    [math.log(base / (1 - base))] + [0.0] * (N_FEATURES - 1),
                    test_set.features,
                    test_set.targets,
                ),
                5,
            )
            if 0 < base < 1
            else None,
            "train_positions": len(train_set.targets),
            "test_positions": len(test_set.targets),
            "calibration": [
                [
                    None if math.isnan(a) else round(float(a), 4),
                    None if math.isnan(b) else round(float(b), 4),
                    int(c),
                ]
                for a, b, c in zip(est, obs, count, strict=True)
            ],
        }
    entropy = root.entropy if not root.spawn_key else f"{root.entropy} {root.spawn_key}"
    provenance = {
        "command": f"genial learn --games {n} --holdout {held} --policy {name} "
        f"--seed {root.entropy} --out value_weights.json",
        "games": n,
        "holdout": held,
        "policy": name,
        "seed": str(entropy),
        "l2": lam,
        "genial": __version__,
        "date": datetime.date.today().isoformat(),
    }
    return Model(weights, metrics, provenance)


def write_weights(model: Model, path: str | os.PathLike[str]) -> None:
    """Write ``model``'s weights file (``Model.to_json``) to ``path``, through a temporary file
    beside it (a reader never sees half a file). The kernel reads ``genial/value_weights.json``
    when a value policy first needs it; replace that file to play with other weights.

    Only a file the kernel reads is written: ``WeightsError`` (nothing written) for a model
    lacking any of 1 to 4 counter sets (train them all: ``train(models=(1, 2, 3, 4))``), a
    weight not finite, a row not of ``N_FEATURES``, or metrics or provenance that are not
    plain JSON (see :meth:`Model.to_json`). :func:`read_weights` reads it back."""
    if not isinstance(model, Model):
        raise WeightsError(f"model: a genial.learn.Model, got {excerpt(model)}")
    write_atomic(path, model.to_json())


def read_weights(path: str | os.PathLike[str]) -> Model:
    """The :class:`Model` of a weights file, read as untrusted input: a regular file of at most
    ``MAX_WEIGHTS_BYTES`` (a FIFO is refused without waiting), JSON of bounded depth with
    finite numbers, its weights checked as the kernel checks them (format, ``features``, four
    rows of ``N_FEATURES`` finite numbers, SHA-256), ``metrics`` (optional) one dict per model
    ``"1"`` to ``"4"`` and ``provenance`` (optional) a dict, both plain JSON at most 16 deep.
    Fields the kernel does not read are ignored. ``WeightsError`` naming the file and the field
    otherwise.

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "w.json")
    >>> write_weights(Model.shipped(), path)
    >>> read_weights(path).weights == Model.shipped().weights
    True
    """
    try:
        shown = excerpt(os.fspath(path), 200)
    except TypeError:
        raise WeightsError(f"path: a file name expected, got {excerpt(path)}") from None
    return _read_weights(path, shown)


def _read_weights(path: str | os.PathLike[str], where: str) -> Model:
    raw = read_bounded(path, MAX_WEIGHTS_BYTES, where, WeightsError)
    data = load_json(raw, where, WeightsError)
    if not isinstance(data, dict):
        raise WeightsError(f"{where}: not a weights file (a JSON object expected)")
    rows = _parse_kernel(raw.decode("utf-8"), f"{where}: ")
    metrics = _checked_metrics(data.get("metrics", {}), f"{where}: ", WeightsError, True)
    provenance = _checked_provenance(data.get("provenance", {}), f"{where}: ", WeightsError)
    return Model({k: rows[k - 1] for k in MODELS}, metrics, provenance)
