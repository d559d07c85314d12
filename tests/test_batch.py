"""genial.batch: batch playouts replay through Game, are reproducible whatever the workers,
and summarise correctly."""

from __future__ import annotations

import importlib
import math
import pickle
import tracemalloc

import numpy as np
import pytest

import genial
from genial import BatchSpec, Game, GenialError, Move, Playouts, Rules, simulate, wilson_interval
from genial.batch import CHUNK

ARRAYS = ("scores", "ranks", "winner", "placements", "turns", "bonus", "swaps", "opening", "game")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy", "epsilon-greedy:0.3"])
def test_records_replay_through_game(players: int, policy: str) -> None:
    """The fast path plays by the rules of Game: each record replays to the same results."""
    runs = simulate(40, players, policy=policy, seed=players, records=True)
    assert runs.records is not None
    assert len(runs.records) == 40
    for i, record in enumerate(runs.records):
        game = Game.from_record(record)
        assert game.is_over
        assert game.scores.tolist() == runs.scores[i].tolist()
        assert game.ranks().tolist() == runs.ranks[i].tolist()
        assert game.turn == runs.turns[i]
        placements = [m for m in game.moves if m.kind == "place"]
        assert len(placements) == runs.placements[i]
        assert sum(m.kind == "swap" for m in game.moves) == runs.swaps[i].sum()
        assert game.winner() == (None if runs.winner[i] == -1 else runs.winner[i])


def test_records_do_not_change_results() -> None:
    plain = simulate(300, 3, policy="greedy", seed=9)
    logged = simulate(300, 3, policy="greedy", seed=9, records=True)
    for name in ARRAYS:
        assert np.array_equal(getattr(plain, name), getattr(logged, name)), name


def test_mixed_policies_per_seat() -> None:
    runs = simulate(2000, 2, policy=("greedy", "random"), seed=3)
    assert runs.policies == ("greedy", "random")
    summary = runs.summary()
    assert summary.win_rate[0] > 0.9  # greedy crushes random
    assert summary.mean_lowest[0] > summary.mean_lowest[1]


@pytest.mark.parametrize("workers", [2, 3, -1])
def test_same_results_whatever_the_workers(workers: int) -> None:
    n = 3 * CHUNK + 17
    one = simulate(n, 2, policy="epsilon-greedy", seed=42, workers=1)
    many = simulate(n, 2, policy="epsilon-greedy", seed=42, workers=workers)
    for name in ARRAYS:
        assert np.array_equal(getattr(one, name), getattr(many, name)), name


def test_seed_determines_results() -> None:
    a = simulate(500, 4, seed=5)
    b = simulate(500, 4, seed=5)
    c = simulate(500, 4, seed=6)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)
    ss = np.random.SeedSequence(5)
    assert np.array_equal(simulate(500, 4, seed=ss).scores, a.scores)
    # a prefix of a run is the smaller run
    assert np.array_equal(simulate(100, 4, seed=5).scores, a.scores[:100])


def test_replay_any_row() -> None:
    runs = simulate(CHUNK + 50, 2, policy="greedy", seed=11)
    for row in (0, 5, CHUNK - 1, CHUNK, CHUNK + 49):
        game = runs.replay(row)
        assert game.scores.tolist() == runs.scores[row].tolist()
    subset = runs[runs.winner == 1]
    game = subset.replay(len(subset) - 1)
    assert game.winner() == 1
    with pytest.raises(GenialError, match="outside"):
        runs.replay(len(runs))


