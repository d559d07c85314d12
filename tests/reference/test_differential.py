"""Differential test: the compiled engine against the pure-Python reference
(tests/reference/board.py).

Games are played by the engine (half of them by a score-seeking policy, so that caps, double
bonuses, chains and swaps occur), then replayed through the reference with the engine's draws; at
every step the legal-move sets, the gains of the chosen move, the scores, racks, bag, whose turn it
is, the phase and the bonus plays owed must agree, and the final ranks too.

Every variant is checked the same way (RULES §2.2, §4). ``GENIAL_DIFF_GAMES`` sets the games per
rules (default 16 at full depth, ``GENIAL_TESTS=full`` as in ``.ci/run``, and 4 in the quick
default of the README's test command; the full check before a release is
``GENIAL_DIFF_GAMES=1000``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest

from genial import Game, Move, Rules

from ..depth import sized
from .board import Reference

GAMES = sized("GENIAL_DIFF_GAMES", full=16, quick=4)
REACH = 64
"""The most games a sample plays to reach every rule it claims to check."""
RULES = ["2", "3", "4", "1", "1v", "2v", "2T", "2Tv", "4t"]


def ref_move(move: Move) -> tuple:
    if move.kind != "place":
        return (move.kind,)
    assert move.cells is not None and move.colours is not None
    (x, y), (c0, c1) = move.cells, move.colours
    return ("place", *sorted([(x, c0), (y, c1)]))


def ref_gains(ref: Reference, move: Move) -> tuple[int, int]:
    """The reference's gains of ``move``, in the order of the move's own halves."""
    form = ref_move(move)
    points = dict(zip((form[1][0], form[2][0]), ref.gains(form), strict=True))
    assert move.cells is not None
    return (points[move.cells[0]], points[move.cells[1]])


@dataclass
class Seen:
    """What the games exercised: the test fails if a rule was never reached."""

    counts: Counter[str] = field(default_factory=Counter)


@dataclass
class Step:
    legal: set[tuple]
    move: Move
    gains: tuple[int, int] | None
    scores: list[list[int]]
    racks: list[Counter[tuple[int, int]]]
    bag: Counter[tuple[int, int]]
    player: int
    phase: str
    bonus: int
    free_pairs: int


def options(rules: Rules) -> dict[str, object]:
    return {"teams": rules.teams, "tournament": rules.tournament, "tiles": rules.tiles}


def short_bag(rules: Rules, seed: int, keep: int) -> Game:
    """A new game whose bag keeps only ``keep`` random tiles (the rest set aside), so that the
    bag runs out during play (RULES §3.6 decisions)."""
    fields = Game(rules=rules, seed=seed).to_text().split()
    rng = np.random.default_rng(seed)
    tiles = [t for t, n in enumerate(fields[4]) for _ in range(int(n))]
    kept = np.bincount(rng.choice(tiles, size=keep, replace=False), minlength=21)
    fields[4] = "".join(str(n) for n in kept)
    return Game.from_text(" ".join(fields), seed=seed)


def play_engine(
    rules: Rules, seed: int, score_seeking: bool, start: Game | None = None
) -> tuple[Game, list[Step]]:
    players = rules.players
    game = Game(rules=rules, seed=seed) if start is None else start
    pick = random.Random(seed)
    steps = []
    while not game.is_over:
        legal = game.legal_moves()
        if game.phase == "swap":
            move = pick.choice(legal)  # greedy always swaps: keep must be reached too
        elif score_seeking and pick.random() > 0.1:
            move = game.choose("greedy")
        else:
            move = pick.choice(legal)
        steps.append(
            Step(
                legal={ref_move(m) for m in legal},
                move=move,
                gains=game.gains(move) if move.kind == "place" else None,
                scores=game.scores.tolist(),
                racks=[Counter(game.rack(p)) for p in range(players)],
                bag=Counter(game.bag()),
                player=game.current_player,
                phase=game.phase,
                bonus=game.bonus_plays,
                free_pairs=game.free_pairs,
            )
        )
        game.play(move)
    return game, steps


def check_game(
    rules: Rules, seed: int, score_seeking: bool, seen: Seen, start: Game | None = None
) -> None:
    players = rules.players
    game, steps = play_engine(rules, seed, score_seeking, start)
    record = game.to_record()
    begin = Game.from_text(record["start"])
    ref = Reference(players, [begin.rack(p) for p in range(players)], **options(rules))
    ref.bag = Counter(begin.bag())  # the whole set, or what a short-bag start kept
    where = f"rules={rules} seed={seed} score_seeking={score_seeking}"
    for i, (step, entry) in enumerate(zip(steps, record["moves"], strict=True)):
        at = f"{where} step {i} ({step.move})"
        assert ref.phase == step.phase, at
        assert ref.current_player == step.player, at
        assert ref.scores == step.scores, at
        assert ref.racks == step.racks, at
        assert +ref.bag == step.bag, at
        assert ref.bonus_pending == step.bonus, at
        assert ref.free_pairs() == step.free_pairs, at
        assert ref.legal_moves() == step.legal, at
        if step.gains is not None:
            assert ref_gains(ref, step.move) == step.gains, at
        draws = [tuple(sorted("RGBOYP".index(ch) for ch in t)) for t in entry["draws"]]
        before = [row[:] for row in ref.scores]
        bonus_before = ref.bonus_pending
        ref.play(ref_move(step.move), draws)
        seen.counts[step.move.kind] += 1
        if step.move.kind == "place":
            p = step.player
            capped = sum(1 for c in range(6) if before[p][c] < 18 and ref.scores[p][c] == 18)
            seen.counts["36 reached"] += sum(
                1 for c in range(6) if before[p][c] < 36 and ref.scores[p][c] == 36
            )
            seen.counts["cap reached"] += capped
            if capped == 2:
                seen.counts["two colours to 18 at once"] += 1
            if bonus_before and ref.current_player == p and ref.bonus_pending >= bonus_before:
                seen.counts["bonus chain"] += 1
    assert ref.is_over(), where
    assert ref.ranks() == game.ranks().tolist(), where
    if ref.instant_winner() is not None:
        seen.counts["instant win"] += 1
    if game.bag_size == 0:
        seen.counts["bag ran out"] += 1
    if all(not game.rack(p) for p in range(players)):
        seen.counts["every rack empty"] += 1


@pytest.mark.parametrize("token", RULES)
def test_engine_matches_reference(token: str) -> None:
    """RULES §3, §4, §2.2: every step of GAMES random and score-seeking games agrees with the
    reference, for the base game and every variant."""
    rules = Rules.parse(token)
    seen = Seen()

    def reached() -> bool:
        swaps = not rules.swap or (seen.counts["swap"] > 0 and seen.counts["keep"] > 0)
        return swaps and seen.counts["cap reached"] > 0

    # GAMES games, then more (at most REACH in all) until the sample reaches the rules it
    # claims to check: a quick sample is small, not blind
    g = 0
    while g < GAMES or (not reached() and g < REACH):
        check_game(rules, seed=1000 * RULES.index(token) + g, score_seeking=g % 2 == 1, seen=seen)
        g += 1
    if rules.swap:
        assert seen.counts["swap"] > 0 and seen.counts["keep"] > 0, seen.counts
    assert seen.counts["cap reached"] > 0, seen.counts
    print(f"\nrules {token}, {g} games: {dict(seen.counts)}")


def test_engine_matches_reference_on_fixture_scores() -> None:
    """RULES §3.3: the engine's and the reference's gains agree on a mid-game position's every
    legal placement (a denser check than the played moves alone)."""
    game = Game(3, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        moves = game.legal_moves()
        game.play(moves[rng.integers(len(moves))])
    ref = Reference.from_covered(3, [(q, r, c) for (q, r), c in game.board.items()])
    for move in game.legal_moves():
        if move.kind == "place":
            assert ref_gains(ref, move) == game.gains(move), move


@pytest.mark.parametrize("token", ["1v", "2v", "2Tv", "2", "4t"])
def test_engine_matches_reference_when_the_bag_runs_out(token: str) -> None:
    """RULES §3.6 decisions: refills draw what is left, empty racks pass, the game ends when
    every rack is empty; checked step by step against the reference from short bags."""
    rules = Rules.parse(token)
    seen = Seen()
    for g in range(max(GAMES // 2, 4)):
        keep = 6 + 5 * g % 20
        start = short_bag(rules, 500 + g, keep)
        check_game(rules, 500 + g, score_seeking=g % 2 == 1, seen=seen, start=start)
    assert seen.counts["bag ran out"] > 0, seen.counts
    assert seen.counts["every rack empty"] > 0, seen.counts
