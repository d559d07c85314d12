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
games it did not train on, and :func:`write_weights` writes the file the kernel reads at
import. The command line is ``genial learn`` (``python -m genial learn --help``).

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
from .errors import GenialError, excerpt
from .files import write_atomic
from .policies import kernel_policies, parse_policies
from .seeds import POLICY_STREAM, as_seed_sequence, child_seed, stream

__all__ = [
    "FORMAT",
    "MODELS",
    "N_FEATURES",
    "Model",
    "Samples",
    "calibration",
    "fit",
    "log_loss",
    "predict",
    "samples",
    "train",
    "write_weights",
]

N_FEATURES: int = _core.N_FEATURES
FORMAT = "genial-value-1"
MODELS: dict[int, Rules] = {1: Rules(1), 2: Rules(2), 3: Rules(3), 4: Rules(4)}
"""The rules each model is trained under, by its number of counter sets."""

_MAX_GAMES = 10_000_000


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


def _games(games: object) -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)):
        raise GenialError(f"games must be an int, got {excerpt(games)}")
    if not 1 <= int(games) <= _MAX_GAMES:
        raise GenialError(f"games must be from 1 to {_MAX_GAMES:,}, got {int(games)}")
    return int(games)


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


def predict(weights: npt.ArrayLike, features: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The model's estimates: the logistic of ``features @ weights``, as the kernel computes it
    (the sum clipped to [-40, 40])."""
    z = np.clip(
        np.asarray(features, dtype=np.float64) @ np.asarray(weights, dtype=np.float64), -40.0, 40.0
    )
    return 1.0 / (1.0 + np.exp(-z))


def log_loss(weights: npt.ArrayLike, features: npt.ArrayLike, targets: npt.ArrayLike) -> float:
    """The mean cross-entropy of the estimates against the (fractional) targets, in nats."""
    p = np.clip(predict(weights, features), 1e-12, 1 - 1e-12)
    y = np.asarray(targets, dtype=np.float64)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def calibration(
    weights: npt.ArrayLike, features: npt.ArrayLike, targets: npt.ArrayLike, bins: int = 10
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """``(mean estimate, mean target, positions)`` in each of ``bins`` equal-width bins of the
    estimate (empty bins: nan): a calibrated model has the first two equal."""
    p = predict(weights, features)
    y = np.asarray(targets, dtype=np.float64)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.bincount(which, weights=p, minlength=bins) / count
        obs = np.bincount(which, weights=y, minlength=bins) / count
    return est, obs, count


def fit(
    features: npt.ArrayLike, targets: npt.ArrayLike, *, l2: float = 1e-4, max_iter: int = 50
) -> npt.NDArray[np.float64]:
    """Logistic regression of ``targets`` (in [0, 1]) on ``features`` by Newton's method, with
    an L2 penalty ``l2`` per position on every weight but the bias (feature 0); stops when a
    step changes no weight by more than 1e-9. Deterministic: the same data, the same weights."""
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(targets, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],) or x.shape[0] == 0:
        raise GenialError("fit: features (n, k) and targets (n,), n >= 1")
    n, k = x.shape
    penalty = np.full(k, l2 * n)
    penalty[0] = 0.0
    w = np.zeros(k)
    for _ in range(max_iter):
        p = predict(w, x)
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


@dataclass(frozen=True)
class Model:
    """The weights of every model (by number of counter sets), how well each predicts games
    it did not see (``metrics``: log loss, that of the constant estimate, calibration bins,
    positions), and how they were made (``provenance``)."""

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
        """The model genial ships (``genial/value_weights.json``), checked as the kernel
        checks it.

        >>> sorted(Model.shipped().weights)
        [1, 2, 3, 4]
        """
        from importlib import resources

        text = resources.files("genial").joinpath("value_weights.json").read_text("utf-8")
        try:
            rows = _core._parse_value_weights(text)
        except ValueError as err:
            raise GenialError(f"genial/value_weights.json: {err}") from None
        data = json.loads(text)
        metrics = {int(k): v for k, v in data.get("metrics", {}).items()}
        return cls({n: rows[n - 1] for n in MODELS}, metrics, data.get("provenance", {}))

    def to_json(self) -> str:
        """The weights file's text (``FORMAT``), with the SHA-256 the kernel checks."""
        models = {str(k): [float(x) for x in v] for k, v in sorted(self.weights.items())}
        body = json.dumps(models, sort_keys=True, separators=(",", ":"))
        doc = {
            "format": FORMAT,
            "features": N_FEATURES,
            "models": models,
            "sha256": hashlib.sha256(body.encode()).hexdigest(),
            "metrics": {str(k): v for k, v in sorted(self.metrics.items())},
            "provenance": self.provenance,
        }
        return json.dumps(doc, indent=1) + "\n"


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
    made again."""
    n = _games(games)
    held = _games(holdout)
    root = as_seed_sequence(seed)
    weights: dict[int, list[float]] = {}
    metrics: dict[int, dict[str, Any]] = {}
    for k in models:
        if k not in MODELS:
            raise GenialError(f"models: counter sets 1 to 4, got {excerpt(k)}")
        rules = MODELS[k]
        train_set = samples(rules, n, policy=policy, seed=child_seed(root, k, 0))
        test_set = samples(rules, held, policy=policy, seed=child_seed(root, k, 1))
        w = fit(train_set.features, train_set.targets, l2=l2)
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
        "command": f"genial learn --games {n} --holdout {held} --policy {policy} "
        f"--seed {root.entropy} --out value_weights.json",
        "games": n,
        "holdout": held,
        "policy": policy,
        "seed": str(entropy),
        "l2": l2,
        "genial": __version__,
        "date": datetime.date.today().isoformat(),
    }
    return Model(weights, metrics, provenance)


def write_weights(model: Model, path: str | os.PathLike[str]) -> None:
    """Write ``model``'s weights file (``Model.to_json``) to ``path``, through a temporary file
    beside it (a reader never sees half a file). The kernel reads ``genial/value_weights.json``
    at import; replace that file to play with other weights."""
    write_atomic(path, model.to_json())
