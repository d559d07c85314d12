"""genial.analysis.evaluate: playouts of every legal decision of the seat to move.

Constructed positions whose best move is known by the rules (RULES §3.4 bonus plays, §3.5 the
swap, §3.6 the instant win) must be ranked first; the player view must use only what the seat
to move knows; the table must not depend on the workers; the playouts must be those of the
public API (a reference built from ``Game.play`` and ``Game.playouts``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

import genial
from genial import Game, GenialError, Move, Position
from genial.analysis import Evaluation, evaluate
from genial.board.moves import TILES

from .kernel_contract import check_forced_each, streams
from .rules import positions as h

pd = pytest.importorskip("pandas")


def _rest(racks: list[list[str]], board_tiles: Sequence[str] = ()) -> str:
    """The bag text of the full set less the racks' tiles (and tiles counted on the board)."""
    counts = [int(c) for c in h.FULL_BAG]
    for code in [c for rack in racks for c in rack] + list(board_tiles):
        counts[h.TILE_TYPES.index(h.tile(code))] -= 1
    return "".join(str(c) for c in counts)


def _instant_win() -> Game:
    """RULES §3.6: seat 0 has five counters at 18 and purple at 16; a PP tile with both halves
    next to the purple symbol (-5,0) scores 1 + 1 and completes the six at once. The opponent
    leads otherwise (17 everywhere against the mover's 16)."""
    racks = [["PP", "RP", "GB", "OY", "RR", "BO"], ["RG", "GB", "BO", "OY", "YP", "RP"]]
    return h.game(scores=[[18, 18, 18, 18, 18, 16], [17] * 6], racks=racks, bag=_rest(racks))


def _instant_wins(game: Game) -> set[str]:
    """The moves after which the game is over and the mover has won, by the public API."""
    out = set()
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.is_over and after.winner() == game.current_player:
            out.add(str(move))
    return out


def _two_bonus_plays() -> Game:
    """RULES §3.4, §3.6: seat 0 has red and green at 16, purple at 16, the rest at 18; the
    opponent has five at 18 and yellow at 17, and every tile it can hold shows yellow, so it
    completes its six on its next turn. R on (0,0) scores 2 (red halves at (-1,0) and (0,-1)),
    G on (1,0) scores 2 (green at (2,0) and (1,1)): R0,0+G1,0 takes two counters to 18 and
    earns two bonus plays, and only with two more placements (purple 16 -> 17 -> 18, one
    point each next to the purple symbol) can seat 0 complete its six before the opponent."""
    racks = [["RG", "BP", "OP", "BB", "OO", "YY"], ["RY", "GY", "BY", "OY", "YY", "YP"]]
    bag = {"RY": 5, "GY": 5, "BY": 5, "OY": 5, "YY": 3, "YP": 5}
    return h.game(
        covered={(-1, 0): "R", (0, -1): "R", (2, 0): "G", (1, 1): "G"},
        scores=[[16, 16, 18, 18, 18, 16], [18, 18, 18, 18, 17, 18]],
        racks=racks,
        bag=bag,
    )


def _clear_swap() -> Game:
    """RULES §3.5: the swap decision of seat 0, whose lowest colour is purple (14; the
    opponent has 15 everywhere). The board is full but for the three cells next to the purple
    symbol and the pair (1,0)-(2,0) beside a purple half at (0,0): two placements are left, the
    opponent's and seat 0's, and seat 0 wins if its purple half lands on a scoring cell. Its
    rack (RR GG BB OO YY) shows no purple; every unseen tile does: a swap brings six purple
    tiles, keeping only the one refilled tile."""
    free = {(-4, -1), (-4, 0), (-5, 1), (1, 0), (2, 0)}
    covered: dict[tuple[int, int], str] = {}
    k = 0
    for cell in h.area_cells(2):
        if cell in h.PRINTED or cell in free:
            continue
        if cell == (0, 0):
            covered[cell] = "P"
            continue
        covered[cell] = "RGBOY"[k % 5]
        k += 1
    return h.game(
        covered=covered,
        scores=[[17, 17, 17, 17, 17, 14], [15] * 6],
        racks=[["RR", "GG", "BB", "OO", "YY"], ["RP", "GP", "BP", "OP", "YP", "PP"]],
        bag={"RP": 5, "GP": 5, "BP": 5, "OP": 5, "YP": 5, "PP": 3},
        phase="s",
    )


