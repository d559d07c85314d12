"""Pickling and copying: every public object round-trips exactly, and a game's copy has the same
future (its bag's draws, RULES §2.3, and its policies' picks), in this process or another."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest

import genial
from genial import BatchSpec, Game, Move, Playouts, Position, Rules, simulate
from genial.batch import run_chunk

TOKENS = ("1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t")
ARRAYS = ("scores", "ranks", "winner", "placements", "turns", "bonus", "swaps", "opening", "game")


def _round_trip(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj))


def _mid_game(rules: str = "2", seed: int = 5, moves: int = 12, policy: str = "random") -> Game:
    game = Game(rules, seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose(policy))
    return game


def _play_out(game: Game, policy: str = "random") -> list[str]:
    """Play ``game`` to its end with ``choose(policy)``; the position text after every move."""
    texts = [game.to_text()]
    while not game.is_over:
        game.play(game.choose(policy))
        texts.append(game.to_text())
    return texts


def _play_on_in_worker(data: bytes | Game) -> tuple[str, dict[str, Any]]:
    """Runs in a worker process: unpickle a game (or take the one the pool unpickled), play it
    greedily to its end."""
    game = pickle.loads(data) if isinstance(data, bytes) else data
    _play_out(game, "greedy")
    return game.to_text(), game.to_record()


# -- Game ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", TOKENS)
def test_game_round_trip_keeps_position_record_and_history(rules: str) -> None:
    game = _mid_game(rules, seed=3, moves=15)
    assert game.moves, "the game needs a history"
    twin = _round_trip(game)
    assert isinstance(twin, Game)
    assert twin.rules == game.rules
    assert twin.to_text() == game.to_text()
    assert twin.position == game.position
    assert twin.to_record() == game.to_record()
    assert twin.moves == game.moves
    assert twin.legal_actions().tolist() == game.legal_actions().tolist()


@pytest.mark.parametrize("rules", ["2", "3", "4t", "1v"])
def test_unpickled_game_undoes_to_the_start(rules: str) -> None:
    game = _mid_game(rules, seed=8, moves=20)
    start = game.to_record()["start"]
    twin = _round_trip(game)
    steps = len(game.moves)
    for _ in range(steps):
        assert twin.undo() == game.undo()
        assert twin.to_text() == game.to_text()
    assert twin.to_text() == start
    assert twin.moves == []
    with pytest.raises(genial.IllegalMoveError):
        twin.undo()


@pytest.mark.parametrize("rules", TOKENS)
@pytest.mark.parametrize("policy", ["random", "epsilon-greedy:0.5"])
def test_unpickled_game_has_the_same_future(rules: str, policy: str) -> None:
    """The copy's bag draws and its choose() picks are those of the original."""
    game = _mid_game(rules, seed=11, moves=10)
    twin = _round_trip(game)
    assert _play_out(twin, policy) == _play_out(game, policy)
    assert twin.to_record() == game.to_record()


def test_unpickled_game_has_the_same_future_after_undo() -> None:
    """The undo stack holds both random streams: after undos the copy still matches."""
    game = _mid_game("2", seed=4, moves=14)
    twin = _round_trip(game)
    for _ in range(5):
        game.undo()
        twin.undo()
    assert _play_out(twin) == _play_out(game)
    assert twin.to_record() == game.to_record()


def test_unpickled_game_draws_what_the_original_draws_for_the_same_moves() -> None:
    """Chance alone: the same hand-picked moves draw the same tiles in both."""
    game = _mid_game("3", seed=6, moves=9)
    twin = _round_trip(game)
    while not game.is_over:
        move = game.legal_moves()[-1]
        game.play(move)
        twin.play(move)
        assert twin.to_record()["moves"][-1] == game.to_record()["moves"][-1]
        assert twin.to_text() == game.to_text()


@pytest.mark.parametrize("seed", [None, 7, [1, 2]])
def test_fresh_games_pickle_and_copy_with_their_future(seed: Any) -> None:
    """A game nobody has asked to choose yet (even one seeded from fresh entropy) carries its
    seed: its copies deal, draw and choose as it does."""
    game = Game(2, seed=seed)
    copies = [_round_trip(game), game.copy(), copy.deepcopy(game)]
    futures = [_play_out(c) for c in copies]
    original = _play_out(game)
    for future in futures:
        assert future == original


def test_pickling_does_not_disturb_the_original() -> None:
    game = _mid_game("2", seed=21, moves=8)
    reference = _round_trip(game)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        twin = pickle.loads(pickle.dumps(game, protocol=protocol))
        assert twin.to_record() == game.to_record()
    assert _play_out(game) == _play_out(reference)


def test_pickle_of_a_finished_game() -> None:
    game = _mid_game("2", seed=2, moves=1000)
    assert game.is_over
    twin = _round_trip(game)
    assert twin.is_over
    assert twin.ranks().tolist() == game.ranks().tolist()
    assert twin.winner() == game.winner()
    assert twin.to_record() == game.to_record()
    assert Game.from_record(twin.to_record()) == game


