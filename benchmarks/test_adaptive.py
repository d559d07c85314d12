"""The adaptive opening analysis against the uniform one (pytest-benchmark; ``python -m pytest
benchmarks/test_adaptive.py``; docs/openings.md, "Adaptive analysis").

Both analyse every 2-player class under greedy play (seed 1) with ``GENIAL_ADAPTIVE_CAP`` games
per class (default 200,000: the uniform analysis is 32.8 million games, about 10 minutes on 2
cores); ``extra_info`` records the games each played, their ratio, the seconds, and whether
they name the same best class (asserted: the race must not lose the best class).
"""

from __future__ import annotations

import os
import time

from genial.openings import analyse

CAP = int(os.environ.get("GENIAL_ADAPTIVE_CAP", "200000"))


def test_adaptive_against_uniform(benchmark) -> None:  # type: ignore[no-untyped-def]
    began = time.perf_counter()
    uniform = analyse(2, games_per_opening=CAP, seed=1, workers=-1)
    uniform_seconds = time.perf_counter() - began
    raced = benchmark.pedantic(
        analyse,
        args=(2,),
        kwargs={"games_per_opening": CAP, "seed": 1, "workers": -1, "adaptive": True},
        rounds=1,
        iterations=1,
    )
    assert raced.race is not None
    best_uniform = int(uniform.table.iloc[0]["class"])
    best_raced = int(raced.table.iloc[0]["class"])
    benchmark.extra_info.update(
        cap=CAP,
        seed=1,
        uniform_games=int(uniform.table["games"].sum()),
        adaptive_games=raced.race["games"],
        ratio=round(raced.race["games"] / raced.race["uniform_games"], 4),
        classes_to_the_end=raced.race["in_race"],
        uniform_seconds=round(uniform_seconds, 1),
        best_uniform=best_uniform,
        best_adaptive=best_raced,
    )
    assert best_raced == best_uniform