def _midgame(seed: int = 3, moves: int = 12, players: int | str = 2) -> Game:
    game = Game(players, seed=seed)
    for _ in range(moves):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game


# -- the known best moves ----------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_an_instant_win_is_ranked_first(policy: str) -> None:
    """RULES §3.6: the placements completing six counters at 18 win every playout and come
    first; every other move wins less often."""
    game = _instant_win()
    winners = _instant_wins(game)
    assert winners == {"P-4,-1+P-4,0", "P-4,0+P-5,1"}
    result = evaluate(game, playouts=100, policy=policy, seed=1, workers=1)
    top = result.rows[: len(winners)]
    assert {r["move"] for r in top} == winners
    assert str(result.best) in winners
    assert all(r["win_rate"] == 1.0 and r["lowest"] == 18.0 for r in top)
    assert all(r["win_rate"] < 1.0 for r in result.rows[len(winners) :])
    assert len(result.rows) == len(game.legal_moves())


def test_a_placement_earning_two_bonus_plays_is_ranked_first() -> None:
    """RULES §3.4: R0,0+G1,0 is the one placement earning two bonus plays (checked by the
    public API); with greedy playouts it alone lets seat 0 finish before the opponent."""
    game = _two_bonus_plays()
    earning = []
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.bonus_plays == 2:
            earning.append(str(move))
    assert earning == ["R0,0+G1,0"]
    result = evaluate(game, playouts=100, policy="greedy", seed=2, workers=1)
    assert str(result.best) == "R0,0+G1,0"
    first, second = result.rows[0], result.rows[1]
    assert first["win_lo"] > second["win_hi"]  # clearly first, not by luck
    assert first["points"] == 4


def test_a_clearly_right_swap_is_ranked_first() -> None:
    """RULES §3.5: swap beats keep well beyond the intervals, in both views."""
    game = _clear_swap()
    assert game.phase == "swap"
    assert game.legal_moves() == [Move.swap(), Move.keep()]
    for view in ("player", "omniscient"):
        result = evaluate(game, playouts=400, policy="random", seed=3, workers=1, view=view)
        assert [r["move"] for r in result.rows] == ["swap", "keep"]
        assert result.rows[0]["win_lo"] > result.rows[1]["win_hi"]
        assert [r["points"] for r in result.rows] == [0, 0]


# -- what the playouts know --------------------------------------------------------------------


def _with_rack(game: Game, seat: int) -> Game:
    """The same position but for one tile of ``seat``'s rack exchanged with a different tile
    type from the bag: what the other seats see is unchanged."""
    position = game.position
    rack = list(position.racks[seat])
    bag = list(position.bag)
    old = rack[0]
    new = next(i for i, n in enumerate(bag) if n > 0 and TILES[i] != old and TILES[i] not in rack)
    rack[0] = TILES[new]
    bag[new] -= 1
    bag[TILES.index(old)] += 1
    racks = list(position.racks)
    racks[seat] = tuple(rack)
    changed = Game.from_position(position.replace(racks=tuple(racks), bag=tuple(bag)))
    assert changed.rack(seat) != game.rack(seat)
    assert changed.rack(game.current_player) == game.rack(game.current_player)
    return changed


def _same_rows(a: Evaluation, b: Evaluation) -> bool:
    return a.rows == b.rows