def test_openings_are_first_round_placements() -> None:
    """RULES §3.2: every seat's opening touches a printed symbol, a different one per seat."""
    runs = simulate(200, 4, seed=1)
    for row in runs.opening[:50]:
        touched = set()
        for action in row:
            move = Move.from_action(int(action), 4)
            assert move.cells is not None
            near = [
                s
                for s, (sq, sr) in enumerate(genial.SYMBOLS)
                for q, r in move.cells
                if (q - sq, r - sr) in {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
            ]
            assert len(near) >= 1
            touched.add(near[0])
        assert len(touched) == 4


def test_playouts_from_a_position() -> None:
    game = Game(3, seed=2)
    for _ in range(10):
        game.play(game.choose("greedy"))
    runs = game.playouts(60, policy="greedy", seed=4, records=True)
    assert runs.records is not None
    assert all(r["start"] == game.to_text() for r in runs.records)
    for i in (0, 17, 59):
        replay = Game.from_record(runs.records[i])
        assert replay.scores.tolist() == runs.scores[i].tolist()
    # scores never go below the starting position's
    assert (runs.scores >= game.scores[None]).all()
    assert runs.replay(3).scores.tolist() == runs.scores[3].tolist()
    same = simulate(60, 3, policy="greedy", seed=4, start=game.to_text())
    assert np.array_equal(same.scores, runs.scores)


def test_slicing_and_len() -> None:
    runs = simulate(100, 2, seed=1, records=True)
    assert len(runs) == 100
    part = runs[10:20]
    assert len(part) == 10
    assert np.array_equal(part.scores, runs.scores[10:20])
    assert part.game.tolist() == list(range(10, 20))
    assert part.records == runs.records[10:20]  # type: ignore[index]
    assert len(runs[3]) == 1
    mask = runs.winner == 0
    assert len(runs[mask]) == mask.sum()
    assert "100 games" in repr(runs)


def test_summary_hand_computed() -> None:
    """Win rates, shared first places and score statistics of a tiny batch, by hand."""
    scores = np.zeros((4, 2, 6), dtype=np.uint8)
    scores[:, 0, :] = 5
    scores[:, 1, :] = 3
    scores[0, 1, 0] = 1  # seat 1's lowest: 1, 3, 3, 3
    ranks = np.array([[0, 1], [0, 1], [1, 0], [0, 0]], dtype=np.int8)
    winner = np.array([0, 0, 1, -1], dtype=np.int8)
    rows = np.zeros(4, dtype=simulate(0).rows.dtype)
    rows["scores"][:, :2] = scores
    rows["ranks"][:, :2] = ranks
    rows["winner"] = winner
    rows["placements"] = [40, 38, 39, 41]
    rows["swaps"][:, :2] = 1
    spec = BatchSpec("board", Rules(2), ("random", "random"), (0.0, 0.0), np.random.SeedSequence(0))
    runs = Playouts(spec, rows, np.arange(4))
    s = runs.summary()
    assert s.wins.tolist() == [2, 1]
    assert s.shared_first == 1
    assert s.win_rate.tolist() == [0.5, 0.25]
    lo, hi = wilson_interval(2, 4)
    assert s.win_rate_lo[0] == pytest.approx(lo)
    assert s.win_rate_hi[0] == pytest.approx(hi)
    assert s.mean_lowest.tolist() == [5.0, 2.5]
    assert s.std_lowest[1] == pytest.approx(math.sqrt(((1 - 2.5) ** 2 + 3 * 0.5**2) / 4))
    assert s.mean_plays == 39.5
    assert s.mean_swaps.tolist() == [1.0, 1.0]
    text = str(s)
    assert "50.00%" in text and "25.00%" in text


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (50, 100, 0.40383, 0.59617),
        (0, 10, 0.0, 0.27753),
        (10, 10, 0.72247, 1.0),
        (1, 3, 0.06149, 0.79234),
        (81, 263, 0.25528, 0.36620),  # by hand: centre 0.31074, half-width 0.05546
    ],
)
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    """Known values of the 95% Wilson score interval (z = 1.96)."""
    got_lo, got_hi = wilson_interval(k, n)
    assert float(got_lo) == pytest.approx(lo, abs=2e-4)
    assert float(got_hi) == pytest.approx(hi, abs=2e-4)