def test_pickle_of_a_game_from_a_position() -> None:
    base = _mid_game("2T", seed=9, moves=6)
    game = Game.from_text(base.to_text(), seed=17)
    game.play(game.choose("greedy"))
    twin = _round_trip(game)
    assert twin.to_record() == game.to_record()
    assert twin.to_record()["start"] == base.to_text()
    assert _play_out(twin, "greedy") == _play_out(game, "greedy")


# -- copies ----------------------------------------------------------------------------------------

COPIES: dict[str, Callable[[Game], Game]] = {
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "Game.copy": Game.copy,
}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("rules", ["2", "4", "4t", "1", "2Tv"])
def test_copies_have_the_same_future(how: str, rules: str) -> None:
    game = _mid_game(rules, seed=13, moves=7)
    twin = COPIES[how](game)
    assert twin is not game
    assert twin.to_record() == game.to_record()
    assert _play_out(twin) == _play_out(game)
    assert twin.to_record() == game.to_record()


@pytest.mark.parametrize("how", sorted(COPIES))
def test_copies_are_independent(how: str) -> None:
    game = _mid_game("2", seed=14, moves=5)
    before = game.to_text()
    record = game.to_record()
    twin = COPIES[how](game)
    _play_out(twin)
    for _ in range(3):
        twin.undo()
    # the original moved nowhere, and its streams were not consumed by the copy
    assert game.to_text() == before
    assert game.to_record() == record
    fresh = _mid_game("2", seed=14, moves=5)
    assert _play_out(game) == _play_out(fresh)


@pytest.mark.parametrize("how", sorted(COPIES))
def test_copies_undo_to_the_start(how: str) -> None:
    game = _mid_game("3", seed=15, moves=11)
    twin = COPIES[how](game)
    while twin.moves:
        twin.undo()
    assert twin.to_text() == game.to_record()["start"]
    assert len(game.moves) == 11


# -- the kernel state ------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", TOKENS)
def test_core_round_trip(rules: str) -> None:
    core = Rules.parse(rules).core()
    assert _round_trip(core) == core  # undealt
    core.deal(np.random.PCG64(1))
    chance = np.random.PCG64(2)
    for _ in range(6):
        core.apply(int(core.legal_actions()[0]), chance)
    twin = _round_trip(core)
    assert twin == core
    assert twin.snapshot() == core.snapshot()
    assert twin.scores().tolist() == core.scores().tolist()
    assert twin.legal_actions().tolist() == core.legal_actions().tolist()
    # the same actions with the same random state draw the same tiles
    a, b = np.random.PCG64(3), np.random.PCG64(3)
    while core.phase != 2:
        action = core.choose("random", a)
        assert twin.choose("random", b) == action
        assert twin.apply(action, b) == core.apply(action, a)
        assert twin == core


def test_core_round_trip_is_independent() -> None:
    core = Rules(2).core()
    core.deal(np.random.PCG64(1))
    twin = _round_trip(core)
    twin.apply(int(twin.legal_actions()[0]), np.random.PCG64(0))
    assert twin != core
    assert core.placements == 0


# -- batches ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("records", [False, True])
def test_playouts_round_trip(records: bool) -> None:
    runs = simulate(
        1500, 3, policy=("greedy", "random", "epsilon-greedy:0.3"), seed=4, records=records
    )
    twin = _round_trip(runs)
    assert isinstance(twin, Playouts)
    assert len(twin) == len(runs)
    assert twin.spec == runs.spec
    assert twin.rows.dtype == runs.rows.dtype
    assert twin.rows.tobytes() == runs.rows.tobytes()
    for name in ARRAYS:
        assert np.array_equal(getattr(twin, name), getattr(runs, name)), name
    assert twin.policies == runs.policies
    assert twin.records == runs.records
    for row in (0, 700, 1023, 1024, 1499):
        game = twin.replay(row)
        assert game.scores.tolist() == runs.scores[row].tolist()
        assert game.ranks().tolist() == runs.ranks[row].tolist()
        assert game.to_record() == runs.replay(row).to_record()


def test_sliced_playouts_round_trip() -> None:
    runs = simulate(1200, 2, policy="greedy", seed=8)
    part = runs[runs.winner == 1][5:40]
    twin = _round_trip(part)
    assert np.array_equal(twin.game, part.game)
    assert np.array_equal(twin.scores, part.scores)
    for row in (0, len(part) - 1):
        assert twin.replay(row).scores.tolist() == runs.scores[part.game[row]].tolist()


def test_playouts_from_a_start_round_trip() -> None:
    game = _mid_game("2T", seed=30, moves=10)
    runs = game.playouts(50, policy="greedy", seed=1)
    twin = _round_trip(runs)
    assert twin.start == game.to_text()
    assert np.array_equal(twin.scores, runs.scores)
    assert twin.replay(17).to_record() == runs.replay(17).to_record()


