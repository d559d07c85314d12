"""genial.analysis.evaluate for the card game: playouts of every legal decision of the seat to
move, from a ``CardGame``, a ``CardPosition`` or its text.

Constructed positions whose best decision is known by the rules (RULES §5.7 the instant win,
§5.6 a bonus turn, §5.5 the swap) must be ranked first; the player view must use only what the
seat to move can see (``CardGame.view``: never another hand, the deck or the discard pile's
contents); the table must not depend on the workers; the playouts must be those of the public
API (a reference built from ``CardGame.play`` and ``genial.cards.simulate``). The kernel's new
``run_chunk`` arguments (``forced_*``, ``view_seat``) and ``Cards.redeal`` are checked against
their definitions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import genial
from genial import GenialError
from genial.analysis import Evaluation, evaluate
from genial.cards import CardGame, CardMove, CardPosition, simulate
from genial.cards import _kernel as kernel
from genial.cards.moves import CARDS, card_id
from genial.cards.notation import load
from genial.policies import kernel_codes, parse_policies

from ..kernel_contract import check_forced_each

pd = pytest.importorskip("pandas")


# -- positions ---------------------------------------------------------------------------------


def _instant_win() -> CardGame:
    """RULES §5.7, §5.3: seat 0 has red and green at 6, the rest at 8; red and green each show
    on two display cards (RG, RB; RG, GO), so RG scored either way round takes both to 8: six
    markers at 7 or more, the game ends at once. No other card of the hand shows both."""
    return CardGame.from_position(
        CardPosition.build(
            3,
            hands=[
                ["RG", "BO", "YP", "RB", "OP", "BY"],
                ["GY", "BP", "OY", "GP", "RP", "YP"],
                ["RY", "GO", "BO", "OP", "YP", "GP"],
            ],
            displays=[["RG"], ["RB"], ["GO"]],
            markers=[[6, 6, 8, 8, 8, 8], [8, 8, 8, 8, 8, 5], [8, 8, 8, 8, 5, 8]],
        )
    )


def _instant_wins(game: CardGame) -> set[str]:
    """The moves after which the game is over and the mover has won, by the public API."""
    out = set()
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.is_over and after.winner() == game.current_player:
            out.add(str(move))
    return out


def _bonus_turn() -> CardGame:
    """RULES §5.6, §5.3, §5.8 (two players, two display cards each): seat 0 (markers R 9, G 4,
    B 4, the rest 8) holds RG and BG; red shows once on the displays (RY), green once (GB),
    blue three times (BO, BP, GB). RG either way round takes red to 10, a bonus turn, and green
    to 5; the rotation puts RG on the display in place of RY, so green shows twice, and the
    bonus card BG either way round takes blue to 7 and green to 7: six markers at 7, a win.
    BG played first reaches only green 5, blue 7 and hands the turn over."""
    return CardGame.from_position(
        CardPosition.build(
            2,
            hands=[["RG", "BG"], ["GY", "BP", "OY", "GP", "RP", "YP"]],
            displays=[["RY", "BO"], ["BP", "GB"]],
            markers=[[9, 4, 4, 8, 8, 8], [9, 9, 9, 9, 9, 4]],
        )
    )


def _clear_swap() -> CardGame:
    """RULES §5.5: seat 0's swap decision; its lowest colour is purple (6, the rest at 8) and no
    card of its hand shows purple, so any purple card wins on its next turn (its own display YP
    shows purple: 6 + 1 = 7, RULES §5.7). Keeping draws one card, swapping six: swapping gives
    far better odds of holding purple. The opponents (6 everywhere) need three cards at least
    to finish, so seat 0 has a turn or two to find purple."""
    return CardGame.from_position(
        CardPosition.build(
            3,
            hands=[
                ["RG", "RB", "GB", "RO", "GO"],
                ["GY", "BO", "OY", "RY", "RO", "BY"],
                ["RY", "GO", "BO", "OY", "GY", "RB"],
            ],
            displays=[["YP"], ["OP"], ["BP"]],
            markers=[[8, 8, 8, 8, 8, 6], [6] * 6, [6] * 6],
            phase="swap",
        )
    )


def _midgame(seed: int = 3, moves: int = 12, players: int = 3) -> CardGame:
    game = CardGame(players, seed=seed)
    for _ in range(moves):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game


def _exchanged(game: CardGame, field: str, seat: int | None = None) -> CardGame:
    """The same position but for one card of ``seat``'s hand (``field="hand"``) or of the
    discard pile (``field="discard"``) exchanged with a card of another type from the deck:
    what the seat to move can see (``CardGame.view``) is unchanged."""
    pos = game.position
    deck = list(pos.deck)
    if field == "hand":
        assert seat is not None
        cards = list(pos.hands[seat])
        old = card_id(cards[0])
    else:
        pile = list(pos.discard)
        old = next(t for t, k in enumerate(pile) if k > 0)
    new = next(t for t, k in enumerate(deck) if k > 0 and t != old)
    deck[new] -= 1
    deck[old] += 1
    if field == "hand":
        assert seat is not None
        cards[0] = CARDS[new]
        hands = list(pos.hands)
        hands[seat] = tuple(cards)
        changed = pos.replace(hands=tuple(hands), deck=tuple(deck))
    else:
        pile[old] -= 1
        pile[new] += 1
        changed = pos.replace(discard=tuple(pile), deck=tuple(deck))
    other = CardGame.from_position(changed)
    mover = game.current_player
    assert other.to_text() != game.to_text()
    assert other.view(mover) == game.view(mover)
    return other


# -- the known best decisions ------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_an_instant_win_is_ranked_first(policy: str) -> None:
    """RULES §5.7: the plays completing six markers at 7 win every playout and come first;
    every other play wins less often."""
    game = _instant_win()
    winners = _instant_wins(game)
    assert winners == {"RG", "GR"}
    result = evaluate(game, playouts=100, policy=policy, seed=1, workers=1)
    top = result.rows[: len(winners)]
    assert {r["move"] for r in top} == winners
    assert str(result.best) in winners and isinstance(result.best, CardMove)
    assert all(r["win_rate"] == 1.0 and r["lowest"] == 8.0 and r["rank"] == 0 for r in top)
    assert all(r["win_rate"] < 1.0 for r in result.rows[len(winners) :])
    assert len(result.rows) == len(game.legal_moves())
    assert isinstance(result.rules, genial.cards.CardRules) and result.phase == "play"


def test_a_play_earning_a_bonus_turn_is_ranked_first() -> None:
    """RULES §5.6: RG (either way round) is the one card earning a bonus turn (checked by the
    public API); the bonus card then wins, so it wins every playout, well clear of BG."""
    game = _bonus_turn()
    earning = set()
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.bonus_turns > 0:
            assert after.current_player == 0 and not after.is_over
            earning.add(str(move))
    assert earning == {"RG", "GR"}
    result = evaluate(game, playouts=200, policy="random", seed=2, workers=1)
    assert {r["move"] for r in result.rows[:2]} == earning
    assert all(r["win_rate"] == 1.0 for r in result.rows[:2])
    assert result.rows[1]["win_lo"] > result.rows[2]["win_hi"]  # clearly first, not by luck
    assert [r["points"] for r in result.rows[:2]] == [2, 2]  # red +1 (to the cap), green +1


def test_a_clearly_right_swap_is_ranked_first() -> None:
    """RULES §5.5: swap beats keep well beyond the intervals, in both views."""
    game = _clear_swap()
    assert game.phase == "swap"
    assert game.legal_moves() == [CardMove.swap(), CardMove.keep()]
    for view in ("player", "omniscient"):
        result = evaluate(game, playouts=400, seed=3, workers=1, view=view)
        assert [r["move"] for r in result.rows] == ["swap", "keep"]
        assert result.rows[0]["win_lo"] > result.rows[1]["win_hi"]
        assert [r["points"] for r in result.rows] == [0, 0]
        assert result.phase == "swap"
        assert str(result).startswith("seat 0 to decide the swap")


# -- what the playouts know --------------------------------------------------------------------


def _same_rows(a: Evaluation, b: Evaluation) -> bool:
    return a.rows == b.rows


def test_the_player_view_does_not_depend_on_what_the_seat_cannot_see() -> None:
    """The player view redeals the other hands, the deck and the discard pile (face down,
    RULES §5.3): another opponent hand, or another discard pile (the deck making up the
    difference), gives the same table for the same seed; the omniscient view differs."""
    game = _midgame()
    mover = game.current_player
    assert game.discard_size > 0
    hand = _exchanged(game, "hand", (mover + 1) % 3)
    pile = _exchanged(game, "discard")
    args: dict[str, Any] = {"playouts": 150, "seed": 5, "workers": 1, "policy": "greedy"}
    base = evaluate(game, **args)
    assert _same_rows(base, evaluate(hand, **args))
    assert _same_rows(base, evaluate(pile, **args))
    omniscient = evaluate(game, view="omniscient", **args)
    assert not _same_rows(omniscient, evaluate(hand, view="omniscient", **args))
    assert not _same_rows(omniscient, evaluate(pile, view="omniscient", **args))
    assert not _same_rows(base, omniscient)


def test_the_table_reads_the_position_only() -> None:
    """A game, its position and its text give the same table: not the game's history (the
    order its kernel's deck happens to be in), only the position."""
    game = _midgame(seed=5, moves=7)
    args: dict[str, Any] = {"playouts": 60, "seed": 1, "workers": 1}
    expected = evaluate(game, **args).rows
    assert evaluate(game.to_text(), **args).rows == expected
    assert evaluate(game.position, **args).rows == expected
    assert evaluate(CardGame.from_text(game.to_text(), seed=99), **args).rows == expected


