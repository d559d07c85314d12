"""genial against hand-written C reference programs (pytest-benchmark;
``python -m pytest benchmarks/test_vs_c.py``).

A session fixture compiles ``benchmarks/reference/board.c`` and ``cards.c`` with
``cc -O3 -march=native``; each case runs the C program and ``genial.simulate`` on one core, side
by side in one run (best of 3 each, alternating, ``benchmarks/ratios.py`` does the work), and
records both games/s, the ratio and both programs' statistics in ``extra_info``. The test asserts
that both play the same game (statistics within a generous tolerance), never a timing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.ratios import CASES, Case, build, compiler, disagreements, measure


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if compiler() is None:
        pytest.skip("no C compiler ($CC, cc, gcc or clang) to build benchmarks/reference/")
    return build(tmp_path_factory.mktemp("reference"))


@pytest.mark.parametrize("case", CASES, ids=[c.name.replace(" ", "-") for c in CASES])
def test_vs_c(benchmark, programs: dict[str, Path], case: Case) -> None:  # type: ignore[no-untyped-def]
    result = benchmark.pedantic(measure, args=(case, programs), rounds=1, iterations=1)
    g, c = result["genial"], result["c"]
    benchmark.extra_info.update(
        work=case.name,
        game=case.game,
        players=case.players,
        policy=case.policy,
        games=case.games,
        seed=1,
        genial_games_per_s=round(result["genial_games_per_s"]),
        c_games_per_s=round(result["c_games_per_s"]),
        ratio=round(result["ratio"], 3),
        genial_mean_turns=g["mean_turns"],
        c_mean_turns=c["mean_turns"],
        genial_mean_moves=g["mean_moves"],
        c_mean_moves=c["mean_moves"],
        genial_mean_score=g["mean_score"],
        c_mean_score=c["mean_score"],
    )
    assert disagreements(result) == []
