"""``evaluate``'s adaptive race (successive elimination: a move is dropped only when its upper
bound is below the best lower bound), the moves that may be best (``best``, ``best_set``), and
``genial analyse --record FILE --move N --out FILE``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import genial
import genial.analysis
from genial import GenialError
from genial.analysis import CONFIDENCE, PAIR_KEY, evaluate
from genial.cards import CardGame
from genial.racing import hoeffding_radius
from genial.stats import best_set

from .cards.test_analysis import _instant_win as _card_instant_win
from .cards.test_analysis import _instant_wins as _card_instant_wins
from .test_analysis import _instant_win, _instant_wins
from .test_cli import assert_one_line, run


def test_equal_moves_are_both_kept_to_the_end() -> None:
    """Two placements that both win at once are truly equal (every playout a win): the race
    keeps both to the last round, and both are in the set that may be best."""
    game = _instant_win()
    winners = _instant_wins(game)
    assert len(winners) == 2
    moves = [m for m in game.legal_moves() if str(m) in winners] + game.legal_moves()[::40]
    result = evaluate(
        game, playouts=256, seed=3, workers=1, adaptive=True, min_playouts=16, moves=moves
    )
    kept = {r["move"]: r for r in result.rows if r["move"] in winners}
    assert set(kept) == winners
    assert all(r["playouts"] == 256 and r["win_rate"] == 1.0 and r["best"] for r in kept.values())
    assert result.best_set is not None and result.best_set.size >= 2
    assert f"{result.best_set.size} of {len(result.rows)} moves" in result.summary()


def test_a_clearly_worse_move_is_dropped_and_only_then() -> None:
    """In the card position where two plays win at once, the plays that lose often are dropped
    before the last round; every move dropped after round ``r`` had, then, an upper bound below
    the best lower bound (checked again from its recorded outcomes), and the winners get every
    playout."""
    game = _card_instant_win()
    winners = _card_instant_wins(game)
    result = evaluate(game, playouts=512, seed=4, workers=1, adaptive=True, min_playouts=16)
    counts = {r["move"]: r["playouts"] for r in result.rows}
    assert all(counts[w] == 512 for w in winners)
    dropped = [i for i, r in enumerate(result.rows) if r["playouts"] < 512]
    assert dropped
    k = len(result.rows)
    for i in dropped:
        row, n = result.rows[i], result.rows[i]["playouts"]
        r = int(math.log2(n // 16))  # the round it was dropped after
        error = (1 - CONFIDENCE) / (2 * k * (r + 1) * (r + 2))
        upper = result.outcomes[i][:n].mean() + hoeffding_radius(n, error, 1.0)
        best_lower = max(
            float(o[:n].mean()) - hoeffding_radius(n, error, 1.0)
            for o, q in zip(result.outcomes, result.rows, strict=True)
            if q["playouts"] >= n
        )
        assert upper < best_lower
        assert not row["best"]


@pytest.mark.parametrize("paired", [True, False])
def test_best_column_is_best_set_of_the_outcomes(paired: bool) -> None:
    """``best`` is ``best_set(outcomes, paired=paired)``; each move's outcomes are its playouts'
    outright wins (their count and sum are the table's ``playouts`` and ``wins``); ``p_best``
    is a distribution over the moves."""
    game = genial.Game(2, seed=4)
    moves = game.legal_moves()[:12]
    result = evaluate(game, playouts=60, seed=2, workers=1, moves=moves, paired=paired)
    assert len(result.outcomes) == len(result.rows)
    for row, outcome in zip(result.rows, result.outcomes, strict=True):
        assert len(outcome) == row["playouts"] and int(outcome.sum()) == row["wins"]
    again = best_set(result.outcomes, confidence=0.95, paired=paired)
    assert [r["best"] for r in result.rows] == again.mask.tolist()
    assert result.best_set is not None and result.best_set.paired == paired == result.paired
    assert result.table["best"].tolist() == again.mask.tolist()
    p_best = np.array([r["p_best"] for r in result.rows])
    assert np.all(p_best >= 0) and math.isclose(float(p_best.sum()), 1.0)
    assert again.words("moves") in str(result) and again.words("moves") in result._repr_html_()


def _record(tmp_path: Path, moves: int = 5) -> tuple[Path, dict[str, Any]]:
    game = genial.Game(2, seed=7)
    for _ in range(moves):
        game.play(game.choose("greedy"))
    record = game.to_record()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path, record


@pytest.mark.parametrize("move", [0, 3, 5])
def test_analyse_record_move_is_the_replayed_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, move: int
) -> None:
    """``--record FILE --move N`` analyses the position of the record replayed to its first N
    moves (before move N)."""
    path, record = _record(tmp_path)
    want = genial.Game.from_record({**record, "moves": record["moves"][:move]})
    seen: list[Any] = []
    real = genial.analysis.evaluate

    def spy(position: Any, **kwargs: Any) -> Any:
        seen.append(position)
        return real(position, **{**kwargs, "moves": position.legal_moves()[:2]})

    monkeypatch.setattr(genial.analysis, "evaluate", spy)
    argv = ["analyse", "--record", str(path), "--move", str(move), "--playouts", "2"]
    code, out, err, _ = run([*argv, "--workers", "1", "--no-progress"], capsys)
    assert code == 0, err
    assert [g.to_text() for g in seen] == [want.to_text()]
    assert "statistically tied for first" in out or "is best" in out


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_analyse_out_writes_a_table_that_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    game = genial.Game(2, seed=4)
    out = tmp_path / f"table{suffix}"
    argv = ["analyse", game.to_text(), "--playouts", "3", "--seed", "1", "--workers", "1"]
    code, _, err, _ = run([*argv, "--no-progress", "--out", str(out)], capsys)
    assert code == 0, err
    table = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    result = evaluate(game, playouts=3, seed=1, workers=1)
    assert table["move"].tolist() == [r["move"] for r in result.rows]
    assert table["wins"].tolist() == [r["wins"] for r in result.rows]
    assert table["best"].tolist() == [r["best"] for r in result.rows]


def test_analyse_out_refuses_an_unknown_extension_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = genial.Game(2, seed=4)
    out = tmp_path / "table.xlsx"
    code, _, err, began = run(["analyse", game.to_text(), "--out", str(out)], capsys)
    assert code == 2 and not out.exists() and not began
    assert "unsupported extension" in assert_one_line(err, "analyse")


def test_a_record_given_as_position_is_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, record = _record(tmp_path)
    for position in (str(path), json.dumps(record)):
        code, _, err, _ = run(["analyse", position], capsys)
        assert code == 2
        message = assert_one_line(err, "analyse")
        assert "--record FILE --move N" in message


@pytest.mark.parametrize("move", ["-1", "6", "x", "1.5", ""])
def test_an_invalid_move_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], move: str
) -> None:
    """Negative, past the end (the record has 5 moves: --move 0 to 5), not an integer: a
    one-line error, exit status 2, no traceback."""
    path, _ = _record(tmp_path)
    code, _, err, _ = run(["analyse", "--record", str(path), "--move", move], capsys)
    assert code == 2
    message = assert_one_line(err, "analyse")
    assert "--move" in message


def test_record_and_move_go_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _record(tmp_path)
    game = genial.Game(2, seed=4)
    for argv in (
        ["analyse", "--record", str(path)],
        ["analyse", game.to_text(), "--record", str(path), "--move", "1"],
        ["analyse"],
    ):
        code, _, err, _ = run(argv, capsys)
        assert code == 2
        assert "--record" in assert_one_line(err, "analyse")


# -- paired playouts (issue 41: the moves compared on the same determinisations) ---------------


def _midgame(seed: int = 3, moves: int = 12) -> genial.Game:
    game = genial.Game(2, seed=seed)
    for _ in range(moves):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game


def _kernel_playouts(game: Any, action: int, seed: int, first: int, n: int, view_seat: int) -> Any:
    """Playouts ``first`` to ``first + n - 1`` of ``action`` run by hand: one ``run_chunk``
    call of the game's kernel with the greedy policy, on the paired streams of
    ``child_seed(root, PAIR_KEY)`` (``game_prefix``, ``first_game``); the kernel's rows."""
    from genial.policies import kernel_codes, kernel_policies, parse_policies
    from genial.registry import entry_of
    from genial.seeds import as_seed_sequence, child_seed, seed_prefix

    found = entry_of(game)
    kind = found.analysis
    assert kind is not None
    base = kind.load(game.position)
    names, epsilons = parse_policies("greedy", game.players, 0.1, search=found.search)
    extra: dict[str, Any] = {}
    if found.search:
        codes, eps, extra["search"] = kernel_policies(names, epsilons)
    else:
        codes, eps = kernel_codes(names, epsilons)
    pair = child_seed(as_seed_sequence(seed), PAIR_KEY)
    rows = np.zeros(n, dtype=kind.kernel.ROW_DTYPE)
    chance, policy = np.random.PCG64(1), np.random.PCG64(2)  # (not used: paired)
    kind.kernel.run_chunk(
        base, chance, policy, False, codes, eps, rows, None,
        np.array([int(base.current)], dtype=np.int16), np.array([action], dtype=np.int16),
        view_seat=view_seat, game_prefix=seed_prefix(pair), pool_size=pair.pool_size,
        first_game=first, **extra,
    )  # fmt: skip
    return rows


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_playout_k_of_every_move_is_the_kernels_paired_game_k(kind: str) -> None:
    """Paired (the default), playout ``k`` of every move, in the player view, is the kernel's
    game on the streams ``(k, 0)``/``(k, 1)`` of ``child_seed(root, PAIR_KEY)``: the same redeal
    of the hidden tiles (cards) and the same later draws for move A's and move B's ``k``-th
    playout. Checked against one kernel call for all of them, and against calls starting at
    ``first_game=k`` for single playouts."""
    game = _midgame() if kind == "board" else CardGame(3, seed=2)
    seat = game.current_player
    legal = game.legal_moves()
    a, b = legal[0], legal[len(legal) // 2]
    n = 300
    result = evaluate(game, playouts=n, seed=7, workers=2, moves=[a, b], view="player")
    assert result.paired and result.best_set is not None and result.best_set.paired
    side = seat  # (2 and 3 players: no teams)
    for move in (a, b):
        i = [r["action"] for r in result.rows].index(move.action)
        rows = _kernel_playouts(game, move.action, 7, 0, n, seat)
        wins = (rows["winner"] == side).astype(np.int64)
        assert result.outcomes[i].tolist() == wins.tolist()
        for k in (0, 1, 37, n - 1):
            one = _kernel_playouts(game, move.action, 7, k, 1, seat)
            assert one.tobytes() == rows[k : k + 1].tobytes()
    # the moves differ, yet their k-th playouts share their luck: not independent draws
    first, second = (o.astype(np.float64) for o in result.outcomes)
    assert not np.array_equal(first, second)


@pytest.mark.usefixtures("toy_game")
def test_paired_playouts_of_a_move_do_not_depend_on_the_other_moves() -> None:
    """Playout ``k`` of a move is the same whatever else is evaluated with it (its streams are
    the ``k``-th, not its work item's), in the board game and in a game without a kernel."""
    from .toy import ToyGame

    game = _midgame(seed=5, moves=9)
    legal = game.legal_moves()
    a = legal[3]
    alone = evaluate(game, playouts=200, seed=3, workers=1, moves=[a])
    many = evaluate(game, playouts=200, seed=3, workers=1, moves=[legal[0], a, legal[-1]])
    i = [r["move"] for r in many.rows].index(str(a))
    assert many.outcomes[i].tolist() == alone.outcomes[0].tolist()
    assert many.rows[i] == {**alone.rows[0], "best": many.rows[i]["best"],
                            "p_best": many.rows[i]["p_best"]}  # fmt: skip
    near = ToyGame.from_text("pig2 | 25 20 | seat 0 | total 5 | move 30", seed=1)
    toy = evaluate(near, playouts=60, seed=3, workers=1)
    roll = evaluate(near, playouts=60, seed=3, workers=1, moves=["roll"])
    j = [r["move"] for r in toy.rows].index("roll")
    assert toy.outcomes[j].tolist() == roll.outcomes[0].tolist()
    assert toy.paired and toy.best_set is not None and toy.best_set.paired
    assert not evaluate(near, playouts=60, seed=3, workers=1, paired=False).paired


@pytest.mark.usefixtures("toy_game")
@pytest.mark.parametrize("kind", ["board", "cards", "toy"])
def test_paired_results_do_not_depend_on_the_workers(kind: str) -> None:
    """Several work items (the playouts of a move cut into pieces over items), one thread or
    two: the same rows and the same outcomes, playout by playout."""
    from .toy import ToyGame

    if kind == "board":
        game: Any = _midgame(seed=6, moves=8)
        args: dict[str, Any] = {"playouts": 700, "moves": game.legal_moves()[:4]}
    elif kind == "cards":
        game = CardGame(3, seed=2)
        args = {"playouts": 400}
    else:
        game = ToyGame.from_text("pig2 | 25 20 | seat 0 | total 5 | move 30", seed=1)
        args = {"playouts": 300}
    one = evaluate(game, workers=1, seed=21, **args)
    two = evaluate(game, workers=2, seed=21, **args)
    assert one.rows == two.rows
    assert [o.tolist() for o in one.outcomes] == [o.tolist() for o in two.outcomes]
    other = evaluate(game, workers=2, seed=22, **args)
    assert [o.tolist() for o in one.outcomes] != [o.tolist() for o in other.outcomes]


@pytest.mark.parametrize("workers", [1, 2])
def test_adaptive_playouts_are_the_first_of_a_uniform_run(workers: int) -> None:
    """Paired, playout ``k`` of a move is the same whatever the rounds: in an adaptive run
    (moves dropped after different rounds), each move's ``n`` playouts are the first ``n`` of
    a uniform run of the same seed, and a uniform run of ``n`` playouts gives them too."""
    game = _card_instant_win()
    uniform = evaluate(game, playouts=512, seed=4, workers=1)
    adaptive = evaluate(game, playouts=512, seed=4, workers=workers, adaptive=True,
                        min_playouts=16)  # fmt: skip
    full = {r["move"]: o for r, o in zip(uniform.rows, uniform.outcomes, strict=True)}
    counts = {r["playouts"] for r in adaptive.rows}
    assert len(counts) > 1  # some moves dropped, after some rounds
    for row, outcome in zip(adaptive.rows, adaptive.outcomes, strict=True):
        assert len(outcome) == row["playouts"]
        assert outcome.tolist() == full[row["move"]][: row["playouts"]].tolist()
    n = min(counts)
    short = evaluate(game, playouts=n, seed=4, workers=workers)
    for row, outcome in zip(short.rows, short.outcomes, strict=True):
        assert outcome.tolist() == full[row["move"]][:n].tolist()
    assert adaptive.best_set is not None and adaptive.best_set.paired
    again = best_set(adaptive.outcomes, confidence=0.95, paired=True)
    assert [r["best"] for r in adaptive.rows] == again.mask.tolist()


# The numbers of the unpaired playouts (paired=False) computed by the code before pairing was
# added (the work items' own streams): paired=False must keep them bit for bit.
_UNPAIRED_BOARD = [
    ("P1,-5+Y2,-5", 151), ("P1,-5+G2,-5", 144), ("Y1,-5+Y2,-5", 137), ("Y1,-5+P2,-5", 136),
    ("G1,-5+P2,-5", 136), ("O1,-5+O2,-5", 118),
]  # fmt: skip
_UNPAIRED_BOARD_FIRST = [
    1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1,
    0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1,
]  # fmt: skip
_UNPAIRED_ADAPTIVE = [
    ("Y1,-5+Y2,-5", 163), ("O1,-5+O2,-5", 146), ("P1,-5+G2,-5", 132), ("Y1,-5+P2,-5", 132),
    ("P1,-5+Y2,-5", 126), ("G1,-5+P2,-5", 118),
]  # fmt: skip
_UNPAIRED_CARDS = [
    ("OY", 101), ("BP", 89), ("YO", 89), ("RB", 85), ("PB", 84), ("BG", 83), ("RY", 82),
    ("PR", 77), ("RP", 77), ("GB", 76), ("BR", 66), ("YR", 64),
]  # fmt: skip


def test_unpaired_playouts_are_those_of_before() -> None:
    """``paired=False`` plays what ``evaluate`` played before paired playouts: the same wins
    per move (uniform and adaptive, board and cards), the same playouts in the same order, the
    unpaired comparison, and no "paired" in the summary."""
    game = genial.Game(2, seed=4)
    moves = game.legal_moves()[:6]
    result = evaluate(game, playouts=300, seed=2, workers=2, moves=moves, paired=False)
    assert [(r["move"], r["wins"]) for r in result.rows] == _UNPAIRED_BOARD
    assert all(r["playouts"] == 300 and r["shared"] == 0 for r in result.rows)
    assert result.outcomes[0][:40].tolist() == _UNPAIRED_BOARD_FIRST
    assert not result.paired and result.best_set is not None and not result.best_set.paired
    assert "paired" not in str(result)
    paired = evaluate(game, playouts=300, seed=2, workers=2, moves=moves)
    assert [(r["move"], r["wins"]) for r in paired.rows] != _UNPAIRED_BOARD
    assert "(paired playouts): marked *" in str(paired)
    assert "(paired playouts)" in paired._repr_html_() and "paired=True" in repr(paired)
    adaptive = evaluate(game, playouts=300, seed=2, workers=1, moves=moves, view="omniscient",
                        adaptive=True, min_playouts=16, paired=False)  # fmt: skip
    assert [(r["move"], r["wins"]) for r in adaptive.rows] == _UNPAIRED_ADAPTIVE
    cards = evaluate(CardGame(3, seed=2), playouts=200, seed=5, workers=1,
                     paired=False)  # fmt: skip
    assert [(r["move"], r["wins"]) for r in cards.rows] == _UNPAIRED_CARDS


@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0, np.int64(1)])
def test_a_bad_paired_value_is_refused(value: Any) -> None:
    game = genial.Game(2, seed=1)
    with pytest.raises(GenialError, match="paired"):
        evaluate(game, playouts=2, paired=value)