def _reference(
    game: CardGame, move: CardMove, view: str, policy: str, n: int, seed: int
) -> np.ndarray:
    """Reference playouts through the public API only: per playout, the position (the cards
    the seat to move cannot see redealt by hand for the player view: every other hand, then
    the discard pile, each keeping its size, from the pooled deck, discard pile and hands), the
    move played with a fresh chance stream, then one ``genial.cards.simulate`` game from there.
    Returns (wins, lowest) of the seat to move."""
    rng = np.random.default_rng(seed)
    seat = game.current_player
    base = game.position
    out = np.zeros((n, 2))
    for i in range(n):
        position = base
        if view == "player":
            pool = [d + k for d, k in zip(position.deck, position.discard, strict=True)]
            for s in range(game.players):
                if s != seat:
                    for c in position.hands[s]:
                        pool[card_id(c)] += 1

            def draw(k: int, pool: list[int] = pool) -> list[int]:
                got = []
                for _ in range(k):
                    t = int(rng.choice(len(pool), p=np.array(pool) / sum(pool)))
                    pool[t] -= 1
                    got.append(t)
                return got

            hands = list(position.hands)
            for s in range(game.players):
                if s != seat:
                    hands[s] = tuple(CARDS[t] for t in draw(len(position.hands[s])))
            pile = [0] * len(CARDS)
            for t in draw(position.discard_size):
                pile[t] += 1
            position = position.replace(hands=tuple(hands), deck=tuple(pool), discard=tuple(pile))
        copy = CardGame.from_position(position, seed=int(rng.integers(2**32)))
        copy.play(move)
        if copy.is_over:
            out[i] = (copy.winner() == seat, copy.scores[seat].min())
            continue
        runs = simulate(1, copy.rules, start=copy, policy=policy, seed=int(rng.integers(2**32)))
        out[i] = (runs.winner[0] == seat, runs.scores[0, seat].min())
    return out