def test_the_player_view_does_not_depend_on_the_opponents_racks() -> None:
    """The player view redeals what the seat to move cannot see: another opponent rack (and
    so another bag) gives the same table for the same seed; the omniscient view differs."""
    game = _midgame()
    other = _with_rack(game, 1 - game.current_player)
    candidates = game.legal_moves()[:25]
    args = {"playouts": 120, "seed": 5, "workers": 1, "moves": candidates, "policy": "greedy"}
    assert _same_rows(evaluate(game, **args), evaluate(other, **args))
    omniscient_a = evaluate(game, view="omniscient", **args)
    omniscient_b = evaluate(other, view="omniscient", **args)
    assert not _same_rows(omniscient_a, omniscient_b)


def test_the_player_view_hides_the_partners_rack_too() -> None:
    """RULES §4.2: in the team game the partner's rack is hidden as well (racks are
    individual), so changing it changes nothing in the player view."""
    game = _midgame(seed=8, moves=10, players="4t")
    partner = (game.current_player + 2) % 4
    other = _with_rack(game, partner)
    args = {"playouts": 60, "seed": 1, "workers": 1, "moves": game.legal_moves()[:12]}
    assert _same_rows(evaluate(game, **args), evaluate(other, **args))
    assert not _same_rows(
        evaluate(game, view="omniscient", **args), evaluate(other, view="omniscient", **args)
    )


def _reference(game: Game, move: Move, view: str, policy: str, n: int, seed: int) -> np.ndarray:
    """Reference playouts through the public API only: per playout, a copy of the position
    (the hidden tiles redealt by hand for the player view), the move played with a fresh chance
    stream, then one ``Game.playouts`` game. Returns (wins, lowest) of the seat to move."""
    rng = np.random.default_rng(seed)
    seat = game.current_player
    base = game.position
    out = np.zeros((n, 2))
    for i in range(n):
        position = base
        if view == "player":
            pool = list(position.bag)
            for s in range(game.players):
                if s != seat:
                    for t in position.racks[s]:
                        pool[TILES.index(t)] += 1
            racks = list(position.racks)
            for s in range(game.players):
                if s == seat:
                    continue
                drawn = []
                for _ in range(len(position.racks[s])):
                    t = int(rng.choice(len(pool), p=np.array(pool) / sum(pool)))
                    pool[t] -= 1
                    drawn.append(TILES[t])
                racks[s] = tuple(drawn)
            position = position.replace(racks=tuple(racks), bag=tuple(pool))
        copy = Game.from_position(position, seed=int(rng.integers(2**32)))
        copy.play(move)
        runs = copy.playouts(1, policy=policy, seed=int(rng.integers(2**32)))
        out[i] = (runs.winner[0] == seat, runs.scores[0, seat].min())
    return out


@pytest.mark.parametrize("view", ["player", "omniscient"])
def test_playouts_agree_with_the_public_api(view: str) -> None:
    """The kernel's playouts after a move have the distribution of reference playouts built
    from Game.play and Game.playouts (win rate and mean lowest colour within 4.5 standard
    errors): the move is played by the seat to move, the game is played to its end, and the
    player view redeals exactly the tiles that seat cannot see."""
    game = _midgame(seed=11, moves=14)
    move = max(game.legal_moves(), key=lambda m: sum(game.gains(m)))
    n_ref, n_eval = 500, 4000
    ref = _reference(game, move, view, "greedy", n_ref, seed=7)
    result = evaluate(game, playouts=n_eval, policy="greedy", seed=9, moves=[move], view=view)
    row = result.rows[0]
    assert row["playouts"] == n_eval
    p_ref, p_eval = ref[:, 0].mean(), row["win_rate"]
    se = math.sqrt(p_ref * (1 - p_ref) / n_ref + p_eval * (1 - p_eval) / n_eval) or 1e-9
    assert abs(p_ref - p_eval) < 4.5 * se
    low_se = math.sqrt(ref[:, 1].var(ddof=1) / n_ref) + (row["lowest_hi"] - row["lowest"]) / 1.96
    assert abs(ref[:, 1].mean() - row["lowest"]) < 4.5 * low_se