def test_wilson_empty() -> None:
    lo, hi = wilson_interval(0, 0)
    assert math.isnan(float(lo)) and math.isnan(float(hi))


def test_empty_batch() -> None:
    runs = simulate(0, 2, seed=1)
    assert len(runs) == 0
    assert runs.summary().games == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_games": -1}, "n_games must be >= 0"),
        ({"n_games": 2.5}, "n_games must be an int"),
        ({"n_games": 10, "policy": "clever"}, "unknown policy"),
        ({"n_games": 10, "policy": ("greedy",)}, "one per seat"),
        ({"n_games": 10, "policy": "greedy:0.2"}, "only epsilon-greedy"),
        ({"n_games": 10, "policy": "epsilon-greedy:x"}, "not a number"),
        (
            {"n_games": 10, "policy": "epsilon-greedy", "options": {"epsilon": 1.5}},
            "epsilon must be",
        ),
        ({"n_games": 10, "rules": 5}, "players"),
        ({"n_games": 10, "rules": 0}, "players"),
        ({"n_games": 10, "workers": 0}, "workers"),
        ({"n_games": 10, "workers": -2}, "workers"),
        ({"n_games": 10, "workers": "2"}, "workers"),
        ({"n_games": 10, "seed": -3}, "seed"),
        ({"n_games": 10, "rules": 3, "start": Game(2)}, "position of Rules.players=2"),
        ({"n_games": 10, "options": {"opening": ["R0,-4+R1,-5"]}}, "not one of the board"),
        ({"n_games": 10, "options": ["openings"]}, "options: a mapping"),
        ({"n_games": 10, "game": "chess"}, "unknown game"),
        ({"n_games": 10, "rules": genial.cards.CardRules(3), "game": "board"}, "not rules of"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate(**kwargs)  # type: ignore[arg-type]


def test_start_over_is_rejected() -> None:
    game = Game(2, seed=1)
    while not game.is_over:
        game.play(game.choose("random"))
    with pytest.raises(GenialError, match="already over"):
        game.playouts(5)


def test_results_only_memory() -> None:
    """A batch keeps a few dozen bytes per game and builds no per-game Python objects."""
    n = 50_000
    tracemalloc.start()
    runs = simulate(n, 2, seed=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per_game = sum(getattr(runs, name).nbytes for name in ARRAYS) / n
    assert per_game < 48
    assert peak < 80 * n  # the arrays plus small change, not objects per game


def test_to_pandas_and_parquet(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    runs = simulate(300, 3, policy=("greedy", "random", "random"), seed=2)
    frame = runs.to_pandas()
    assert len(frame) == 900
    assert list(frame.columns[:5]) == ["game", "seat", "policy", "rank", "won"]
    assert frame.groupby("seat")["won"].sum().tolist() == [
        int((runs.winner == s).sum()) for s in range(3)
    ]
    row = frame[(frame.game == 7) & (frame.seat == 1)].iloc[0]
    assert row.score_G == runs.scores[7, 1, 1]
    assert row.lowest == runs.scores[7, 1].min()
    path = tmp_path / "games.parquet"
    runs.to_parquet(path)
    back = pd.read_parquet(path)
    assert back.shape == frame.shape
    assert back["lowest"].tolist() == frame["lowest"].tolist()


def test_progress_bar(capsys) -> None:  # type: ignore[no-untyped-def]
    simulate(CHUNK * 2, 2, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "2.05k" in err or "2,048" in err or "2048" in err


def test_forced_openings() -> None:
    """Every game starts with the given first placements; records replay them (RULES §3.2)."""
    first = Move.parse("R0,-4+R1,-5")  # touches the red symbol, red double
    reply = Move.parse("B4,0+G4,-1")  # touches the blue symbol
    runs = simulate(
        200, 2, policy="greedy", seed=3, options={"openings": [first, reply]}, records=True
    )
    assert (runs.opening[:, 0] == first.action).all()
    assert (runs.opening[:, 1] == reply.action).all()
    assert runs.records is not None
    for i in (0, 99, 199):
        game = Game.from_record(runs.records[i])
        assert game.moves[0] == first
        assert next(m for m in game.moves[1:] if m.kind == "place") == reply
        assert game.scores.tolist() == runs.scores[i].tolist()
        start = Game.from_text(runs.records[i]["start"])
        assert (0, 0) in start.rack(0) and (1, 2) in start.rack(1)
    assert runs.replay(57).scores.tolist() == runs.scores[57].tolist()
    same = simulate(
        200, 2, policy="greedy", seed=3, options={"openings": [first.action, str(reply)]}
    )
    assert np.array_equal(same.scores, runs.scores)


@pytest.mark.parametrize(
    ("openings", "message"),
    [
        (["R0,0+R1,0"], "not a legal first placement"),
        (["R0,-4+R1,-5", "B1,-4+B2,-5"], "not a legal first placement"),  # red symbol again
        (["swap"], "not a placement"),
        (["R0,-4+R1,-5"] * 3, "at most one per seat"),
        ([3.5], "expected a move"),
    ],
)
def test_bad_openings(openings: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate(10, 2, options={"openings": openings})
    with pytest.raises(GenialError, match="cannot be combined"):
        simulate(10, 2, options={"openings": ["R0,-4+R1,-5"]}, start=Game(2, seed=1))


VARIANTS = ["1", "1v", "2v", "2T", "2Tv", "4t"]


@pytest.mark.parametrize("token", VARIANTS)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_variant_records_replay_through_game(token: str, policy: str) -> None:
    """RULES §4, §2.2: the batch engine plays every variant by the rules of Game."""
    rules = genial.Rules.parse(token)
    runs = simulate(30, rules, policy=policy, seed=7, records=True)
    assert runs.game_rules == rules
    assert runs.records is not None
    for i, record in enumerate(runs.records):
        game = Game.from_record(record)
        assert game.rules == rules
        assert game.is_over
        assert game.scores.tolist() == runs.scores[i].tolist()
        assert game.ranks().tolist() == runs.ranks[i].tolist()
        assert game.winner() == (None if runs.winner[i] == -1 else runs.winner[i])
    assert runs.replay(11).scores.tolist() == runs.scores[11].tolist()
    assert (runs.scores <= rules.cap).all()


def test_solo_reports_its_distribution() -> None:
    """RULES §4.1: the result of a solo game is its lowest counter; summary() gives its
    distribution (every game is 'won')."""
    runs = simulate(2000, 1, policy="greedy", seed=1)
    summary = runs.summary()
    assert summary.labels == ("seat 0",)
    assert summary.lowest_counts.shape == (1, 37)
    assert summary.lowest_counts.sum() == 2000
    assert summary.mean_lowest[0] == pytest.approx(runs.lowest[:, 0].mean())
    assert (runs.winner == 0).all()
    assert (runs.swaps == 0).all() and (runs.bonus == 0).all()
    assert "result = lowest counter" in str(summary)
    greedy, random = summary.mean_lowest[0], simulate(2000, 1, seed=1).summary().mean_lowest[0]
    assert greedy > random + 5  # the greedy policy works for solo


def test_teams_summary_and_winner() -> None:
    """RULES §4.2: partners share counters and ranks; winner holds the winning team."""
    runs = simulate(1500, "4t", policy="greedy", seed=2)
    assert np.array_equal(runs.scores[:, 0], runs.scores[:, 2])
    assert np.array_equal(runs.ranks[:, 1], runs.ranks[:, 3])
    assert set(np.unique(runs.winner)) <= {-1, 0, 1}
    team0 = (runs.ranks[:, 0] == 0) & (runs.ranks[:, 1] != 0)
    assert np.array_equal(team0, runs.winner == 0)
    summary = runs.summary()
    assert summary.labels == ("team 0 (seats 0+2)", "team 1 (seats 1+3)")
    assert summary.wins.sum() + summary.shared_first == 1500
    assert (runs.scores.max(axis=(1, 2)) > 18).any()  # double-length counters


def test_variant_rules_and_errors() -> None:
    with pytest.raises(ValueError, match="4 players"):
        simulate(5, genial.Rules(2, teams=True))
    with pytest.raises(ValueError, match="2-player game"):
        simulate(5, "3T")
    with pytest.raises(ValueError, match="position of"):
        simulate(5, genial.Rules(2, tournament=True), start=Game(2, seed=1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'variant'"):
        simulate(5, 2, variant="teams")  # type: ignore[call-overload]
    a = simulate(200, genial.Rules(2, tournament=True, tiles="travel"), seed=3)
    b = simulate(200, rules="2Tv", seed=3)
    assert np.array_equal(a.scores, b.scores)


def test_simulate_keywords_are_written_once() -> None:
    """simulate's keywords are RunArguments' (at most ten with out=), their defaults
    RUN_DEFAULTS'; prepare's the SpecArguments among them."""
    from genial.batch import RUN_DEFAULTS, SPEC_DEFAULTS, RunArguments, SpecArguments

    assert set(RUN_DEFAULTS) == RunArguments.__optional_keys__
    assert set(SPEC_DEFAULTS) == SpecArguments.__optional_keys__ < set(RUN_DEFAULTS)
    assert len(RunArguments.__optional_keys__) + 1 <= 10  # and out=


def test_deprecated_keywords_still_work() -> None:
    """The keywords of genial 0.2 (players, teams, tournament, tiles, openings, epsilon) give
    the same games as the rules and options they stand for, with a DeprecationWarning."""
    first = "R0,-4+R1,-5"
    old_new = [
        ({"players": 3}, {"rules": 3}),
        ({"players": 4, "teams": True}, {"rules": "4t"}),
        ({"rules": 2, "tournament": True, "tiles": "travel"}, {"rules": "2Tv"}),
        ({"openings": [first], "epsilon": 0.3}, {"options": {"openings": [first], "epsilon": 0.3}}),
    ]
    for old, new in old_new:
        with pytest.warns(DeprecationWarning, match="is deprecated: use"):
            a = simulate(50, policy="epsilon-greedy", seed=4, **old)  # type: ignore[call-overload]
        b = simulate(50, policy="epsilon-greedy", seed=4, **new)
        assert a.spec == b.spec and np.array_equal(a.rows, b.rows)
    assert simulate(5, rules=genial.Rules(2), seed=1).spec == simulate(5, "2", seed=1).spec
    with pytest.warns(DeprecationWarning, match="players="):
        spec = genial.batch.prepare(10, players=4, teams=True, seed=1)  # type: ignore[call-arg]
    assert spec == genial.batch.prepare(10, "4t", seed=1)
    with (
        pytest.warns(DeprecationWarning, match="deprecated"),
        pytest.raises(ValueError, match="either rules="),
    ):
        simulate(5, players=3, rules=genial.Rules(2))  # type: ignore[call-overload]
    with (
        pytest.warns(DeprecationWarning, match="deprecated"),
        pytest.raises(ValueError, match="both as a keyword"),
    ):
        simulate(5, epsilon=0.2, options={"epsilon": 0.3})  # type: ignore[call-overload]
    with (
        pytest.warns(DeprecationWarning, match="deprecated"),
        pytest.raises(ValueError, match="options of out="),
    ):
        simulate(5, resume=True)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected keyword argument 'address'"):
        genial.batch.prepare(5, address="tcp://x:1")  # type: ignore[call-arg]


def test_old_summary_attribute_and_pickles() -> None:
    """Summary.mean_plays was mean_placements (it counts cards played in the card game): the
    old name still reads, with a DeprecationWarning, and pickles of either name load."""
    summary = simulate(100, 2, seed=1).summary()
    with pytest.warns(DeprecationWarning, match="mean_plays"):
        assert summary.mean_placements == summary.mean_plays
    state = dict(summary.__dict__)
    state["mean_placements"] = state.pop("mean_plays")
    old = type(summary).__new__(type(summary))
    old.__setstate__(state)
    assert old.mean_plays == summary.mean_plays
    assert str(pickle.loads(pickle.dumps(summary))) == str(summary)


# regressions found in review


def test_replay_uses_the_exact_epsilon() -> None:
    """Policy names round epsilon for display; replays must use the exact value."""
    runs = simulate(1100, policy="epsilon-greedy", options={"epsilon": 0.1234564999}, seed=11)
    assert runs.policies[0] == "epsilon-greedy:0.123456"
    for row in (3, 700, 1099):
        assert runs.replay(row).scores.tolist() == runs.scores[row].tolist()


def test_team_rows_are_marked_won() -> None:
    """RULES §4.2: both partners of the winning team are marked as having won."""
    pytest.importorskip("pandas")
    runs = simulate(200, genial.Rules(4, teams=True), seed=1)
    frame = runs.to_pandas()
    wins = frame.groupby("seat")["won"].sum().tolist()
    team = [int((runs.winner == t).sum()) for t in (0, 1)]
    assert wins == [team[0], team[1], team[0], team[1]]


def test_row_index_out_of_range() -> None:
    runs = simulate(3, seed=1)
    with pytest.raises(IndexError):
        runs[5]
    assert len(runs[-1]) == 1
    assert np.array_equal(runs[-1].scores, runs.scores[-1:])
    assert genial.Rules(2) == runs.game_rules


def test_batches_that_cannot_fit_are_refused_before_anything_is_allocated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """simulate(10**9) would need ~61 GiB of result rows on a 24 GiB machine: a clear error at
    once (it used to reserve the memory and meet the out-of-memory killer): nothing allocated
    (traced by tracemalloc, which sees numpy's arrays), no chunk played. (No clock: a busy
    machine would make it lie.)"""
    run = importlib.import_module("genial.batch.chunks")
    monkeypatch.setattr(run, "run_chunk", lambda *args: pytest.fail("a chunk was played"))
    for n, records in ((10**12, False), (10**9, False), (10**8, True)):
        tracemalloc.start()
        try:
            with pytest.raises(GenialError, match="GiB"):
                simulate(n, records=records)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 2**20, f"{peak:,} bytes allocated before refusing {n:,} games"


def test_chance_and_policy_streams_are_apart_in_batches() -> None:
    """The bag draws of a batch come from each chunk's chance stream and the policies' choices
    from its policy stream: whatever the policies, the first game of every chunk gets the same
    deal and the same first draws (later games of a chunk start where the chance stream was
    left, which depends on how many tiles the games before drew)."""
    n = CHUNK + 1
    firsts = {}
    for policy in ("random", "greedy", ("greedy", "random")):
        runs = simulate(n, policy=policy, seed=5, records=True)
        firsts[policy] = [(runs.record(i)["start"]) for i in (0, CHUNK)]
    assert firsts["random"] == firsts["greedy"] == firsts[("greedy", "random")]


def test_playouts_from_a_scoring_study_position() -> None:
    """A game accepted with pair_tiles=False (a board that is not a tiling) plays out in batches
    and its records replay."""
    from genial import Position

    pos = Position.empty(Rules(2)).replace(
        board={(0, 0): 0}, racks=(((0, 0), (1, 2)), ((1, 1),)), bag=(0,) * 21
    )
    game = Game.from_position(pos, pair_tiles=False)
    runs = game.playouts(20, seed=1, records=True)
    assert len(runs) == 20 and not runs.truncated.any()
    assert runs.replay(3).scores.tolist() == runs.scores[3].tolist()
