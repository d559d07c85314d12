"""The Python API: Move, Game, notations, copies and errors (RULES §3 through the API)."""

from __future__ import annotations

import copy
import json
import pickle
from collections import Counter

import numpy as np
import pytest

import genial
from genial import (
    ACTION_SIZE,
    EDGES,
    Game,
    GenialError,
    IllegalMoveError,
    Move,
    RecordError,
    Rules,
    RulesError,
)

# -- Move ----------------------------------------------------------------------------------------


def test_move_canonical_order_and_text() -> None:
    a = Move.place(((1, -4), (0, -4)), (2, 0))
    b = Move.place(((0, -4), (1, -4)), (0, 2))
    assert a == b
    assert hash(a) == hash(b)
    assert a.cells == ((0, -4), (1, -4))
    assert a.colours == (0, 2)
    assert a.tile == (0, 2)
    assert str(a) == "R0,-4+B1,-4"
    assert repr(a) == "Move.parse('R0,-4+B1,-4')"
    assert eval(repr(a), {"Move": Move}) == a


@pytest.mark.parametrize(
    "text", ["R0,-4+B1,-4", "B1,-4+R0,-4", " r0,-4 + b1,-4 ", "R(0,-4)+B(1,-4)", "R0, -4+B1, -4"]
)
def test_move_parse_variants(text: str) -> None:
    assert str(Move.parse(text)) == "R0,-4+B1,-4"


def test_swap_keep() -> None:
    assert Move.parse("swap") == Move.swap()
    assert Move.parse(" KEEP ") == Move.keep()
    assert Move.swap().action == 15336
    assert Move.keep().action == 15337
    assert Move.swap().cells is None
    assert Move.keep().tile is None
    assert repr(Move.swap()) == "Move.parse('swap')"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read"),
        ("R0,-4", "cannot read"),
        ("R0,-4+B1,-4+G2,-4", "cannot read"),
        ("X0,-4+B1,-4", "cannot read 'X0,-4'"),
        ("R0,-4+B2,-4", "not adjacent"),
        ("R0,-4+B0,-4", "not adjacent"),
        ("R0,-5+B1,-5", "printed red symbol"),
        ("R8,0+B7,0", "off the board"),
        ("R0,x+B1,-4", "cannot read"),
    ],
)
def test_move_parse_errors(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        Move.parse(text)


def test_move_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="colour 6"):
        Move.place(((0, 0), (1, 0)), (0, 6))
    with pytest.raises(ValueError, match="two cells"):
        Move.place(((0, 0),), (0, 1))
    with pytest.raises(TypeError):
        Move()
    with pytest.raises(AttributeError):
        Move.swap().kind = "keep"  # type: ignore[misc]


def test_action_space() -> None:
    """Every placement of the full board has an id; ids and moves convert both ways."""
    assert len(EDGES) == 426
    assert ACTION_SIZE == 426 * 36 + 2
    for action in range(0, ACTION_SIZE - 2, 97):
        move = Move.from_action(action, players=4)
        assert move.action == action
        edge, c0, c1 = action // 36, action // 6 % 6, action % 6
        assert move == Move.place(EDGES[edge], (c0, c1))
    assert Move.from_action(15336, 2) == Move.swap()
    with pytest.raises(IllegalMoveError, match="outside the 2-player area"):
        Move.from_action(0, players=2)  # edge 0 is on the rim of the full board
    with pytest.raises(IllegalMoveError, match="outside 0"):
        Move.from_action(ACTION_SIZE, 2)
    with pytest.raises(IllegalMoveError, match="must be an int"):
        Move.from_action("3", 2)  # type: ignore[arg-type]
    with pytest.raises(GenialError, match="players"):
        Move.from_action(0, 5)