def test_playouts_continue_the_position() -> None:
    """Counters never go down: every playout ends with the mover's lowest colour at least
    its present one, and the points column is what Game.gains says."""
    game = _midgame(seed=4, moves=16)
    seat = game.current_player
    now = int(game.scores[seat].min())
    moves = game.legal_moves()[::20]
    result = evaluate(game, playouts=50, seed=1, moves=moves)
    for row in result.rows:
        assert row["lowest"] >= now
        assert row["points"] == sum(game.gains(row["move"]))
        assert 0.0 <= row["rank"] <= game.players - 1


# -- reproducibility, adaptivity ---------------------------------------------------------------


def test_the_table_does_not_depend_on_the_workers() -> None:
    """Several work items (more than 4096 playouts) on one thread or two: the same table."""
    game = _midgame(seed=6, moves=8)
    args = {"playouts": 700, "seed": 21, "moves": game.legal_moves()[:20]}
    one = evaluate(game, workers=1, **args)
    two = evaluate(game, workers=2, **args)
    assert one.total_playouts == 14_000
    assert _same_rows(one, two)
    assert not _same_rows(one, evaluate(game, workers=2, **{**args, "seed": 22}))


def test_adaptive_finds_the_best_move_with_far_fewer_playouts() -> None:
    """Successive elimination keeps the winning placements to the end (each with every
    playout), spends less than the uniform budget, and drops only moves clearly worse (the
    other moves win about 80%: Hoeffding's bounds part them from 100% late)."""
    game = _instant_win()
    winners = _instant_wins(game)
    moves = [m for m in game.legal_moves() if str(m) in winners] + game.legal_moves()[::8]
    uniform = evaluate(game, playouts=512, seed=4, moves=moves)
    adaptive = evaluate(game, playouts=512, seed=4, moves=moves, adaptive=True, min_playouts=16)
    assert str(uniform.best) in winners and str(adaptive.best) in winners
    assert adaptive.total_playouts < uniform.total_playouts
    assert {r["move"] for r in adaptive.rows if r["playouts"] == 512} >= winners
    counts = [r["playouts"] for r in adaptive.rows]
    assert counts == sorted(counts, reverse=True)  # the moves kept longest come first
    assert min(counts) < 512 and min(counts) >= 16
    assert all(r["win_rate"] < 0.9 for r in adaptive.rows if r["playouts"] < 512)
    assert adaptive.adaptive and not uniform.adaptive


# -- the table ---------------------------------------------------------------------------------


