"""The figures README.md and docs/ state from a computation, recomputed from their seeds.

Each finding computes what the documents say, as the exact phrases they print, and names the
document that prints each phrase. Whitespace is not significant (a phrase may wrap across
lines of a document); everything else is::

    python docs/findings.py                # the cheap findings, checked against the documents
    python docs/findings.py --all          # every finding (about 12 minutes on 2 cores)
    python docs/findings.py --show NAME    # a finding's phrases, to write them in
    python docs/findings.py --list         # the findings, their cost and their documents

It exits with 0 when every phrase is in its document and 1 otherwise, naming what is missing.
``tests/test_findings.py`` runs the cheap findings at every test depth and every finding with
``GENIAL_FINDINGS=all``, so that no stated figure goes stale. Figures of other documents come from the
commands they quote with their seeds, or from ``benchmarks/`` (docs/performance.md).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

Phrases = list[tuple[str, str]]  # (document, phrase)


@dataclass(frozen=True)
class Finding:
    """A computation and the phrases the documents print from it."""

    name: str
    cheap: bool  # runs at the quick test depth (seconds, not minutes)
    what: str
    compute: Callable[[], Phrases]


def _pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}%"


def _interval(lo: float, hi: float) -> str:
    return f"[{100 * lo:.2f}, {100 * hi:.2f}]"


def _first_player_rows(players: tuple[int, ...]) -> Phrases:
    """docs/guide.md's first-player table: seat 0's win rate under random and greedy play."""
    from genial.board.advantage import first_player_advantage

    table = first_player_advantage(players, ("random", "greedy"), games=200_000, seed=1)
    phrases = []
    for p in players:
        rows = table[table["players"] == p].set_index("policy")
        r, g = rows.loc["random"], rows.loc["greedy"]
        phrases.append(
            (
                "docs/guide.md",
                f"| {p} | {_pct(r.first_win_rate)} "
                f"{_interval(r.first_win_rate_lo, r.first_win_rate_hi)} | "
                f"**{_pct(g.first_win_rate)} "
                f"{_interval(g.first_win_rate_lo, g.first_win_rate_hi)}** | "
                f"{_pct(g.fair_share)} | "
                f"**{100 * g.advantage:+.2f} {_interval(g.advantage_lo, g.advantage_hi)}** |",
            )
        )
        if p in (2, 3):  # docs/openings.md quotes the greedy openers' win rates
            phrases.append(("docs/openings.md", f"{_pct(g.first_win_rate)} of {p}-player games"))
    return phrases


def first_player_2() -> Phrases:
    """The 2-player rows (row (i, j) plays from child (i, j) of the seed: the same rows as in
    the whole table)."""
    return _first_player_rows((2,))


def first_player_all() -> Phrases:
    return _first_player_rows((2, 3, 4))


@functools.cache
def _main_job() -> Any:
    """The README's main job, once a process (``main-job`` and ``ladder`` both read it)."""
    from genial.board.openings import analyse

    return analyse(2, games_per_opening=20_000, policy="greedy", seed=1, confirm=20_000)


def main_job() -> Phrases:
    """The README's main job: 164 classes x 20,000 paired greedy games, the best set confirmed
    on 20,000 fresh games each."""
    result = _main_job()
    t = result.table
    best = t[t["best"]]
    leader, others = best.iloc[0], best.iloc[1:]
    size, k = len(best), len(t)
    confirmed = (
        f"**{_pct(leader.confirmed)} [{_pct(leader.confirmed_lo)}, {_pct(leader.confirmed_hi)}]**"
    )
    selected = f"({_pct(leader.win_rate)} in the games that selected it)"
    lo, hi = _pct(others["confirmed"].min(), 1), _pct(others["confirmed"].max(), 1)
    half = 100 * float(((others["confirmed_hi"] - others["confirmed_lo"]) / 2).max())
    worst = t.iloc[-3:][::-1]
    by_points = t.groupby("points")[["wins", "games"]].sum()
    rate = by_points["wins"] / by_points["games"]
    points = (
        f"openings scoring 0 win {_pct(rate[0])}, scoring 1 win {_pct(rate[1])}, "
        f"scoring 2 win {_pct(rate[2])}"
    )
    differ = f"{int(t['differs'].sum())} of the {k} classes differ from the average after a Holm"
    games = int(t["games"].sum() + t["confirm_games"].sum())
    seconds = f"{games:,} games"
    return [
        ("README.md", f"**{size} of the {k} classes are statistically tied for first**"),
        ("README.md", f"the {size} classes that may be best confirmed on 20,000 fresh games"),
        ("README.md", f"(`{leader['example']}` next to"),
        ("README.md", f"wins {confirmed} on its 20,000 fresh games {selected}"),
        ("README.md", f"the other members confirm at {lo} to {hi}"),
        ("README.md", f"(`{t.iloc[-1]['example']}`, {_pct(t.iloc[-1].win_rate, 1)})"),
        ("README.md", differ),
        ("README.md", points),
        ("README.md", f"around the average ({_pct(result.average)})"),
        ("README.md", seconds),
        ("docs/guide.md", f"the {size} classes that may be best confirmed on 20,000 fresh games"),
        ("docs/guide.md", f"**{size} classes are statistically tied for first**"),
        ("docs/guide.md", f"`{leader['example']}` next to"),
        ("docs/guide.md", f"wins {confirmed} on 20,000 fresh games {selected}"),
        ("docs/guide.md", f"the other {size - 1} confirm at {lo} to {hi}, each within ±{half:.1f}"),
        (
            "docs/guide.md",
            "(" + ", ".join(f"`{c}`" for c in worst["example"]) + ": "
            f"{_pct(worst.iloc[0].win_rate, 1)} to {_pct(worst.iloc[-1].win_rate, 1)})",
        ),
        ("docs/guide.md", points),
        ("docs/guide.md", differ),
        (
            "docs/guide.md",
            f"({_pct(result.average)} [{_pct(result.average_lo)}, {_pct(result.average_hi)}])",
        ),
        ("docs/guide.md", seconds),
        ("docs/openings.md", f"(`{leader['example']}`, {_pct(leader.win_rate)} under greedy"),
        ("docs/openings.md", f"averages {_pct(result.average)} over its classes"),
    ]