def test_batch_spec_round_trip_plays_the_same_chunks() -> None:
    runs = simulate(
        10,
        2,
        policy=("greedy", "random"),
        seed=[3, 4],
        options={"openings": ["R1,-5+R0,-4"]},
        records=True,
    )
    spec = runs.spec
    twin = _round_trip(spec)
    assert isinstance(twin, BatchSpec)
    assert twin == spec
    assert hash(twin) == hash(spec)
    assert twin.seed_key == spec.seed_key
    assert (twin.game, twin.rules, twin.policies, twin.epsilons) == (
        spec.game,
        spec.rules,
        spec.policies,
        spec.epsilons,
    )
    assert twin.openings == spec.openings and twin.records == spec.records
    for chunk in (0, 3):
        mine, theirs = run_chunk(spec, chunk, 20), run_chunk(twin, chunk, 20)
        assert mine.rows.tobytes() == theirs.rows.tobytes()
        assert theirs.logs is not None and mine.logs is not None
        assert theirs.logs.tobytes() == mine.logs.tobytes()


def test_batch_spec_with_a_start_round_trip() -> None:
    game = _mid_game("4t", seed=2, moves=9)
    spec = game.playouts(3, seed=5).spec
    twin = _round_trip(spec)
    assert twin == spec
    assert twin.start == game.to_text()
    assert run_chunk(twin, 1, 8).rows.tobytes() == run_chunk(spec, 1, 8).rows.tobytes()


# -- small values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", TOKENS)
def test_rules_round_trip(rules: str) -> None:
    value = Rules.parse(rules)
    twin = _round_trip(value)
    assert twin == value
    assert str(twin) == rules
    assert hash(twin) == hash(value)
    assert twin.core() == value.core()


def test_moves_round_trip() -> None:
    game = _mid_game("4", seed=1, moves=3)
    moves = [*game.legal_moves(), Move.swap(), Move.keep(), Move.parse("B5,-4+Y4,-3")]
    twins = _round_trip(moves)
    assert twins == moves
    for twin, move in zip(twins, moves, strict=True):
        assert (twin.kind, twin.cells, twin.colours, twin.action) == (
            move.kind,
            move.cells,
            move.colours,
            move.action,
        )
        assert str(twin) == str(move)
        assert hash(twin) == hash(move)
        assert game.is_legal(twin) == game.is_legal(move)


@pytest.mark.parametrize("rules", TOKENS)
def test_positions_round_trip(rules: str) -> None:
    empty = Position.empty(Rules.parse(rules))
    assert _round_trip(empty) == empty
    game = _mid_game(rules, seed=19, moves=13)
    position = game.position
    twin = _round_trip(position)
    assert twin == position
    assert twin.to_text() == game.to_text()
    assert Game.from_position(twin).position == position


def _touches_a_symbol(move: Move) -> bool:
    assert move.cells is not None
    return any(
        max(abs(q - sq), abs(r - sr), abs(q - sq + r - sr)) == 1
        for q, r in move.cells
        for sq, sr in genial.SYMBOLS
    )


def test_tournament_first_placement_touching_only_a_tile_round_trips() -> None:
    """RULES §4.3: a first placement touching only a tile is written '+' and survives pickling."""
    game = Game("2T", seed=1)
    game.play("R1,-5+R0,-4")
    if game.phase == "swap":
        game.play("keep")
    reply = next(m for m in game.legal_moves() if not _touches_a_symbol(m))
    game.play(reply)
    assert game.to_text().split()[8][1] == "+"
    assert game.position.first[1] == genial.board.notation.NO_SYMBOL
    twin = _round_trip(game.position)
    assert twin == game.position
    assert twin.first == game.position.first
    copied = _round_trip(game)
    assert copied.to_text() == game.to_text()
    assert _play_out(copied) == _play_out(game)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_public_object_pickles_with_every_protocol(protocol: int) -> None:
    game = _mid_game("2T", seed=3, moves=6)
    runs = simulate(30, "4t", seed=2)
    objects: list[Any] = [
        game.position,
        game.rules,
        Move.swap(),
        Move.keep(),
        game.moves[0],
        game.rules.core(),
        runs.spec,
    ]
    for obj in objects:
        assert pickle.loads(pickle.dumps(obj, protocol=protocol)) == obj
    twin = pickle.loads(pickle.dumps(runs, protocol=protocol))
    assert twin.rows.tobytes() == runs.rows.tobytes() and twin.spec == runs.spec
    copied = pickle.loads(pickle.dumps(game, protocol=protocol))
    assert _play_out(copied) == _play_out(game)


# -- another process -------------------------------------------------------------------------------


def test_a_pickled_game_plays_on_identically_in_another_process() -> None:
    """A mid-game Game sent to spawned worker processes (as pickle bytes, and as the object the
    pool pickles itself) plays on there exactly as its original plays on here."""
    games = [_mid_game(rules, seed=40 + i, moves=8) for i, rules in enumerate(("2", "3", "4t"))]
    payloads: list[bytes | Game] = [pickle.dumps(g) for g in games]
    payloads += [g.copy() for g in games]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        results = list(pool.map(_play_on_in_worker, payloads, timeout=120))
    for game in games:
        _play_out(game, "greedy")
        assert game.is_over
    for game, (text, record) in zip(games + games, results, strict=True):
        assert text == game.to_text()
        assert record == game.to_record()
        assert Game.from_record(record) == game
