"""genial against hand-written C (``benchmarks/reference/``): games/s side by side on one core.

python benchmarks/ratios.py [--quick]

compiles ``benchmarks/reference/board.c`` and ``cards.c`` with ``cc -O3 -march=native``, runs
every case (board and card game, random and greedy, 2-4 players) through the C program and
through ``genial.simulate(n, ..., workers=1, seed=1)``, best of 3 each, alternating, and prints a
markdown table headed by the CPU, the compiler and its flags, then the statistics both programs
report for the same game (they must agree: the comparison is only fair if both play the same
game). ``benchmarks/test_vs_c.py`` runs the same cases through pytest-benchmark with this module's
functions: one implementation of the compile and run logic.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REFERENCE = Path(__file__).resolve().parent / "reference"
FLAGS = ("-O3", "-march=native", "-Wall")
SEED = 1
ROUNDS = 3
#: the statistics compared, and how far apart genial and C may be: a relative tolerance for the
#: means, an absolute one for seat 0's win rate (several standard errors at these game counts)
TOLERANCES = {"mean_moves": 0.03, "mean_score": 0.03, "mean_turns": 0.03}
WIN_RATE_TOLERANCE = 0.04


@dataclass(frozen=True)
class Case:
    game: str  # "board" or "cards"
    policy: str  # "random" or "greedy"
    players: int
    games: int  # per run, each side (a few seconds at most on one core)

    @property
    def name(self) -> str:
        return f"{self.game} {self.players}p {self.policy}"


_GAMES = {
    ("board", "random"): 100_000,
    ("board", "greedy"): 5_000,
    ("cards", "random"): 100_000,
    ("cards", "greedy"): 50_000,
}

CASES = [
    Case(
        game,
        policy,
        players,
        _GAMES[game, policy] // (2 if game == "board" and players == 4 else 1),
    )
    for game in ("board", "cards")
    for policy in ("random", "greedy")
    for players in (2, 3, 4)
]


def compiler() -> str | None:
    """The C compiler: ``$CC``, else ``cc``, ``gcc`` or ``clang`` on the path; None if none."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    return None


