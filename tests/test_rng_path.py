"""The random-number path of the kernels' batch engine (``genial/_batch.pxi``, issue 19).

``run_chunk`` plays an exact ``numpy.random.PCG64`` on genial's own copy of it (``genial._pcg``,
drawn from inline) and writes the state back; every other bit generator (a subclass of PCG64
included) is drawn from through numpy's function pointers. Both must give the same games and
leave the numpy object's stream exactly where numpy's own draws would have: the games and the
continued streams are compared with a subclass of PCG64 (the numpy path, same numbers), and the
other bit generators' games with digests taken before the fast path existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from genial import Rules, _core
from genial.cards import CardRules
from genial.cards import _kernel as _cards
from genial.policies import kernel_codes, kernel_policies, parse_policies


class NumpyPCG64(np.random.PCG64):
    """PCG64 drawn through numpy's ``bitgen_t`` (``run_chunk`` copies exact PCG64s only)."""


Streams = tuple[np.random.BitGenerator, np.random.BitGenerator]
Played = tuple[npt.NDArray[Any], npt.NDArray[Any] | None]


def play(
    kind: str,
    chance: np.random.BitGenerator,
    policy: np.random.BitGenerator,
    n: int = 40,
    policies: str | tuple[str, ...] = ("random", "greedy", "epsilon-greedy"),
    players: int = 3,
    records: bool = True,
    **kwargs: Any,
) -> Played:
    """``n`` games of a fresh deal, with records."""
    names = (policies,) * players if isinstance(policies, str) else policies
    parsed = parse_policies(list(names), players, epsilon=0.25)
    kernel: Any
    if kind == "board":
        kernel, core = _core, Rules(players).core()
        codes, eps, search = kernel_policies(*parsed)
        kwargs.setdefault("search", search)
    else:
        kernel, core = _cards, CardRules(players).core()
        codes, eps = kernel_codes(*parsed)
    rows = np.zeros(n, dtype=kernel.ROW_DTYPE)
    logs = np.zeros(n, dtype=kernel.LOG_DTYPE) if records else None
    kernel.run_chunk(core, chance, policy, True, codes, eps, rows, logs, **kwargs)
    return rows, logs


def state_of(bit_generator: np.random.BitGenerator) -> dict[str, Any]:
    """A bit generator's state without its class name."""
    state = dict(bit_generator.state)
    del state["bit_generator"]
    return state


def continued(bit_generator: np.random.BitGenerator) -> list[int]:
    """What the stream draws next, through every interface a kernel uses: a 32-bit draw (the
    buffered half), 64-bit ones and a double."""
    gen = np.random.Generator(bit_generator)
    out = [int(gen.integers(0, 2**32, dtype=np.uint32))]  # next_uint32
    out += [int(v) for v in bit_generator.random_raw(3)]  # next_uint64
    out.append(int(gen.random() * 2**53))  # next_double
    out.append(int(gen.integers(0, 2**32, dtype=np.uint32)))
    return out


def pcg_pair(cls: type[np.random.PCG64], seed: int, odd: bool) -> Streams:
    """Two PCG64 streams; ``odd``: each holds half of a 64-bit draw (``has_uint32``)."""
    chance, policy = cls(seed), cls(seed + 1)
    if odd:
        for bg in (chance, policy):
            np.random.Generator(bg).integers(0, 2**32, dtype=np.uint32)
            assert bg.state["has_uint32"] == 1
    return chance, policy


def assert_same_games(a: Played, b: Played) -> None:
    assert a[0].tobytes() == b[0].tobytes()
    assert (a[1] is None) == (b[1] is None)
    if a[1] is not None and b[1] is not None:
        assert a[1].tobytes() == b[1].tobytes()