@pytest.mark.parametrize("view", ["player", "omniscient"])
def test_playouts_agree_with_the_public_api(view: str) -> None:
    """The kernel's playouts after a decision have the distribution of reference playouts
    built from CardGame.play and genial.cards.simulate (win rate and mean lowest marker within
    4.5 standard errors): the seat to move plays the card, the game is played to its end, and
    the player view redeals exactly the cards that seat cannot see."""
    game = _midgame(seed=11, moves=14)
    move = max(game.legal_moves(), key=lambda m: sum(game.gains(m)))
    n_ref, n_eval = 400, 4000
    ref = _reference(game, move, view, "greedy", n_ref, seed=7)
    result = evaluate(
        game,
        playouts=n_eval,
        policy="greedy",
        seed=9,
        moves=[move],
        view=view,  # type: ignore[arg-type]
    )
    row = result.rows[0]
    assert row["playouts"] == n_eval
    p_ref, p_eval = ref[:, 0].mean(), row["win_rate"]
    se = math.sqrt(p_ref * (1 - p_ref) / n_ref + p_eval * (1 - p_eval) / n_eval) or 1e-9
    assert abs(p_ref - p_eval) < 4.5 * se
    low_se = math.sqrt(ref[:, 1].var(ddof=1) / n_ref) + (row["lowest_hi"] - row["lowest"]) / 1.96
    assert abs(ref[:, 1].mean() - row["lowest"]) < 4.5 * low_se