def _race_row(games_per_opening: int) -> tuple[Any, str]:
    from genial.board.openings import analyse

    raced = analyse(2, games_per_opening=games_per_opening, policy="greedy", seed=1,
                    adaptive=True)  # fmt: skip
    info, top = raced.race, raced.table.iloc[0]
    assert info is not None
    row = (
        f"| {games_per_opening:,} | {info['uniform_games']:,} | {info['games']:,} | "
        f"{info['games'] / info['uniform_games']:.{2 if games_per_opening < 10**5 else 3}f} | "
        f"{info['in_race']} | `{top['example']}`, {_pct(top.win_rate)}"
    )
    return raced, row


def race_20000() -> Phrases:
    """docs/openings.md's race table, its first row (benchmarks/test_adaptive.py times it)."""
    raced, row = _race_row(20_000)
    assert raced.race is not None
    return [
        ("docs/openings.md", row + " |"),
        ("docs/openings.md", f"so {raced.race['in_race']} classes play to the end"),
    ]


def race_200000() -> Phrases:
    """docs/openings.md's race table, its second row, and the guide's sentence on it."""
    raced, row = _race_row(200_000)
    assert raced.race is not None
    t = raced.table
    top = t.iloc[0]
    stopped = t["stopped_after"].value_counts()
    later = int(stopped[stopped.index > 4].sum())
    share = raced.race["games"] / raced.race["uniform_games"]
    return [
        ("docs/openings.md", row + f" [{_pct(top.win_rate_lo)}, {_pct(top.win_rate_hi)}] |"),
        ("docs/openings.md", f"for {_pct(share, 1)} of the games"),
        (
            "docs/openings.md",
            f"{int(stopped.get(3, 0))} classes stopped after round 3 (8,192 games), "
            f"{int(stopped.get(4, 0))} after round 4, {later} more later",
        ),
        (
            "docs/guide.md",
            f"for {_pct(share, 1)} of the games ({raced.race['games'] / 1e6:.1f} million of",
        ),
    ]


def ladder() -> Phrases:
    """docs/openings.md's agreement of the 2-player rankings along the skill ladder: greedy
    (the main job's table), ``value`` (1,600 games a class, seed 2026) and ``mc:20:value``
    (the shipped ``book(2)``, 1,600 games a class)."""
    from genial.board.openings import analyse, book

    tables = {
        "greedy": _main_job(),
        "value": analyse(2, games_per_opening=1600, policy="value", seed=2026),
        "mc:20:value": book(2),
    }
    phrases = []
    for a, b in (("greedy", "value"), ("greedy", "mc:20:value"), ("value", "mc:20:value")):
        found = tables[a].agreement(tables[b], draws=2000, seed=0)
        phrases.append(
            (
                "docs/openings.md",
                f"| `{a}` and `{b}` | {found.tau:.2f} [{found.tau_lo:.2f}, {found.tau_hi:.2f}] "
                f"| {found.tau_same:.2f} | {found.overlap} [{found.overlap_lo:.0f}, "
                f"{found.overlap_hi:.0f}] | {found.overlap_same:.1f} |",
            )
        )
    return phrases


FINDINGS = (
    Finding("first-player-2", True, "guide: the 2-player first-player rows", first_player_2),
    Finding("first-player", False, "guide: the first-player table", first_player_all),
    Finding("main-job", False, "README and guide: the opening analysis", main_job),
    Finding("race-20000", False, "openings.md: the race at 20,000 games a class", race_20000),
    Finding("race-200000", False, "openings.md: the race at 200,000 games a class", race_200000),
    Finding("ladder", False, "openings.md: the rankings along the skill ladder", ladder),
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def missing(phrases: Phrases, root: Path = ROOT) -> list[str]:
    """The phrases their documents do not print (whitespace not significant)."""
    texts: dict[str, str] = {}
    gone = []
    for doc, phrase in phrases:
        if doc not in texts:
            texts[doc] = _flat((root / doc).read_text(encoding="utf-8"))
        if _flat(phrase) not in texts[doc]:
            gone.append(f"{doc}: {phrase}")
    return gone


def by_name(name: str) -> Finding:
    for finding in FINDINGS:
        if finding.name == name:
            return finding
    raise SystemExit(f"no finding {name!r}: {', '.join(f.name for f in FINDINGS)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every finding, not the cheap ones")
    parser.add_argument("--show", metavar="NAME", help="print a finding's phrases")
    parser.add_argument("--list", action="store_true", help="the findings")
    args = parser.parse_args(argv)
    if args.list:
        for f in FINDINGS:
            print(f"{f.name:<16} {'cheap' if f.cheap else 'dear':<6} {f.what}")
        return 0
    if args.show:
        for doc, phrase in by_name(args.show).compute():
            print(f"{doc}: {phrase}")
        return 0
    failed = 0
    for finding in FINDINGS:
        if not (finding.cheap or args.all):
            continue
        gone = missing(finding.compute())
        print(f"{finding.name}: {'ok' if not gone else f'{len(gone)} phrase(s) missing'}")
        for line in gone:
            print(f"  {line}")
        failed += bool(gone)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