def test_table_columns_order_and_intervals() -> None:
    game = _midgame(seed=2, moves=6)
    result = evaluate(game, playouts=200, seed=3, moves=game.legal_moves()[:40])
    table = result.table
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == [
        "move",
        "action",
        "playouts",
        "wins",
        "shared",
        "win_rate",
        "win_lo",
        "win_hi",
        "rank",
        "lowest",
        "lowest_lo",
        "lowest_hi",
        "points",
        "best",
        "p_best",
    ]
    rates = table["win_rate"].to_numpy()
    assert (np.diff(rates) <= 1e-12).all()  # best first
    assert (table["win_lo"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_hi"]).all()
    assert (table["lowest_lo"] <= table["lowest"]).all()
    assert (table["wins"] == np.round(table["win_rate"] * table["playouts"])).all()
    assert {Move.parse(m).action for m in table["move"]} == set(table["action"])
    text = str(result)
    assert text.splitlines()[0].startswith(f"seat {game.current_player} to place")
    assert str(result.best) in text
    page = result._repr_html_()
    assert page.startswith("<table") and str(result.best) in page


def test_a_position_text_or_position_is_the_game() -> None:
    game = _midgame(seed=5, moves=4)
    args = {"playouts": 30, "seed": 1, "moves": game.legal_moves()[:10], "workers": 1}
    expected = evaluate(game, **args).rows
    assert evaluate(game.to_text(), **args).rows == expected
    assert evaluate(game.position, **args).rows == expected


def test_the_solo_game_is_ranked_by_its_result() -> None:
    """RULES §4.1: the solo game's result is its lowest counter: the metric, best first."""
    game = Game(1, seed=3)
    result = evaluate(game, playouts=60, seed=1, workers=1)
    assert result.metric == "lowest"
    lows = [r["lowest"] for r in result.rows]
    assert lows == sorted(lows, reverse=True)
    assert "lowest" in str(result).splitlines()[1]


def test_policies_per_seat_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    game = _midgame(seed=9, moves=4)
    result = evaluate(
        game,
        playouts=20,
        policy=["greedy", "epsilon-greedy:0.3"],
        seed=1,
        moves=game.legal_moves()[:5],
        progress=True,
    )
    assert result.policy == ("greedy", "epsilon-greedy:0.3")
    assert result.total_playouts == 100


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"playouts": 0}, "playouts"),
        ({"playouts": 1.5}, "playouts"),
        ({"view": "god"}, "view"),
        ({"policy": "clever"}, "unknown policy"),
        ({"moves": ["swap"]}, "not legal"),
        ({"moves": []}, "at least one"),
        ({"moves": "R0,0+R1,0"}, "sequence"),
        ({"adaptive": 1}, "adaptive"),
        ({"workers": 0}, "workers"),
        ({"min_playouts": 0}, "min_playouts"),
    ],
)
def test_wrong_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    game = Game(2, seed=1)
    before = game.to_text()
    with pytest.raises(GenialError, match=message):
        evaluate(game, **kwargs)  # type: ignore[arg-type]
    assert game.to_text() == before


def test_no_decision_to_analyse() -> None:
    game = _instant_win()
    game.play("P-4,-1+P-4,0")
    assert game.is_over
    with pytest.raises(GenialError, match="over"):
        evaluate(game)
    with pytest.raises(GenialError, match="Game"):
        evaluate(42)  # type: ignore[arg-type]
    with pytest.raises(genial.PositionError):
        evaluate("not a position")


def test_evaluate_leaves_the_game_alone() -> None:
    """The analysis reads the position: the game's position and streams are untouched."""
    game = _midgame(seed=12, moves=5)
    before = game.to_text()
    choice = game.copy().choose("random")
    evaluate(game, playouts=10, seed=1, moves=game.legal_moves()[:3])
    assert game.to_text() == before
    assert game.choose("random") == choice
    assert isinstance(Position.parse(before), Position)


def test_forced_each_plays_the_games_of_one_call_per_action() -> None:
    """``run_chunk(forced_each=...)`` (what evaluate's work items use): one kernel call whose
    game ``g`` forces ``forced_each[g]`` plays the games of one call per run of equal actions
    on the same two streams; a wrong length, or more than one forced seat, is refused."""
    from genial import _core
    from genial.board.notation import load
    from genial.policies import kernel_policies, parse_policies

    game = Game(2, seed=11)
    for _ in range(9):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    base = load(game.position)
    seat = np.array([game.position.to_move], dtype=np.int16)
    codes, eps, _ = kernel_policies(*parse_policies("random", 2))
    actions = [m.action for m in game.legal_moves()[:3]]
    one = check_forced_each(_core, base, int(seat[0]), codes, eps, actions)
    assert len(set(one["placements"].tolist())) > 1
    each = np.repeat(np.array(actions, dtype=np.int16), [5, 1, 7])
    chance, policy = streams()
    with pytest.raises(ValueError, match="one action per row"):
        _core.run_chunk(
            base, chance, policy, False, codes, eps, one, None, seat, each[:1],
            forced_each=each[:-1],
        )  # fmt: skip
    with pytest.raises(ValueError, match="one forced seat"):
        _core.run_chunk(
            base, chance, policy, False, codes, eps, one, None,
            np.array([0, 1], dtype=np.int16), each[:2], forced_each=each,
        )  # fmt: skip