def test_points_lowest_and_the_table() -> None:
    """The points column is CardGame.gains (the card kernel's scoring); markers never go back,
    so every playout ends with the mover's lowest marker at least its present one; the table
    has the board game's columns, best first, and prints as text and HTML."""
    game = _midgame(seed=4, moves=16)
    seat = game.current_player
    now = int(game.scores[seat].min())
    result = evaluate(game, playouts=80, seed=1, workers=1)
    for row in result.rows:
        assert row["points"] == sum(game.gains(row["move"]))
        assert row["lowest"] >= now
        assert 0.0 <= row["rank"] <= game.players - 1
        assert CardMove.parse(row["move"]).action == row["action"]
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
    assert (np.diff(table["win_rate"].to_numpy()) <= 1e-12).all()
    assert (table["win_lo"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_hi"]).all()
    assert set(table["action"]) == {int(a) for a in game.legal_actions()}
    text = str(result)
    assert text.splitlines()[0].startswith(f"seat {seat} to play a card, rules c3")
    page = result._repr_html_()
    assert page.startswith("<table") and str(result.best) in page
    assert "to play a card" in page and "decide the swap" not in page


# -- reproducibility, adaptivity, subsets -------------------------------------------------------


def test_the_table_does_not_depend_on_the_workers() -> None:
    """Several work items (more than 4096 playouts) on one thread or two: the same table."""
    game = _midgame(seed=6, moves=8)
    n = len(game.legal_moves())
    args: dict[str, Any] = {"playouts": 700, "seed": 21}
    one = evaluate(game, workers=1, **args)
    two = evaluate(game, workers=2, **args)
    assert one.total_playouts == 700 * n > 4096
    assert _same_rows(one, two)
    assert not _same_rows(one, evaluate(game, workers=2, **{**args, "seed": 22}))


def test_adaptive_finds_the_best_move_with_far_fewer_playouts() -> None:
    """Successive elimination keeps a winning play to the end (with every playout) and spends
    a small part of the uniform budget (the other plays are dropped once their bounds part)."""
    game = _instant_win()
    winners = _instant_wins(game)
    uniform = evaluate(game, playouts=512, seed=4, workers=1)
    adaptive = evaluate(game, playouts=512, seed=4, workers=1, adaptive=True, min_playouts=16)
    assert str(uniform.best) in winners and str(adaptive.best) in winners
    assert adaptive.total_playouts * 3 < uniform.total_playouts
    assert adaptive.rows[0]["playouts"] == 512
    counts = [r["playouts"] for r in adaptive.rows]
    assert counts == sorted(counts, reverse=True) and min(counts) >= 16
    assert {r["move"] for r in adaptive.rows if r["playouts"] >= 64} >= winners


def test_moves_evaluates_the_subset_given() -> None:
    """``moves=``: only those legal decisions (as moves, texts or action ids; repeats once)."""
    game = _instant_win()
    result = evaluate(
        game, playouts=30, seed=1, workers=1, moves=["BO", CardMove.parse("RG"), 28, "BO"]
    )
    assert sorted(r["move"] for r in result.rows) == ["BO", "RG", "YP"]
    assert result.rows[0]["move"] == "RG"
    whole = {r["move"]: r for r in evaluate(game, playouts=30, seed=1, workers=1).rows}
    assert whole["RG"]["win_rate"] == 1.0


def test_policies_per_seat() -> None:
    game = _midgame(seed=9, moves=4)
    result = evaluate(
        game, playouts=20, policy=["greedy", "random", "epsilon-greedy:0.3"], seed=1, workers=1
    )
    assert result.policy == ("greedy", "random", "epsilon-greedy:0.3")
    assert result.total_playouts == 20 * len(game.legal_moves())


# -- wrong input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"playouts": 0}, "playouts"),
        ({"playouts": 2.5}, "playouts"),
        ({"view": "god"}, "view"),
        ({"policy": "clever"}, "unknown policy"),
        ({"policy": "mc:20"}, "board game"),
        ({"policy": "mcts:50"}, "board game"),
        ({"policy": ["greedy", "mc:5", "random"]}, "board game"),
        ({"policy": ["greedy", "random"]}, "one per seat"),
        ({"moves": ["swap"]}, "not legal"),
        ({"moves": ["RR"]}, "RR"),
        ({"moves": ["P-4,-1+P-4,0"]}, "cannot read move"),
        ({"moves": [3.5]}, "CardMove"),
        ({"moves": []}, "at least one"),
        ({"moves": "RG"}, "sequence"),
        ({"adaptive": "yes"}, "adaptive"),
        ({"workers": 0}, "workers"),
        ({"min_playouts": 0}, "min_playouts"),
    ],
)
def test_wrong_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    game = _instant_win()
    before, record = game.to_text(), game.to_record()
    with pytest.raises(GenialError, match=message):
        evaluate(game, **kwargs)  # type: ignore[arg-type]
    assert game.to_text() == before and game.to_record() == record