KINDS = ["board", "cards"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("odd", [False, True])
def test_pcg64_fast_path_plays_numpys_games_and_continues_its_streams(kind: str, odd: bool) -> None:
    fast = pcg_pair(np.random.PCG64, 7, odd)
    slow = pcg_pair(NumpyPCG64, 7, odd)
    assert_same_games(play(kind, *fast), play(kind, *slow))
    for f, s in zip(fast, slow, strict=True):
        assert state_of(f) == state_of(s)
        assert continued(f) == continued(s)
    # and a second call goes on from there (the state written back is the one used)
    assert_same_games(play(kind, *fast, n=5), play(kind, *slow, n=5))
    assert [state_of(bg) for bg in fast] == [state_of(bg) for bg in slow]


@pytest.mark.parametrize("kind", KINDS)
def test_pcg64_fast_path_from_a_set_state(kind: str) -> None:
    """A state set by hand, buffered half included, is read as numpy reads it."""
    fast, slow = (np.random.PCG64(1), np.random.PCG64(2)), (NumpyPCG64(1), NumpyPCG64(2))
    for bgs in (fast, slow):
        for j, bg in enumerate(bgs):
            bg.state = {
                "bit_generator": type(bg).__name__,
                "state": {"state": 2**127 + 12345 * (j + 1), "inc": 2**100 + 2 * j + 1},
                "has_uint32": 1,
                "uinteger": 0xDEADBEEF - j,
            }
    assert_same_games(play(kind, *fast), play(kind, *slow))
    assert [state_of(bg) for bg in fast] == [state_of(bg) for bg in slow]


@pytest.mark.parametrize("kind", KINDS)
def test_one_stream_fast_the_other_not(kind: str) -> None:
    ref = play(kind, NumpyPCG64(5), NumpyPCG64(6))
    for chance, policy in (
        (np.random.PCG64(5), NumpyPCG64(6)),
        (NumpyPCG64(5), np.random.PCG64(6)),
    ):
        assert_same_games(play(kind, chance, policy), ref)


@pytest.mark.parametrize("kind", KINDS)
def test_determinised_games_on_both_paths(kind: str) -> None:
    fast, slow = pcg_pair(np.random.PCG64, 11, True), pcg_pair(NumpyPCG64, 11, True)
    a = play(kind, *fast, records=False, view_seat=1)
    b = play(kind, *slow, records=False, view_seat=1)
    assert_same_games(a, b)
    assert [state_of(bg) for bg in fast] == [state_of(bg) for bg in slow]


def test_search_seeds_on_both_paths() -> None:
    """The search draws its seeds as 64-bit words from the policy stream (``next_uint64``)."""
    policies = ("mc:6:random", "mcts:6:random")
    fast, slow = pcg_pair(np.random.PCG64, 3, True), pcg_pair(NumpyPCG64, 3, True)
    a = play("board", *fast, n=2, policies=policies, players=2)
    b = play("board", *slow, n=2, policies=policies, players=2)
    assert_same_games(a, b)
    assert [state_of(bg) for bg in fast] == [state_of(bg) for bg in slow]


@pytest.mark.parametrize("kind", KINDS)
def test_streams_written_back_when_the_call_raises(kind: str) -> None:
    """A forced action that is not legal stops its games and the call raises after them: the
    streams are where the games left them, on both paths."""
    players = 3
    forced = {
        "forced_seats": np.array([0], dtype=np.int16),
        "forced_each": np.array([0, 1, 2] * 4, dtype=np.int16),
        "forced_actions": np.array([0], dtype=np.int16),
    }
    results = []
    for cls in (np.random.PCG64, NumpyPCG64):
        chance, policy = pcg_pair(cls, 21, True)
        before = state_of(chance)
        with pytest.raises(ValueError, match="not legal"):
            play(kind, chance, policy, n=12, policies="random", players=players, **forced)
        assert state_of(chance) != before  # the games drew
        results.append((state_of(chance), state_of(policy), continued(chance)))
    assert results[0] == results[1]


@pytest.mark.parametrize("kind", KINDS)
def test_streams_untouched_when_the_call_is_refused(kind: str) -> None:
    chance, policy = pcg_pair(np.random.PCG64, 2, True)
    before = (state_of(chance), state_of(policy))
    with pytest.raises(ValueError, match="two bit generators"):
        play(kind, chance, chance)
    rows = np.zeros(3, dtype=_core.ROW_DTYPE)
    with pytest.raises(ValueError, match="one log per row"):
        _core.run_chunk(
            Rules(2).core(),
            chance,
            policy,
            True,
            *kernel_codes(("random",) * 2, (0.0, 0.0)),
            rows,
            np.zeros(2, dtype=_core.LOG_DTYPE),
        )
    assert (state_of(chance), state_of(policy)) == before


# -- the other bit generators: the games and the streams as before the fast path --------------

OTHERS: dict[str, Callable[[int], np.random.BitGenerator]] = {
    "Philox": np.random.Philox,
    "MT19937": np.random.MT19937,
    "SFC64": np.random.SFC64,
    "PCG64DXSM": np.random.PCG64DXSM,
    "PCG64": np.random.PCG64,
}


def digest(kind: str, name: str) -> str:
    """sha256 of the games' rows and logs and of the streams' next draws, for ``OTHERS[name]``
    streams seeded 31 and 32."""
    make = OTHERS[name]
    chance, policy = make(31), make(32)
    np.random.Generator(chance).integers(0, 2**32, dtype=np.uint32)  # a buffered half, if any
    rows, logs = play(kind, chance, policy, n=30)
    h = hashlib.sha256(rows.tobytes())
    assert logs is not None
    h.update(logs.tobytes())
    h.update(repr(continued(chance) + continued(policy)).encode())
    return h.hexdigest()[:16]


# computed with the kernels as they were before the inline path (numpy's bitgen_t throughout)
GOLDEN = {
    ("board", "Philox"): "86dd14179238aae9",
    ("board", "MT19937"): "918d1c26a7f479e2",
    ("board", "SFC64"): "4d2d73caa75d6519",
    ("board", "PCG64DXSM"): "face48e5fd58f3e6",
    ("board", "PCG64"): "b371dffa2f8c90fd",
    ("cards", "Philox"): "2c093ac8ca5095a3",
    ("cards", "MT19937"): "ef25f459625cbc22",
    ("cards", "SFC64"): "6a6c58e98c124ba5",
    ("cards", "PCG64DXSM"): "a3f4ec4e2db9c07c",
    ("cards", "PCG64"): "dec54cc953601ca5",
}


@pytest.mark.parametrize(("kind", "name"), sorted(GOLDEN))
def test_games_and_streams_as_before(kind: str, name: str) -> None:
    assert digest(kind, name) == GOLDEN[kind, name]
