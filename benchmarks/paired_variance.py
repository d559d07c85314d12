"""How much paired games (common random numbers) shrink the variance of a difference between
two opening classes: the measurement behind docs/openings.md's "Paired games".

python benchmarks/paired_variance.py [--policy greedy] [--games 4000] [--pairs 20] [--seed 1]

Draws ``--pairs`` pairs of 2-player opening classes at random (seed ``--seed``), plays each
class's games twice: paired (game ``j`` of both classes on the same streams, the opening
analysis's default) and independent (each class on its own seed), and prints, per pair and
pooled, the variance of the per-game difference of wins under pairing against the variance of
the difference of two independent games (``var(a) + var(b)``). Their ratio is the factor by
which pairing cuts the games a comparison needs for the same precision (the race's and the best
set's bounds shrink with the square root of it).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from genial.batch import prepare, run_many
from genial.board.openings import opening_classes
from genial.seeds import as_seed_sequence, child_seed


def wins(spec, games: int, workers: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    (runs,) = run_many([(spec, games)], workers=workers)
    return (runs.winner == 0).astype(np.float64)


def measure(policy: str, games: int, pairs: int, seed: int, workers: int) -> list[dict[str, float]]:
    root = as_seed_sequence(seed)
    classes = opening_classes(2)
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(pairs):
        a, b = (classes[int(i)] for i in rng.choice(len(classes), size=2, replace=False))

        def spec(cls, key):  # type: ignore[no-untyped-def]
            return prepare(
                games,
                2,
                policy=policy,
                seed=child_seed(root, *key),
                options={"openings": [cls.representative]},
            )

        pa = wins(replace(spec(a, (p,)), paired=True), games, workers)
        pb = wins(replace(spec(b, (p,)), paired=True), games, workers)
        ia = wins(spec(a, (p, 1, 0)), games, workers)
        ib = wins(spec(b, (p, 1, 1)), games, workers)
        paired = float(np.var(pa - pb, ddof=1))
        independent = float(np.var(ia, ddof=1) + np.var(ib, ddof=1))
        rows.append(
            {
                "a": str(a.representative),
                "b": str(b.representative),
                "paired": paired,
                "independent": independent,
                "same": float(np.mean(pa == pb)),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="greedy")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=-1)
    args = parser.parse_args()
    began = time.perf_counter()
    rows = measure(args.policy, args.games, args.pairs, args.seed, args.workers)
    print(
        f"policy {args.policy}, {args.games:,} games a class, {args.pairs} pairs of 2-player "
        f"classes, seed {args.seed}, {time.perf_counter() - began:.0f} s\n"
    )
    print("| class a | class b | same result | var paired | var independent | ratio |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['a']} | {r['b']} | {r['same']:.1%} | {r['paired']:.4f} | "
            f"{r['independent']:.4f} | {r['paired'] / r['independent']:.3f} |"
        )
    paired = np.array([r["paired"] for r in rows])
    independent = np.array([r["independent"] for r in rows])
    ratios = paired / independent
    # the pooled ratio with a bootstrap interval over the pairs
    boot = np.random.default_rng(args.seed)
    draws = [
        paired[i].sum() / independent[i].sum()
        for i in (boot.integers(0, len(rows), len(rows)) for _ in range(2000))
    ]
    lo, hi = np.quantile(draws, [0.025, 0.975])
    print(
        f"\npooled variance ratio (paired / independent): {paired.sum() / independent.sum():.3f} "
        f"[{lo:.3f}, {hi:.3f}] (95% bootstrap over the pairs); per pair "
        f"{ratios.min():.3f} to {ratios.max():.3f}; games saved for the same precision: "
        f"{1 - paired.sum() / independent.sum():.0%}"
    )


if __name__ == "__main__":
    main()