def test_no_decision_to_analyse() -> None:
    game = _instant_win()
    game.play("RG")
    assert game.is_over
    with pytest.raises(GenialError, match="over"):
        evaluate(game)
    with pytest.raises(GenialError, match="over"):
        evaluate(game.to_text())
    with pytest.raises(GenialError, match="CardGame"):
        evaluate(object())  # type: ignore[arg-type]
    with pytest.raises(genial.PositionError):
        evaluate("c3 not a card position")


def test_evaluate_leaves_the_game_alone() -> None:
    """The analysis reads the position: the game's position, record and streams are untouched."""
    game = _midgame(seed=12, moves=5)
    before = game.to_text()
    choice = game.copy().choose("random")
    evaluate(game, playouts=10, seed=1, workers=1)
    assert game.to_text() == before
    assert game.choose("random") == choice


# -- the kernel: forced actions and determinisation ---------------------------------------------


def _codes(policy: str, players: int) -> tuple[np.ndarray, np.ndarray]:
    codes, eps = kernel_codes(*parse_policies(policy, players, search=False))
    return codes, eps


def _streams(a: int = 3, b: int = 4) -> tuple[np.random.PCG64, np.random.PCG64]:
    return np.random.PCG64(a), np.random.PCG64(b)


def test_forced_each_plays_the_games_of_one_call_per_action() -> None:
    """``run_chunk(forced_each=...)`` (what evaluate's work items use): one kernel call whose
    game ``g`` forces ``forced_each[g]`` plays the games of one call per run of equal actions
    on the same two streams; every game starts with that play by the seat to move."""
    game = _midgame(seed=11, moves=9)
    base = load(game.position)
    seat = np.array([game.current_player], dtype=np.int16)
    codes, eps = _codes("random", 3)
    actions = [int(a) for a in game.legal_actions()[:3]]
    one = check_forced_each(kernel, base, int(seat[0]), codes, eps, actions)
    assert len(set(one["turns"].tolist())) > 1
    each = np.repeat(np.array(actions, dtype=np.int16), [5, 1, 7])
    # with logs (no view): every game's first move is the forced one
    logs = np.zeros(len(each), dtype=kernel.LOG_DTYPE)
    chance, policy = _streams()
    kernel.run_chunk(
        base, chance, policy, False, codes, eps, one, logs, seat, each[:1], forced_each=each
    )
    assert logs["moves"][:, 0].tolist() == each.tolist()


