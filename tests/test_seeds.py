"""Seeds and random streams: chance (the bag's draws, RULES §2.3, §3.1) and choice (the policies of
``choose`` and ``playouts``) are apart, every accepted kind of seed reproduces, bad seeds raise."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import genial
from genial import Game, GenialError, simulate
from genial.board.openings import analyse
from genial.seeds import MAX_SEED_BITS, as_seed_sequence, seed_words

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide.md"  # the manual

TOKENS = ("1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t")
ARRAYS = ("scores", "ranks", "winner", "placements", "turns", "bonus", "swaps", "opening", "game")


def _draws(game: Game) -> list[list[str]]:
    return [entry["draws"] for entry in game.to_record()["moves"]]


def _same_runs(a: genial.Playouts, b: genial.Playouts) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(getattr(a, name), getattr(b, name)) for name in ARRAYS
    )


# -- chance and choice are apart ------------------------------------------------------------------


@pytest.mark.parametrize("rules", TOKENS)
@pytest.mark.parametrize("policy", ["random", "greedy", "epsilon-greedy:0.3"])
def test_choose_does_not_touch_the_bags_draws(rules: str, policy: str) -> None:
    """A game whose moves come from choose() and a game that plays the same moves by hand,
    never calling choose(), draw the same tiles (RULES §3.2 (d)) and pass through the same
    positions."""
    chosen = Game(rules, seed=31)
    by_hand = Game(rules, seed=31)
    assert by_hand.to_text() == chosen.to_text()  # the deal
    while not chosen.is_over:
        move = chosen.choose(policy)
        chosen.play(move)
        by_hand.play(str(move))
        assert by_hand.to_record()["moves"][-1] == chosen.to_record()["moves"][-1]
        assert by_hand.to_text() == chosen.to_text()
    assert by_hand.is_over
    assert _draws(by_hand) == _draws(chosen)
    assert by_hand.to_record() == chosen.to_record()


@pytest.mark.parametrize("rules", TOKENS)
def test_calls_to_choose_between_moves_change_no_draw(rules: str) -> None:
    """Moves picked by hand (Python's random.Random); a second game makes the same moves but
    asks every policy for a pick before each (and ignores it): the draws are identical."""
    picker = random.Random(5)
    by_hand = Game(rules, seed=77)
    asking = Game(rules, seed=77)
    while not by_hand.is_over:
        move = picker.choice(by_hand.legal_moves())
        before = asking.to_text()
        for policy in ("random", "greedy", "epsilon-greedy", "random"):
            asking.choose(policy)
            assert asking.to_text() == before  # choose() only looks
        assert asking.moves == by_hand.moves
        by_hand.play(move)
        asking.play(move)
        assert asking.to_text() == by_hand.to_text()
    assert _draws(asking) == _draws(by_hand)
    assert asking.to_record() == by_hand.to_record()


def test_first_legal_move_games_draw_alike_with_or_without_choose() -> None:
    plain = Game(3, seed=2)
    asking = Game(3, seed=2)
    while not plain.is_over:
        asking.choose("greedy")
        move = plain.legal_moves()[0]
        plain.play(move)
        asking.play(asking.legal_moves()[0])
        assert asking.to_text() == plain.to_text()
    assert _draws(asking) == _draws(plain)


def test_choose_is_reproducible_and_depends_on_the_seed() -> None:
    def picks(seed: int) -> list[str]:
        game = Game(2, seed=seed)
        out = []
        while not game.is_over:
            move = game.choose("random")
            out.append(str(move))
            game.play(move)
        return out

    assert picks(3) == picks(3)
    assert picks(3) != picks(4)


def test_undo_rewinds_the_chance_stream() -> None:
    """undo() puts the bag's stream back: the move played again draws the same tiles, and a
    different move played instead draws as it would have without the first."""
    game = Game(2, seed=12)
    for _ in range(5):
        game.play(game.choose("random"))
    twin = game.copy()
    move = game.choose("random")
    game.play(move)
    drawn = _draws(game)[-1]
    game.undo()
    assert game == twin
    game.play(move)
    assert _draws(game)[-1] == drawn
    game.undo()
    other = game.legal_moves()[-1]
    game.play(other)
    twin.play(other)
    assert _draws(game) == _draws(twin)
    assert game.to_text() == twin.to_text()


def test_playing_by_hand_does_not_advance_the_policy_stream() -> None:
    """Moves played without choose() leave the policy stream where it was."""
    first = Game(2, seed=8)
    second = Game(2, seed=8)
    move = first.legal_moves()[3]
    first.play(move)
    second.play(move)
    assert first.choose("random") == second.choose("random")
    assert first.choose("epsilon-greedy:0.9") == second.choose("epsilon-greedy:0.9")


# -- every kind of seed ---------------------------------------------------------------------------

SEEDS: dict[str, Callable[[], Any]] = {
    "int": lambda: 12345,
    "big int": lambda: 2**100 + 7,
    "int above 2**128": lambda: 2**200 + 3,
    "int at the bound": lambda: 2**MAX_SEED_BITS - 1,
    "ints of 256 words": lambda: [2**32 - 2] * 256,  # (2**8192 - 1 is 256 words 2**32 - 1)
    "list of ints": lambda: [3, 1, 4, 1, 5],
    "SeedSequence": lambda: np.random.SeedSequence(99),
    "SeedSequence child": lambda: np.random.SeedSequence(99).spawn(3)[2],
    "Generator": lambda: np.random.default_rng(42),
    "PCG64": lambda: np.random.PCG64(43),
    "Philox": lambda: np.random.Philox(44),
    "MT19937": lambda: np.random.MT19937(45),
}


def _future(game: Game, policy: str = "random") -> list[str]:
    texts = [game.to_text()]
    while not game.is_over:
        game.play(game.choose(policy))
        texts.append(game.to_text())
    return texts


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_equal_seeds_make_equal_games(kind: str) -> None:
    make = SEEDS[kind]
    a, b = Game(2, seed=make()), Game(2, seed=make())
    assert a == b
    assert a.to_text() == b.to_text()
    assert _future(a) == _future(b)  # the policy stream too


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_equal_seeds_make_equal_batches(kind: str) -> None:
    make = SEEDS[kind]
    a = simulate(300, 2, policy="epsilon-greedy", seed=make())
    b = simulate(300, 2, policy="epsilon-greedy", seed=make())
    assert _same_runs(a, b)


def test_different_seeds_make_different_games() -> None:
    texts = {Game(2, seed=make()).to_text() for make in SEEDS.values()}
    assert len(texts) == len(SEEDS)


def test_an_int_and_a_list_are_their_seed_sequences() -> None:
    """numpy's convention: an int or a list of ints seeds as ``SeedSequence(it)``."""
    assert Game(3, seed=7) == Game(3, seed=np.random.SeedSequence(7))
    assert Game(3, seed=[7, 8]) == Game(3, seed=np.random.SeedSequence([7, 8]))
    assert _future(Game(3, seed=7)) == _future(Game(3, seed=np.random.SeedSequence(7)))
    a = simulate(50, seed=7)
    assert _same_runs(a, simulate(50, seed=np.random.SeedSequence(7)))


def test_a_bit_generator_seeds_like_its_generator() -> None:
    """A BitGenerator is used through a Generator on it (seeds' module docstring)."""
    assert Game(2, seed=np.random.PCG64(3)) == Game(2, seed=np.random.Generator(np.random.PCG64(3)))
    assert Game(2, seed=np.random.PCG64(3)) == Game(2, seed=np.random.default_rng(3))


def test_a_generator_is_a_source_of_entropy_that_advances() -> None:
    rng = np.random.default_rng(11)
    first, second = Game(2, seed=rng), Game(2, seed=rng)
    assert first != second
    replay = np.random.default_rng(11)
    assert Game(2, seed=replay) == first
    assert Game(2, seed=replay) == second


def test_simulate_with_a_generator_is_reproducible() -> None:
    a = simulate(500, 3, policy="greedy", seed=np.random.default_rng(3))
    b = simulate(500, 3, policy="greedy", seed=np.random.default_rng(3))
    assert _same_runs(a, b)
    assert a.spec == b.spec
    rng = np.random.default_rng(3)
    simulate(1, seed=rng)
    assert not _same_runs(a, simulate(500, 3, policy="greedy", seed=rng))


@pytest.mark.parametrize("kind", ["int", "Generator", "PCG64", "list of ints"])
def test_simulate_is_the_same_for_one_and_two_workers(kind: str) -> None:
    n = 2 * genial.batch.CHUNK + 300  # three chunks
    one = simulate(n, 2, policy="random", seed=SEEDS[kind](), workers=1)
    two = simulate(n, 2, policy="random", seed=SEEDS[kind](), workers=2)
    assert _same_runs(one, two)
    assert one.rows.tobytes() == two.rows.tobytes()


def test_a_shorter_run_is_a_prefix() -> None:
    n = genial.batch.CHUNK + 200
    long = simulate(n, 2, seed=np.random.default_rng(9), workers=2)
    short = simulate(300, 2, seed=np.random.default_rng(9))
    assert short.rows.tobytes() == long.rows[:300].tobytes()


def test_from_text_and_from_record_seed_the_draws_that_follow() -> None:
    game = Game(2, seed=1)
    for _ in range(4):
        game.play(game.choose("greedy"))
    text, record = game.to_text(), game.to_record()
    for make in (lambda: 6, lambda: np.random.default_rng(6)):
        a, b = Game.from_text(text, seed=make()), Game.from_text(text, seed=make())
        assert _future(a) == _future(b)
        c, d = Game.from_record(record, seed=make()), Game.from_record(record, seed=make())
        assert c == game
        assert _future(c) == _future(d)
    assert _future(Game.from_text(text, seed=6)) != _future(Game.from_text(text, seed=7))


# -- playouts from a game --------------------------------------------------------------------------


def test_playouts_without_a_seed_come_from_the_games_policy_stream() -> None:
    game = Game(seed=1)
    first = game.playouts(100)
    again = Game(seed=1).playouts(100)
    assert _same_runs(first, again)
    second = game.playouts(100)  # the policy stream advanced
    assert not _same_runs(first, second)
    fresh = Game(seed=1)
    fresh.playouts(100)
    assert _same_runs(second, fresh.playouts(100))


def test_playouts_do_not_touch_the_games_position_or_draws() -> None:
    game, plain = Game(2, seed=4), Game(2, seed=4)
    game.playouts(50, policy="greedy")
    assert game == plain
    assert game.moves == []
    while not plain.is_over:
        move = plain.legal_moves()[-1]
        plain.play(move)
        game.play(move)
    assert _draws(game) == _draws(plain)


def test_playouts_with_a_seed_are_the_simulation_from_the_game() -> None:
    game = Game(2, seed=4)
    game.play(game.choose("greedy"))
    a = game.playouts(200, policy="greedy", seed=np.random.default_rng(2))
    b = simulate(200, policy="greedy", start=game, seed=np.random.default_rng(2))
    assert _same_runs(a, b)
    assert a.start == game.to_text()


# -- big seeds: what numpy takes, up to a bound ---------------------------------------------------

BIG_SEEDS = [
    pytest.param(2**128 + 1, id="2**128+1"),
    pytest.param(2**200, id="2**200"),
    pytest.param(2**MAX_SEED_BITS - 1, id="2**8192-1"),
    pytest.param([2**200, 5], id="[2**200, 5]"),
    pytest.param((2**4000, 2**4000), id="(2**4000, 2**4000)"),
    pytest.param([2**32 - 1] * 256, id="256 x (2**32-1)"),
    pytest.param([2**32] * 128, id="128 x 2**32"),
    pytest.param(np.array([2**64 - 1] * 128, dtype=np.uint64), id="uint64 array of 128"),
    pytest.param([], id="[]"),
]


@pytest.mark.parametrize("seed", BIG_SEEDS)
def test_big_seeds_seed_as_their_seed_sequences(seed: Any) -> None:
    """An int above 2**128, or ints, up to MAX_SEED_BITS in all: the games, batches and
    analyses numpy's SeedSequence(seed) gives (README: a seed is what default_rng takes)."""
    assert Game(2, seed=seed) == Game(2, seed=np.random.SeedSequence(seed))
    assert _future(Game(3, seed=seed)) == _future(Game(3, seed=np.random.SeedSequence(seed)))
    assert _same_runs(simulate(100, seed=seed), simulate(100, seed=np.random.SeedSequence(seed)))
    words = as_seed_sequence(seed).generate_state(4)
    assert np.array_equal(words, np.random.SeedSequence(seed).generate_state(4))


def _deep(depth: int) -> list[Any]:
    """[[[...[1]...]]], ``depth`` lists deep (made without recursion)."""
    seed: list[Any] = [1]
    for _ in range(depth):
        seed = [seed]
    return seed


NESTED_SEEDS = [
    pytest.param(np.array([[1, 2], [3, 4]]), id="2-d array"),
    pytest.param(np.arange(24, dtype=np.uint16).reshape(2, 3, 4), id="3-d uint16 array"),
    pytest.param(range(3), id="range(3)"),
    pytest.param(range(5, 900, 7), id="range(5, 900, 7)"),
    pytest.param([[1]], id="[[1]]"),
    pytest.param([[1, 2], [3], [], (4, [5, [6]])], id="ragged nesting"),
    pytest.param([[2**40], [3]], id="[[2**40], [3]]"),
    pytest.param(np.array([2**100], dtype=object), id="object array of 2**100"),
    pytest.param(np.array([[2**100, 1], [2, 3]], dtype=object), id="2-d object array"),
    pytest.param([np.array([1, 2], dtype=np.uint32), np.uint64(2**63), np.int8(3)], id="mixed"),
    pytest.param(_deep(200), id="200 lists deep"),
    pytest.param([[2**32 - 1] * 128, [2**32 - 1] * 128], id="nested 256 words"),
]


@pytest.mark.parametrize("seed", NESTED_SEEDS)
def test_nested_seeds_seed_as_numpy_seeds_them(seed: Any) -> None:
    """What numpy's SeedSequence takes besides flat ints (ints nested in lists, tuples, ranges,
    integer arrays of any shape, object arrays of big ints) is a seed, the same one: the same
    entropy words (numpy flattens the nesting), the same children, the same games."""
    numpy_seed = np.random.SeedSequence(seed)
    ours = as_seed_sequence(seed)
    assert np.array_equal(ours.generate_state(8), numpy_seed.generate_state(8))
    assert np.array_equal(
        ours.spawn(1)[0].generate_state(4), numpy_seed.spawn(1)[0].generate_state(4)
    )
    assert Game(2, seed=seed) == Game(2, seed=numpy_seed)
    assert Game(2, seed=numpy_seed) == Game(2, seed=ours)
    assert _same_runs(simulate(50, seed=seed), simulate(50, seed=numpy_seed))
    assert isinstance(ours.entropy, list) and all(type(w) is int for w in ours.entropy)
    assert seed_words(ours.entropy) == ours.entropy  # flat ints, as a dataset stores them


def test_a_bool_seed_is_refused_and_says_why() -> None:
    """numpy takes seed=True (as 1); genial refuses it, saying a bool is not a seed."""
    assert np.random.SeedSequence(True).entropy is True  # (numpy's side)
    for seed in (True, False, np.True_):
        with pytest.raises(GenialError, match="a bool is not a seed"):
            Game(2, seed=seed)
        with pytest.raises(GenialError, match="a bool is not a seed"):
            as_seed_sequence(seed)


def test_big_seeds_differ_from_their_low_words() -> None:
    assert Game(2, seed=2**200 + 1) != Game(2, seed=1)
    assert Game(2, seed=2**200 + 1) != Game(2, seed=2**200)


TOO_BIG = [
    pytest.param(2**MAX_SEED_BITS, id="2**8192"),
    pytest.param(10**100_000, id="10**100000"),
    pytest.param([0] * 257, id="257 x 0"),
    pytest.param([2**32] * 129, id="129 x 2**32"),
    pytest.param([2**MAX_SEED_BITS - 1, 1], id="[2**8192-1, 1]"),
    pytest.param([1] * 10**6, id="10**6 x 1"),
    pytest.param(np.zeros(257, dtype=np.uint8), id="uint8 array of 257"),
    pytest.param([[1] * 200, [1] * 57], id="nested 257 x 1"),
    pytest.param(np.zeros((16, 17), dtype=np.int64), id="16 x 17 array"),
    pytest.param(range(257), id="range(257)"),
    pytest.param(range(10**18), id="range(10**18)"),
    pytest.param([[]] * 10**6, id="10**6 empty lists"),
    pytest.param([[[]] * 1000] * 1000, id="1000 x 1000 empty lists"),
    pytest.param(np.zeros((10**6, 0), dtype=np.int64), id="10**6 x 0 array"),
    pytest.param(np.zeros((10**6, 0, 5), dtype=np.int64), id="10**6 x 0 x 5 array"),
    pytest.param([np.array([2**MAX_SEED_BITS], dtype=object)], id="object array of 2**8192"),
]


TOO_BIG.append(pytest.param(_deep(10**5), id="10**5 lists deep"))


@pytest.mark.parametrize("seed", TOO_BIG)
def test_seeds_above_the_bound_are_refused_with_the_bound(seed: Any) -> None:
    """More than MAX_SEED_BITS (256 32-bit words) is refused, at once (numpy would hash every
    word again for every chunk, and converts a big int in quadratic time), saying the bound."""
    with pytest.raises(GenialError, match=rf"0\.\.2\*\*{MAX_SEED_BITS}-1.* 256 32-bit words"):
        Game(2, seed=seed)
    with pytest.raises(GenialError, match="256 32-bit words"):
        simulate(5, seed=seed)


def test_a_seed_sequence_of_too_much_entropy_is_refused() -> None:
    big = np.random.SeedSequence(2**MAX_SEED_BITS)
    with pytest.raises(GenialError, match=r"a SeedSequence .* 256 32-bit words \(8192 bits\)"):
        simulate(5, seed=big)
    assert Game(2, seed=np.random.SeedSequence(2**MAX_SEED_BITS - 1)) == Game(
        2, seed=2**MAX_SEED_BITS - 1
    )


def test_the_guide_states_the_bound_the_code_applies() -> None:
    """The user guide's seed sentence and the error message give the same bound."""
    readme = " ".join(GUIDE.read_text(encoding="utf-8").split())
    assert "anything `numpy.random.default_rng` takes" in readme
    assert f"below `2**{MAX_SEED_BITS}`" in readme
    assert f"{MAX_SEED_BITS // 32} 32-bit words" in readme
    with pytest.raises(GenialError) as refused:
        Game(seed=2**MAX_SEED_BITS)
    assert f"0..2**{MAX_SEED_BITS}-1" in str(refused.value)
    assert f"{MAX_SEED_BITS // 32} 32-bit words" in str(refused.value)
    assert "nested too" in readme and "but a bool (`seed=True` is refused" in readme
    assert "(no bools)" in str(refused.value)


@pytest.mark.parametrize("seed", [2**200 + 9, [2**300, 2**64, 0]], ids=["int", "ints"])
def test_a_dataset_keeps_a_big_seed(seed: Any, tmp_path: Path) -> None:
    """The dataset's metadata holds the entropy as decimal text: a big seed reads back, the
    run resumes with it and gives the games of the seed."""
    pytest.importorskip("pyarrow")
    from genial.batch import open_dataset

    n = genial.batch.CHUNK + 10
    written = simulate(n, 2, seed=seed, out=tmp_path / "runs")
    opened = open_dataset(tmp_path / "runs")
    assert opened.spec.seed.entropy == seed
    assert _same_runs(opened.to_playouts(), simulate(n, 2, seed=seed))
    assert written.complete
    resume = genial.batch.Output(tmp_path / "runs", resume=True)
    again = simulate(n, 2, seed=opened.spec.seed.entropy, out=resume)
    assert again.complete and _same_runs(again.to_playouts(), opened.to_playouts())


# -- bad seeds -------------------------------------------------------------------------------------

BAD_SEEDS = [
    -1, "x", 1.5, True, False, np.True_, [1, -2], [1.5], {"a": 1}, 2**8192,
    [True], [[1, False]], np.array([True, False]), ["12"], [[1], "2"], np.array(7), [np.array(7)],
    np.array([[1, 2]], dtype=np.uint32), [np.array([[1, 2]], dtype=np.uint32)], np.array([1.5]),
    [[1], [-1]], range(-1, 2), range(10**30), [[1], {1}], np.array(["1"]),
]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_bad_seeds_raise_genial_errors(seed: Any) -> None:
    game = Game(2, seed=1)
    text, record = game.to_text(), game.to_record()
    calls: list[Callable[[], object]] = [
        lambda: Game(2, seed=seed),
        lambda: Game.from_text(text, seed=seed),
        lambda: Game.from_record(record, seed=seed),
        lambda: simulate(5, seed=seed),
        lambda: game.playouts(5, seed=seed),
        lambda: genial.make("board", seed=seed),
        lambda: analyse(2, games_per_opening=1, seed=seed, workers=1),
    ]
    for call in calls:
        with pytest.raises(GenialError):
            call()
    assert game.to_text() == text


@pytest.mark.parametrize("seed", range(4))
def test_equal_positions_with_equal_seeds_draw_alike(seed: int) -> None:
    """Two games equal by position whose chance streams are seeded alike draw the same tiles,
    however they were reached (read from the text, or replayed from the record): the kernel
    draws from the bag in a canonical order, so the history that filled it does not matter."""
    game = Game(2, seed=seed)
    for _ in range(3):
        game.play(game.legal_moves()[0])
    from_text = Game.from_text(game.to_text(), seed=6)
    from_record = Game.from_record(game.to_record(), seed=6)
    assert from_text == from_record
    while not from_text.is_over:
        move = from_text.legal_moves()[0]
        from_text.play(move)
        from_record.play(move)
        assert from_record.to_record()["moves"][-1] == from_text.to_record()["moves"][-1]
        assert from_record.to_text() == from_text.to_text()


def test_playouts_from_equal_positions_agree() -> None:
    """Batches continuing equal positions with the same seed are identical, whether the position
    was played to or read from its text."""
    game = Game(3, seed=2)
    for _ in range(7):
        game.play(game.choose("greedy"))
    same_text = Game.from_text(game.to_text())
    a = game.playouts(300, policy="random", seed=9)
    b = same_text.playouts(300, policy="random", seed=9)
    assert (a.rows == b.rows).all()
