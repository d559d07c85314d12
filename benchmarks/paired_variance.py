"""How much paired games (common random numbers), luck adjustment and stratified deals
shrink the variance of a difference between two opening classes, and of one class's win rate:
the measurement behind docs/openings.md's "Paired games" and "Luck adjustment".

python benchmarks/paired_variance.py [--policy greedy] [--games 4000] [--pairs 20] [--seed 1]

Draws ``--pairs`` pairs of 2-player opening classes at random (seed ``--seed``), plays each
class's games twice: paired (game ``j`` of both classes on the same streams, the opening
analysis's default) and independent (each class on its own seed), and prints, per pair and
pooled, the variance of the per-game difference of wins under pairing against the variance of
the difference of two independent games (``var(a) + var(b)``). Their ratio is the factor by
which pairing cuts the games a comparison needs for the same precision (the race's and the best
set's bounds shrink with the square root of it).

The same games are played measuring their luck (``options={"luck": True}``, which changes no
game): each result less ``Playouts.luck_on(0)``, the control variate of luck adjustment, gives
the adjusted variances, alone and with pairing, and for one class's win rate. Stratified deals
are bounded rather than built: the share of a class's win variance that the two dealt racks
explain (the adjusted R^2 of a linear regression of the wins on the counts of each tile type in
each rack, from the independent games' records) is the most that any stratification of the
deal could remove.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from genial.batch import prepare, run_many
from genial.board.openings import opening_classes
from genial.seeds import as_seed_sequence, child_seed


def wins(spec, games: int, workers: int):  # type: ignore[no-untyped-def]
    """The opener's wins, their luck (``luck_on(0)``) and the games' logs."""
    (runs,) = run_many([(replace(spec, luck=True), games)], workers=workers)
    return (runs.winner == 0).astype(np.float64), runs.luck_on(0), runs.logs


def deal_r2(won: np.ndarray, logs: np.ndarray) -> float:
    """The adjusted R^2 of the wins on the two dealt racks' tile counts (the opener's forced
    tile aside: 5 then 6 tiles are dealt, the records' first 11 draws)."""
    n = len(won)
    draws = logs["draws"][:, :11].astype(np.int64)
    columns = [np.ones(n)]
    for first, last in ((0, 5), (5, 11)):
        counts = np.zeros((n, 21))
        for k in range(first, last):
            counts[np.arange(n), draws[:, k]] += 1
        columns.append(counts[:, :20])  # (the 21st is implied by the rack's size)
    x = np.column_stack(columns)
    beta, *_ = np.linalg.lstsq(x, won, rcond=None)
    r2 = 1 - np.var(won - x @ beta) / np.var(won)
    return float(1 - (1 - r2) * (n - 1) / (n - x.shape[1]))


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
                records=True,
            )

        pa, la, _ = wins(replace(spec(a, (p,)), paired=True), games, workers)
        pb, lb, _ = wins(replace(spec(b, (p,)), paired=True), games, workers)
        ia, lia, logs_a = wins(spec(a, (p, 1, 0)), games, workers)
        ib, lib, logs_b = wins(spec(b, (p, 1, 1)), games, workers)
        rows.append(
            {
                "a": str(a.representative),
                "b": str(b.representative),
                "paired": float(np.var(pa - pb, ddof=1)),
                "independent": float(np.var(ia, ddof=1) + np.var(ib, ddof=1)),
                "paired_luck": float(np.var(pa - la - (pb - lb), ddof=1)),
                "independent_luck": float(np.var(ia - lia, ddof=1) + np.var(ib - lib, ddof=1)),
                "class": float(np.var(ia, ddof=1) + np.var(ib, ddof=1)),
                "class_luck": float(np.var(ia - lia, ddof=1) + np.var(ib - lib, ddof=1)),
                "deal_r2": (deal_r2(ia, logs_a) + deal_r2(ib, logs_b)) / 2,
                "won": np.concatenate([ia, ib]),
                "luck": np.concatenate([lia, lib]),
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
    print(
        f"the seconds include measuring the luck of every game ({2 * len(rows) * args.games * 2:,}"
        " games)\n"
    )
    print("| class a | class b | same result | var paired | var independent | ratio |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['a']} | {r['b']} | {r['same']:.1%} | {r['paired']:.4f} | "
            f"{r['independent']:.4f} | {r['paired'] / r['independent']:.3f} |"
        )
    independent = np.array([r["independent"] for r in rows])
    boot = np.random.default_rng(args.seed)
    picks = [boot.integers(0, len(rows), len(rows)) for _ in range(2000)]

    def pooled(top: np.ndarray, bottom: np.ndarray, what: str) -> None:
        """The pooled ratio with a bootstrap interval over the pairs."""
        ratios = top / bottom
        lo, hi = np.quantile([top[i].sum() / bottom[i].sum() for i in picks], [0.025, 0.975])
        ratio = top.sum() / bottom.sum()
        print(
            f"{what}: {ratio:.3f} [{lo:.3f}, {hi:.3f}] (95% bootstrap over the pairs); per "
            f"pair {ratios.min():.3f} to {ratios.max():.3f}; games saved: {1 - ratio:.1%}"
        )

    print("\nvariance of a difference between two classes, against independent games:")
    for key, what in [
        ("paired", "paired"),
        ("independent_luck", "luck-adjusted"),
        ("paired_luck", "paired and luck-adjusted"),
    ]:
        pooled(np.array([r[key] for r in rows]), independent, f"  {what}")
    print("variance of one class's win rate:")
    pooled(
        np.array([r["class_luck"] for r in rows]),
        np.array([r["class"] for r in rows]),
        "  luck-adjusted / plain",
    )
    won = np.concatenate([r["won"] for r in rows])
    luck = np.concatenate([r["luck"] for r in rows])
    print(
        f"  the luck on the opener over {len(won):,} independent games: mean {luck.mean():+.5f} "
        f"(standard error {luck.std(ddof=1) / np.sqrt(len(luck)):.5f}), standard deviation "
        f"{luck.std(ddof=1):.4f}, correlation with winning {np.corrcoef(won, luck)[0, 1]:.3f}, "
        f"regression coefficient {np.cov(won, luck)[0, 1] / luck.var(ddof=1):.2f}"
    )
    r2 = np.array([r["deal_r2"] for r in rows])
    print(
        f"  explained by the dealt racks (adjusted R^2, the most a stratified deal removes): "
        f"mean {r2.mean():.4f}, per class pair {r2.min():.4f} to {r2.max():.4f}"
    )


if __name__ == "__main__":
    main()