def compiler_version(cc: str) -> str:
    out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0].strip() if out else cc


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def build(directory: Path, cc: str | None = None) -> dict[str, Path]:
    """Compiles both reference programs into ``directory``; returns {"board": path, "cards": path}.

    Raises RuntimeError without a compiler or when a build fails (or warns: they must not).
    """
    cc = cc or compiler()
    if cc is None:
        raise RuntimeError("no C compiler found ($CC, cc, gcc or clang)")
    programs = {}
    for game in ("board", "cards"):
        exe = directory / game
        done = subprocess.run(
            [cc, *FLAGS, "-o", str(exe), str(REFERENCE / f"{game}.c")],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or done.stderr.strip():
            raise RuntimeError(f"{cc} {game}.c failed:\n{done.stderr}")
        programs[game] = exe
    return programs


def run_c(exe: Path, case: Case, games: int | None = None) -> dict[str, Any]:
    """One run of a reference program: its JSON line (games_per_s timed inside the program)."""
    cmd = [str(exe), "--players", str(case.players), "--policy", case.policy]
    cmd += ["--games", str(games or case.games), "--seed", str(SEED)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def run_genial(case: Case, games: int | None = None) -> dict[str, Any]:
    """One ``genial.simulate`` run on one core, with the same statistics as the C programs."""
    import genial

    n = games or case.games
    start = time.perf_counter()
    if case.game == "board":
        runs = genial.simulate(
            n, genial.Rules(case.players), policy=case.policy, seed=SEED, workers=1
        )
    else:
        runs = genial.simulate(
            n, case.players, game="cards", policy=case.policy, seed=SEED, workers=1
        )
    seconds = time.perf_counter() - start
    plays = runs.placements if case.game == "board" else runs.column("plays").sum(axis=1)
    moves = plays + runs.swaps.sum(axis=1)
    return {
        "games": n,
        "seconds": seconds,
        "games_per_s": n / seconds,
        "moves_per_s": float(moves.sum()) / seconds,
        "mean_turns": float(runs.turns.mean()),
        "mean_moves": float(moves.mean()),
        "mean_swaps": float(runs.swaps.sum(axis=1).mean()),
        "mean_bonus": float(runs.bonus.sum(axis=1).mean()),
        "mean_score": float(runs.scores.sum(axis=2).mean()),
        "mean_min_score": float(runs.scores.min(axis=2).mean()),
        "first_seat_wins": float((runs.winner == 0).mean()),
    }


def measure(
    case: Case, programs: dict[str, Path], rounds: int = ROUNDS, games: int | None = None
) -> dict[str, Any]:
    """genial and C side by side: ``rounds`` runs each, alternating; the best of each side."""
    best_g: dict[str, Any] | None = None
    best_c: dict[str, Any] | None = None
    for _ in range(rounds):
        g = run_genial(case, games)
        if best_g is None or g["seconds"] < best_g["seconds"]:
            best_g = g
        c = run_c(programs[case.game], case, games)
        if best_c is None or c["seconds"] < best_c["seconds"]:
            best_c = c
    assert best_g is not None and best_c is not None
    return {
        "case": case.name,
        "games": best_g["games"],
        "genial_games_per_s": best_g["games_per_s"],
        "c_games_per_s": best_c["games_per_s"],
        "ratio": best_g["games_per_s"] / best_c["games_per_s"],
        "genial": best_g,
        "c": best_c,
    }


def disagreements(result: dict[str, Any]) -> list[str]:
    """The statistics on which genial and the C program disagree beyond the tolerances."""
    g, c = result["genial"], result["c"]
    out = []
    for key, tol in TOLERANCES.items():
        if abs(g[key] - c[key]) > tol * abs(g[key]):
            out.append(f"{key}: genial {g[key]:.4f}, C {c[key]:.4f} (> {tol:.0%})")
    if abs(g["first_seat_wins"] - c["first_seat_wins"]) > WIN_RATE_TOLERANCE:
        out.append(
            f"first_seat_wins: genial {g['first_seat_wins']:.4f}, C {c['first_seat_wins']:.4f}"
            f" (> {WIN_RATE_TOLERANCE})"
        )
    return out


def header(cc: str) -> str:
    return (
        f"CPU: {cpu_model()}; compiler: {compiler_version(cc)}, flags {' '.join(FLAGS)}; "
        f"Python {platform.python_version()}; one core, seed {SEED}, "
        f"best of {ROUNDS} each, alternating"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a tenth of the games per case")
    args = parser.parse_args(argv)
    cc = compiler()
    if cc is None:
        print("no C compiler found ($CC, cc, gcc or clang)", file=sys.stderr)
        return 1
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        programs = build(Path(tmp), cc)
        for case in CASES:
            results.append(measure(case, programs, games=case.games // 10 if args.quick else None))
    print(header(cc))
    print()
    print("| work | genial games/s | C games/s | genial/C |")
    print("|---|---|---|---|")
    for r in results:
        speeds = f"{r['genial_games_per_s']:,.0f} | {r['c_games_per_s']:,.0f}"
        print(f"| {r['case']} | {speeds} | {r['ratio']:.2f} |")
    print()
    print(
        "| work | games | mean turns (genial / C) | mean moves | mean score | mean lowest "
        "| seat 0 wins |"
    )
    print("|---|---|---|---|---|---|---|")
    bad = 0
    for r in results:
        g, c = r["genial"], r["c"]
        cells = [
            f"{g[k]:.{d}f} / {c[k]:.{d}f}"
            for k, d in (
                ("mean_turns", 2),
                ("mean_moves", 2),
                ("mean_score", 2),
                ("mean_min_score", 3),
                ("first_seat_wins", 3),
            )
        ]
        print(f"| {r['case']} | {r['games']:,} | " + " | ".join(cells) + " |")
        for line in disagreements(r):
            bad += 1
            print(f"DISAGREE {r['case']}: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