def test_the_command_line_pairs_the_playouts_unless_told_not_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from genial import Game
    from genial.analysis import evaluate
    from genial.cli import main

    game = Game(2, seed=5)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    text = game.position.to_text()
    argv = ["analyse", text, "--playouts", "24", "--seed", "2", "--rows", "3", "--workers", "1"]
    for flags, paired in (([], True), (["--no-paired"], False)):
        assert main([*argv, *flags]) == 0
        out = capsys.readouterr().out
        expected = evaluate(text, playouts=24, seed=2, workers=1, paired=paired)
        assert expected.tied() in out
        assert all(row["move"] in out for row in expected.rows[:3])


def test_paired_p_best_keeps_the_pairing() -> None:
    """Move B wins every playout move A wins and 6 more of 200: paired, B is the better in
    nearly every draw of the Bayesian bootstrap (shared playout weights); independent posteriors
    would call the two nearly even (the old ``p_best``, kept for unpaired playouts)."""
    from genial.analysis import _p_best

    a = np.zeros(200, dtype=np.int64)
    a[::2] = 1  # 100 wins
    b = a.copy()
    b[1:13:2] = 1  # the same, and 6 more
    root = np.random.SeedSequence(5)
    paired = _p_best([b, a], root, paired=True)
    unpaired = _p_best([b, a], root, paired=False)
    assert paired[0] > 0.99  # (only the moves' own pseudo-observations ever reverse it)
    assert 0.5 < unpaired[0] < 0.9 and math.isclose(float(unpaired.sum()), 1.0)
    assert _p_best([b, a], root, paired=True).tolist() == paired.tolist()  # the seed decides


def test_paired_p_best_is_even_between_equal_moves_and_handles_unequal_lengths() -> None:
    """Equal moves share the draws about evenly (the pseudo-observations break ties); a move
    dropped early (fewer playouts) keeps its own playouts' uncertainty."""
    from genial.analysis import _p_best

    rng = np.random.default_rng(3)
    x = (rng.random(400) < 0.5).astype(np.int64)
    even = _p_best([x, x.copy()], np.random.SeedSequence(1), paired=True)
    assert abs(even[0] - 0.5) < 0.05
    short = x[:16].copy()  # 16 playouts, its win rate near the other's
    mixed = _p_best([x, short], np.random.SeedSequence(1), paired=True)
    assert 0.1 < mixed[1] < 0.9 and math.isclose(float(mixed.sum()), 1.0)
