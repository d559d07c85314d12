"""Paired games (common random numbers, issue 41): with ``game_prefix`` the batch kernel plays
game ``j`` on streams of its own, ``PCG64(child_seed(root, j, 0))`` for chance and
``(j, 1)`` for the policies, so that game ``j`` of two batches of one root shares its draws
whatever the games before it consumed; checked against numpy's own streams, through the batch
layer (workers, chunks, ``first``) and against hostile arguments."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from genial.batch import prepare, run_many
from genial.seeds import child_seed, seed_prefix

from .test_rng_path import KINDS, assert_same_games, play, state_of


def paired(kind: str, root: np.random.SeedSequence, n: int, first: int = 0, **kw: Any) -> Any:
    chance, policy = np.random.PCG64(5), np.random.PCG64(6)
    before = (state_of(chance), state_of(policy))
    out = play(
        kind,
        chance,
        policy,
        n=n,
        game_prefix=seed_prefix(root),
        pool_size=root.pool_size,
        first_game=first,
        **kw,
    )
    assert (state_of(chance), state_of(policy)) == before  # (left untouched)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "root",
    [
        np.random.SeedSequence(1),
        np.random.SeedSequence(2**70 + 3, spawn_key=(4, 2**33)),
        np.random.SeedSequence(9, pool_size=8),
    ],
    ids=["plain", "big-spawned", "pool-8"],
)
def test_game_j_is_played_on_numpys_streams_of_key_j(
    kind: str, root: np.random.SeedSequence
) -> None:
    rows, logs = paired(kind, root, n=6, first=1000)
    assert logs is not None
    for g in range(6):
        chance = np.random.PCG64(child_seed(root, 1000 + g, 0))
        policy = np.random.PCG64(child_seed(root, 1000 + g, 1))
        alone = play(kind, chance, policy, n=1)
        assert_same_games((rows[g : g + 1], logs[g : g + 1]), alone)


@pytest.mark.parametrize("kind", KINDS)
def test_a_games_draws_do_not_depend_on_the_games_before_it(kind: str) -> None:
    """Game 7 of a call from game 0 is game 0 of a call from game 7, whatever the policies
    of the games before it made them consume (random against greedy)."""
    root = np.random.SeedSequence(11)
    rows, logs = paired(kind, root, n=10)
    later = paired(kind, root, n=3, first=7)
    assert_same_games((rows[7:], logs[7:] if logs is not None else None), later)


def test_paired_batches_do_not_depend_on_workers_chunks_or_first() -> None:
    spec = replace(
        prepare(3000, 2, policy="greedy", seed=5, options={"openings": ["R1,-5+R2,-5"]}),
        paired=True,
    )
    (one,) = run_many([(spec, 3000)], workers=1)
    (two,) = run_many([(spec, 3000)], workers=2)
    assert one.winner.tolist() == two.winner.tolist()
    (tail,) = run_many([(spec, 3000 - 2048)], workers=2, first=[2048])
    assert tail.winner.tolist() == one.winner[2048:].tolist()
    assert tail.scores.tobytes() == one.scores[2048:].tobytes()
    (unpaired,) = run_many([(replace(spec, paired=False), 3000)], workers=2)
    assert unpaired.winner.tolist() != one.winner.tolist()  # (the chunks' streams instead)


def test_two_openings_paired_games_share_their_draws() -> None:
    """Two classes of the same tile: their j-th paired games are dealt the same racks and
    draw the same tiles in the same order for as long as the games draw alike (here: the
    opener's whole first rack and the opponent's), and the same opening twice gives the same
    games. How much that helps the comparison is measured, not assumed
    (benchmarks/paired_variance.py, docs/openings.md): under greedy play the results of two
    openings' paired games are barely correlated."""
    games = 4000

    def wins(opening: str, key: tuple[int, ...], pair: bool) -> np.ndarray:
        spec = prepare(games, 2, policy="greedy", seed=child_seed(np.random.SeedSequence(8), *key),
                       options={"openings": [opening]})  # fmt: skip
        (runs,) = run_many([(replace(spec, paired=pair), games)], workers=2)
        return (runs.winner == 0).astype(np.float64)

    a, b = "R1,-5+R2,-5", "R1,-5+R0,-4"
    assert np.array_equal(wins(a, (), True), wins(a, (), True))
    assert not np.array_equal(wins(a, (), True), wins(a, (1,), True))

    def deals(opening: str) -> list[tuple[str, list[str]]]:
        spec = prepare(50, 2, policy="greedy", seed=8, options={"openings": [opening]},
                       records=True)  # fmt: skip
        (runs,) = run_many([(replace(spec, paired=True), 50)], workers=1)
        return [(r["start"], r["moves"][0]["draws"]) for r in runs.records]

    # every game: the same deal (both racks), and the same tile drawn after the opening
    assert deals(a) == deals(b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"game_prefix": np.zeros(3, np.uint32), "pool_size": 4}, "game_prefix"),
        ({"game_prefix": np.zeros(4097, np.uint32), "pool_size": 4}, "game_prefix"),
        ({"game_prefix": np.zeros(8, np.uint32), "pool_size": 3}, "pool_size"),
        ({"game_prefix": np.zeros(80, np.uint32), "pool_size": 65}, "pool_size"),
        ({"game_prefix": np.zeros(4, np.uint32), "first_game": 2**62}, "first_game"),
    ],
)
def test_the_kernel_refuses_bad_pairing_arguments(
    kind: str, kw: dict[str, Any], message: str
) -> None:
    chance, policy = np.random.PCG64(1), np.random.PCG64(2)
    with pytest.raises((ValueError, OverflowError), match=message):
        play(kind, chance, policy, n=2, **kw)


@pytest.mark.parametrize("kind", KINDS)
def test_the_kernel_copies_the_prefix(kind: str) -> None:
    """The kernel reads its own copy of ``game_prefix``: a prefix changed after the call does
    not change what was played, and a read-only or strided one is handled or refused."""
    root = np.random.SeedSequence(3)
    prefix = seed_prefix(root)
    prefix.flags.writeable = False
    a = play(kind, np.random.PCG64(1), np.random.PCG64(2), n=3, game_prefix=prefix)
    b = paired(kind, root, n=3)
    assert_same_games(a, b)
    strided = np.zeros(2 * len(prefix), np.uint32)[::2]
    with pytest.raises(ValueError, match="contiguous"):
        play(kind, np.random.PCG64(1), np.random.PCG64(2), n=1, game_prefix=strided)