def test_forced_actions_are_made_at_their_decision() -> None:
    """A forced play waits for its seat's next play (a bonus turn is one, RULES §5.6); a forced
    swap or keep for its seat's next swap decision (RULES §5.5)."""
    game = _bonus_turn()
    base = load(game.position)
    codes, eps = _codes("random", 2)
    seats = np.array([0, 0], dtype=np.int16)
    plays = np.array([CardMove.parse(m).action for m in ("RG", "GB")], dtype=np.int16)
    rows = np.zeros(3, dtype=kernel.ROW_DTYPE)
    logs = np.zeros(3, dtype=kernel.LOG_DTYPE)
    kernel.run_chunk(base, *_streams(), False, codes, eps, rows, logs, seats, plays)
    assert (logs["n_moves"] == 2).all() and (logs["moves"][:, :2] == plays).all()
    assert rows["winner"].tolist() == [0, 0, 0] and rows["instant"].all()
    # keep at the swap decision of seat 0, then seat 1's first play forced
    swap = _clear_swap()
    start = load(swap.position)
    hand1 = swap.hand(1)[0]
    forced = np.array([kernel.ACTION_KEEP, 2 * card_id(hand1)], dtype=np.int16)
    logs = np.zeros(3, dtype=kernel.LOG_DTYPE)
    rows = np.zeros(3, dtype=kernel.ROW_DTYPE)
    codes, eps = _codes("random", 3)
    kernel.run_chunk(
        start, *_streams(), False, codes, eps, rows, logs, np.array([0, 1], dtype=np.int16),
        forced,
    )  # fmt: skip
    assert (logs["moves"][:, :2] == forced).all()
    assert (logs["counts"][:, 0] == 1).all()  # keeping refills one card


def test_the_kernel_refuses_bad_arguments() -> None:
    game = _midgame(seed=2, moves=3)
    base = load(game.position)
    seat = game.current_player
    codes, eps = _codes("random", 3)
    rows = np.zeros(4, dtype=kernel.ROW_DTYPE)
    illegal = next(a for a in range(kernel.ACTION_SWAP) if a not in game.legal_actions())

    def call(**kwargs: Any) -> None:
        kernel.run_chunk(base, *_streams(), False, kwargs.pop("codes", codes), eps, rows, **kwargs)

    def one(action: int, who: int = seat) -> dict[str, Any]:
        return {
            "forced_seats": np.array([who], dtype=np.int16),
            "forced_actions": np.array([action], dtype=np.int16),
        }

    cases: list[tuple[dict[str, Any], str]] = [
        (one(illegal), "not legal at its decision"),
        (one(0, who=7), "no seat 7"),
        (one(40), "no action 40"),
        ({**one(0), "forced_actions": np.zeros(2, dtype=np.int16)}, "one forced action"),
        ({**one(0), "forced_each": np.zeros(3, dtype=np.int16)}, "one action per row"),
        ({**one(0), "forced_each": np.full(4, -1, dtype=np.int16)}, "no action -1"),
        ({"view_seat": 3}, "no seat 3"),
        ({"view_seat": -2}, "no seat -2"),
        ({**one(0, who=(seat + 1) % 3), "view_seat": seat}, "only that seat"),
        ({"view_seat": seat, "logs": np.zeros(4, dtype=kernel.LOG_DTYPE)}, "no records"),
        ({"codes": np.full(4, 7, dtype=np.uint8)}, "unknown policy code"),
    ]
    before = base.snapshot()
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            call(**kwargs)
    assert base.snapshot() == before
    chance = np.random.PCG64(1)
    with pytest.raises(ValueError, match="two bit generators"):
        kernel.run_chunk(base, chance, chance, False, codes, eps, rows)
    with pytest.raises(ValueError, match="no seat 3"):
        base.redeal(3, chance)
    with pytest.raises(TypeError):
        base.redeal(0, np.random.default_rng(1))  # type: ignore[arg-type]  # not a BitGenerator