def test_edges_are_adjacent_row_major_and_unprinted() -> None:
    """RULES §1.2, §1.4: EDGES hold adjacent cells in row-major order, no printed symbol."""
    directions = {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
    for a, b in EDGES:
        assert (b[0] - a[0], b[1] - a[1]) in directions
        assert (a[1], a[0]) < (b[1], b[0])
        assert a not in genial.SYMBOLS and b not in genial.SYMBOLS
    assert list(EDGES) == sorted(EDGES, key=lambda e: ((e[0][1], e[0][0]), (e[1][1], e[1][0])))


def test_moves_pickle() -> None:
    move = Move.parse("Y-2,3+P-1,3")
    assert pickle.loads(pickle.dumps(move)) == move


# -- Game ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 5, -2, 2.0, "5", "", True, None])
def test_bad_players(players: object) -> None:
    with pytest.raises(ValueError, match=r"players|rules"):
        Game(players)  # type: ignore[arg-type]


def test_rules_named_every_way() -> None:
    """A game's rules by count and keywords, token, or Rules (RULES §4)."""
    assert Game("2T", seed=1) == Game(2, tournament=True, seed=1)
    assert Game(rules="4t", seed=1) == Game(rules=Rules(4, teams=True), seed=1)
    assert Game("4t", seed=1) == Game(4, teams=True, seed=1)
    with pytest.raises(RulesError):
        Game("4t", teams=True)


def test_same_seed_same_game() -> None:
    def play(seed: int) -> str:
        game = Game(3, seed=seed)
        while not game.is_over:
            game.play(game.choose("random"))
        return json.dumps(game.to_record())

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_seed_accepts_numpy_seeds() -> None:
    """Every seed numpy.random.default_rng takes: an int is its SeedSequence; a Generator or a
    BitGenerator is a source of entropy (reproducible, and it advances)."""
    assert Game(2, seed=np.random.SeedSequence(5)).to_text() == Game(2, seed=5).to_text()
    assert Game(2, seed=[1, 2, 3]).to_text() == Game(2, seed=[1, 2, 3]).to_text()
    for make in (np.random.default_rng, np.random.PCG64):
        a, b = make(7), make(7)
        first = Game(2, seed=a).to_text()
        assert first == Game(2, seed=b).to_text()
        assert Game(2, seed=a).to_text() != first  # the generator advanced


def test_new_game_state() -> None:
    """RULES §2.3, §3.1: six tiles each, player 0 first, counters at 0."""
    for players in (2, 3, 4):
        game = Game(players, seed=players)
        assert game.players == players
        assert game.current_player == 0
        assert game.phase == "place"
        assert game.bonus_plays == 0
        assert game.turn == 1
        assert game.scores.shape == (players, 6)
        assert game.scores.dtype.kind == "i"
        assert not game.scores.any()
        assert all(len(game.rack(p)) == 6 for p in range(players))
        assert game.bag_size == 120 - 6 * players
        assert sum(game.bag().values()) == game.bag_size
        assert game.board == {}
        assert game.free_pairs == {2: 222, 3: 306, 4: 426}[players]
        assert len(game.cells()) == {2: 91, 3: 127, 4: 169}[players]
        assert not game.is_over
        assert game.winner() is None


def test_rack_argument_checked() -> None:
    game = Game(2, seed=0)
    with pytest.raises(GenialError, match="not a seat"):
        game.rack(2)
    with pytest.raises(GenialError, match="int seat"):
        game.rack("0")  # type: ignore[arg-type]


def test_play_accepts_move_text_and_action() -> None:
    moves = Game(2, seed=3).legal_moves()
    for form in (moves[5], str(moves[5]), moves[5].action, np.int64(moves[5].action)):
        game = Game(2, seed=3)
        game.play(form)  # type: ignore[arg-type]
        assert game.to_record()["moves"][0]["move"] == str(moves[5])
    with pytest.raises(IllegalMoveError, match="expected a Move"):
        Game(2, seed=3).play(3.5)  # type: ignore[arg-type]


def test_copy_is_independent() -> None:
    game = Game(2, seed=9)
    game.play(game.legal_moves()[0])
    twin = game.copy()
    assert twin == game
    assert copy.copy(game) == game
    assert copy.deepcopy(game) == game
    twin.play(twin.legal_moves()[0])
    assert twin != game
    assert game.to_record()["moves"] != twin.to_record()["moves"]
    # same random state: the same move draws the same tiles in both
    game.play(twin.moves[-1])
    assert twin == game


def test_undo_at_start_raises() -> None:
    game = Game(2, seed=1)
    with pytest.raises(IllegalMoveError, match="no move to undo"):
        game.undo()


def test_moves_after_the_end_raise() -> None:
    """RULES §3.6: nothing is legal once the game is over."""
    game = Game(2, seed=4)
    while not game.is_over:
        game.play(game.choose("greedy"))
    assert game.phase == "over"
    assert game.legal_moves() == []
    assert len(game.legal_actions()) == 0
    assert not game.action_mask().any()
    before = game.to_text()
    for move in ("swap", "keep", "R0,0+R1,0"):
        with pytest.raises(IllegalMoveError, match="game is over"):
            game.play(move)
    assert game.to_text() == before
    with pytest.raises(IllegalMoveError, match="no legal move"):
        game.choose("random")


def test_choose_rejects_unknown_policy() -> None:
    with pytest.raises(GenialError, match="unknown policy"):
        Game(2).choose("clever")


def test_gains_checks_cells() -> None:
    game = Game(2, seed=2)
    with pytest.raises(IllegalMoveError, match="not a placement"):
        game.gains(Move.swap())
    with pytest.raises(IllegalMoveError, match="outside the 2-player area"):
        game.gains("R6,-1+R6,-2")
    move = game.legal_moves()[0]
    game.play(move)
    with pytest.raises(IllegalMoveError, match="already covered"):
        game.gains(move)


def test_illegal_messages() -> None:
    """Each kind of wrong placement is named, and the game is unchanged (RULES §3.2)."""
    game = Game(2, seed=8)
    before = game.to_text()
    rack = game.rack(0)
    missing = next((a, b) for a in range(6) for b in range(a, 6) if (a, b) not in rack)
    with pytest.raises(IllegalMoveError, match="has no"):
        game.play(Move.place(((0, -4), (1, -4)), missing))
    have = rack[0]
    with pytest.raises(IllegalMoveError, match="first placement"):
        game.play(Move.place(((0, 0), (1, 0)), have))
    with pytest.raises(IllegalMoveError, match="outside the 2-player area"):
        game.play(Move.place(((0, -6), (1, -6)), have))
    with pytest.raises(IllegalMoveError, match="place a tile now"):
        game.play("swap")
    assert game.to_text() == before
    assert game.to_record()["moves"] == []


def test_swap_phase_flow() -> None:
    """RULES §3.5 through the API: in the swap phase only swap and keep are legal."""
    for seed in range(200):
        game = Game(2, seed=seed)
        while not game.is_over and game.phase != "swap":
            game.play(game.choose("random"))
        if game.phase == "swap":
            break
    else:  # pragma: no cover
        pytest.fail("no swap decision in 200 games")
    player = game.current_player
    assert game.legal_moves() == [Move.swap(), Move.keep()]
    with pytest.raises(IllegalMoveError, match="decide on the swap"):
        game.play("R0,0+R1,0")
    bag = Counter(game.bag())
    old = Counter(game.rack(player))
    keep = game.copy()
    game.play("swap")
    new = Counter(game.rack(player))
    assert game.current_player == (player + 1) % 2
    assert sum(new.values()) == 6
    # the old tiles went back after the new ones were drawn
    assert Counter(game.bag()) == bag - new + old
    keep.play("keep")
    assert sum(Counter(keep.rack(player)).values()) == 6
    assert not old - Counter(keep.rack(player))


def test_record_is_json_and_replays() -> None:
    game = Game(4, seed=21)
    while not game.is_over:
        game.play(game.choose("greedy"))
    record = json.loads(json.dumps(game.to_record()))
    assert record["format"] == "genial-record"
    assert record["version"] == 1
    assert Game.from_text(record["start"]).turn == 1
    replay = Game.from_record(record)
    assert replay == game
    assert (replay.ranks() == game.ranks()).all()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(format="chess"), "not a genial record"),
        (lambda r: r.update(version=2), "unsupported record version"),
        (lambda r: r.pop("start"), "no 'start'"),
        (lambda r: r.update(start="2 nonsense"), "bad start position"),
        (lambda r: r.update(moves="e4"), "not a list"),
        (lambda r: r["moves"].__setitem__(0, "R0,0"), "move 0"),
        (lambda r: r["moves"][1].update(move="R9,9+R9,8"), "move 1"),
        (lambda r: r["moves"][0].update(move="swap"), "move 0"),
        (lambda r: r["moves"][0].update(draws=["XX"]), "move 0"),
        (lambda r: r["moves"][0].update(draws=[]), "move 0"),
        (lambda r: r["moves"][0]["draws"].append("RR"), "move 0"),
    ],
)
def test_bad_records(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    game = Game(2, seed=13)
    for _ in range(4):
        game.play(game.choose("greedy"))
    record = json.loads(json.dumps(game.to_record()))
    mutate(record)
    with pytest.raises(RecordError, match=message):
        Game.from_record(record)
    with pytest.raises(RecordError, match="a record is a dict"):
        Game.from_record([])  # type: ignore[arg-type]


def test_str_draws_board_and_scores() -> None:
    game = Game(3, seed=0)
    game.play(game.choose("greedy"))
    text = str(game)
    lines = text.splitlines()
    assert len(lines) == 13 + 1 + 1 + 3 + 1
    assert "player 1 to move" in text
    for letter in "rgbyop":
        assert letter in text
    assert sum(line.count(c) for line in lines[:13] for c in "RGBOYP") == 2


def test_from_text_seed_controls_later_draws() -> None:
    game = Game(2, seed=1)
    text = game.to_text()
    a, b = Game.from_text(text, seed=5), Game.from_text(text, seed=5)
    move = a.legal_moves()[0]
    a.play(move)
    b.play(move)
    assert a == b


@pytest.mark.parametrize(
    "call",
    [
        lambda: Game(seed="abc"),
        lambda: Game(seed=1.5),
        lambda: genial.simulate(5, policy=None),
        lambda: genial.simulate(5, options={"openings": 5}),
        lambda: genial.simulate(5, policy="epsilon-greedy", options={"epsilon": "0.2"}),
        lambda: genial.simulate(3).replay(1.5),
        lambda: Move.place(((0.9, -4.2), (1, -4)), (0, 2)),
    ],
)
def test_odd_inputs_raise_genial_errors(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(GenialError):
        call()


# -- one Game shared by threads ------------------------------------------------------------------


def test_a_game_shared_by_threads_stays_consistent() -> None:
    """play, undo and choose are atomic: threads racing on one Game lose no move, and the
    record replays to the same game (before the lock, 46 of 60 such games lost moves)."""
    import threading

    for seed in range(6):
        game = Game(3, seed=seed)
        errors: list[BaseException] = []

        def worker(game: Game = game, errors: list[BaseException] = errors) -> None:
            while True:
                try:
                    game.play(game.choose("random"))
                except IllegalMoveError:
                    if game.is_over:
                        return
                    # another thread moved between choose and play: choose again
                except BaseException as exc:  # pragma: no cover - the test fails on it
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert game.is_over
        replay = Game.from_record(game.to_record())
        assert replay == game
        assert len(game.moves) == len(game.to_record()["moves"])
        assert replay.ranks().tolist() == game.ranks().tolist()


def test_reads_are_consistent_while_another_thread_plays() -> None:
    """Every read of a shared Game is one snapshot: position texts read while another thread
    plays always read back (before the reads took the lock, 1% were self-contradictory)."""
    import threading

    game = Game(2, seed=11)
    stop = threading.Event()

    def player() -> None:
        while not stop.is_set():
            if game.is_over:
                while game.moves:
                    game.undo()
            else:
                game.play(game.choose("random"))

    thread = threading.Thread(target=player)
    thread.start()
    try:
        for _ in range(3000):
            Game.from_text(game.to_text())
    finally:
        stop.set()
        thread.join()


def test_a_refused_playouts_call_leaves_the_game_as_it_was() -> None:
    """Bad arguments to playouts() raise and leave the policy stream untouched."""
    a, b = Game(2, seed=1), Game(2, seed=1)
    for bad in ({"policy": "bogus"}, {"n_games": -5}, {"workers": 0}):
        kwargs = {"n_games": 10, **bad}
        with pytest.raises(GenialError):
            a.playouts(**kwargs)  # type: ignore[arg-type]
    assert a.choose("random") == b.choose("random")
    assert a.to_text() == b.to_text()


# -- what every game shares ----------------------------------------------------------------------


def test_both_games_share_one_base_and_the_old_name_stays() -> None:
    from genial.base import GameBase
    from genial.cards import CardGame, CardMove
    from genial.history import History
    from genial.movebase import MoveBase

    assert History is GameBase
    assert issubclass(Game, GameBase) and issubclass(CardGame, GameBase)
    assert issubclass(Move, MoveBase) and issubclass(CardMove, MoveBase)
    # the shared methods are the base's, written once
    for name in ("play", "undo", "legal_moves", "is_legal", "choose", "to_text", "to_record"):
        assert getattr(Game, name) is getattr(GameBase, name) is getattr(CardGame, name)
    assert Game.play.__doc__ and "Raises ``IllegalMoveError``" in Game.play.__doc__


def test_games_of_different_kinds_are_never_equal() -> None:
    from genial.cards import CardGame

    board, cards = Game(2, seed=1), CardGame(2, seed=1)
    assert board != cards and cards != board
    assert board == Game(2, seed=1) and cards == CardGame(2, seed=1)
    assert repr(board).startswith("Game.from_text(") and repr(cards).startswith("CardGame.from_")
    with pytest.raises(TypeError):
        hash(board)


def test_a_move_can_be_neither_changed_nor_deleted() -> None:
    m = Move.parse("R0,-4+B1,-4")
    with pytest.raises(AttributeError, match="Move is immutable"):
        m.kind = "swap"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="Move is immutable"):
        del m.cells
    with pytest.raises(TypeError, match=r"use Move\.place\(\), Move\.swap\(\), .* or Move\.from_"):
        Move()
    assert m.cells == ((0, -4), (1, -4)) and m.kind == "place"


def test_each_game_reads_its_own_moves_only() -> None:
    from genial.cards import CardGame, CardMove

    with pytest.raises(IllegalMoveError, match="expected a Move, a move text or an action id"):
        Game(2, seed=1).play(CardMove.parse("RG"))  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="expected a CardMove, a move text or an action"):
        CardGame(2, seed=1).play(Move.swap())  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match=r"outside 0\.\.15337"):
        Game(2, seed=1).play(ACTION_SIZE)
    with pytest.raises(IllegalMoveError, match=r"outside 0\.\.31"):
        CardGame(2, seed=1).play(32)