def _counts(core: kernel.Cards, seat: int) -> list[int]:
    """Every card type's count over the hands, displays, deck and discard pile."""
    total = [d + k for d, k in zip(core.deck_counts(), core.discard_counts(), strict=True)]
    for p in range(core.players):
        for t in core.hand(p) + core.display(p):
            total[t] += 1
    return total


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(0, 60),
    view=st.integers(0, 3),
    draw=st.integers(0, 2**32 - 1),
)
@example(players=3, seed=117432, moves=58, view=1, draw=0)  # seat 0 at its swap decision
def test_redeal_keeps_every_count_and_every_public_field(
    players: int, seed: int, moves: int, view: int, draw: int
) -> None:
    """``Cards.redeal(seat)``: what ``seat`` can see (``CardGame.view``: its hand, every hand's
    size, the displays, markers, deck and discard sizes, turn, phase, bonus) and the statistics
    stay; every card type still counts 4 (RULES §5.1); the position is one ``load`` accepts
    (a seat at its swap decision still holds no card of its lowest colours, RULES §5.5: that
    is public); only the other hands, the deck and the discard pile change, and they hold the
    same pooled cards."""
    game = CardGame(players, seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose("random"))
    seat = view % players
    core = load(game.position)
    before = CardGame._view(core, seat, players)
    stats = core.stats()
    pooled = [d + k for d, k in zip(core.deck_counts(), core.discard_counts(), strict=True)]
    for p in range(players):
        if p != seat:
            for t in core.hand(p):
                pooled[t] += 1
    core.redeal(seat, np.random.PCG64(draw))
    assert CardGame._view(core, seat, players) == before
    assert core.stats() == stats and core.winner == game.position.winner
    assert core.truncated == game.truncated
    assert _counts(core, seat) == [4] * len(CARDS)
    after = [d + k for d, k in zip(core.deck_counts(), core.discard_counts(), strict=True)]
    for p in range(players):
        if p != seat:
            for t in core.hand(p):
                after[t] += 1
    assert after == pooled
    position = genial.cards.notation.read(core, game.rules)
    assert load(position).snapshot() is not None  # a position the rules accept


def test_redeal_draws_every_arrangement_of_the_pool() -> None:
    """The redeal is random: over seeds, the other hands and the discard pile change, and the
    opponent's hand is as likely to hold a card type as the pool says (within 5 standard
    errors, 2,000 redeals)."""
    game = _midgame(seed=8, moves=20)
    seat = game.current_player
    core = load(game.position)
    other = (seat + 1) % 3
    size = len(core.hand(other))
    pool = [d + k for d, k in zip(core.deck_counts(), core.discard_counts(), strict=True)]
    for p in range(3):
        if p != seat:
            for t in core.hand(p):
                pool[t] += 1
    t = int(np.argmax(pool))
    n = 2000
    held = 0
    piles = set()
    bits = np.random.PCG64(5)
    for _ in range(n):
        copy = core.copy()
        copy.redeal(seat, bits)
        held += copy.hand(other).count(t)
        piles.add(tuple(copy.discard_counts()))
    expected = size * pool[t] / sum(pool)
    assert abs(held / n - expected) < 5 * math.sqrt(expected / n)
    assert len(piles) > n // 2


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 40), n=st.integers(1, 6))
def test_view_seat_is_redeal_then_play(seed: int, moves: int, n: int) -> None:
    """``run_chunk(view_seat=s)``: each game is ``Cards.redeal(s)`` on the chance stream (after
    ``Cards.deal`` with ``deal``), then the game ``run_chunk`` plays from there on the
    same streams (one game a call)."""
    game = CardGame(3, seed=seed)
    for _ in range(moves):
        if game.is_over:
            return
        game.play(game.choose("greedy"))
    if game.is_over:
        return
    base = load(game.position)
    seat = game.current_player
    codes, eps = _codes("greedy", 3)
    rows = np.zeros(n, dtype=kernel.ROW_DTYPE)
    chance, policy = _streams(seed % 1000, 7)
    kernel.run_chunk(base, chance, policy, False, codes, eps, rows, view_seat=seat)
    again = np.zeros(n, dtype=kernel.ROW_DTYPE)
    chance, policy = _streams(seed % 1000, 7)
    for g in range(n):
        copy = base.copy()
        copy.redeal(seat, chance)
        kernel.run_chunk(copy, chance, policy, False, codes, eps, again[g : g + 1])
    assert rows.tobytes() == again.tobytes()
    # from the deal: deal, then redeal, then play
    fresh = game.rules.core()
    chance, policy = _streams(seed % 1000, 7)
    kernel.run_chunk(fresh, chance, policy, True, codes, eps, rows, view_seat=seat)
    chance, policy = _streams(seed % 1000, 7)
    for g in range(n):
        copy = fresh.copy()
        copy.deal(chance)
        copy.redeal(seat, chance)
        kernel.run_chunk(copy, chance, policy, False, codes, eps, again[g : g + 1])
    assert rows.tobytes() == again.tobytes()
