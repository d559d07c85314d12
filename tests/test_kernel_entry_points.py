"""The compiled kernels' entry points against hostile arguments (issue 17, item 9).

Every function and method of ``genial._core``, ``genial.cards._kernel``, ``genial._vector`` and
``genial.cards._vector`` that Python can reach either does its job or raises a clean exception
(``ValueError``, ``TypeError``, ``IndexError``; ``RuntimeError`` for a vector kernel busy with
another call) and leaves the state as it was: states it did not make (snapshots, positions) are
checked field by field, arrays are read once into the kernel's own memory (another thread, or an
output array sharing memory with an input, cannot change a value after its check), forced
actions are checked where they are played, and the outputs' memory is the kernel's. The public
face (``VectorEnv``) turns what reaches it into ``GenialError``.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial import Game, GenialError, Rules, _core, _vector
from genial.board.moves import tile_id
from genial.board.notation import NO_SYMBOL, PHASE_LETTERS
from genial.board.notation import load as load_board
from genial.board.vector import VectorEnv
from genial.cards import CardGame, CardRules
from genial.cards import _kernel as _cards
from genial.cards import _vector as _cards_vector
from genial.cards.moves import card_id
from genial.cards.notation import PHASES as CARD_PHASES
from genial.cards.notation import load as load_cards
from genial.cards.vector import CardVectorEnv
from genial.policies import kernel_codes, parse_policies

from .kernel_contract import streams

# -- positions of both games -----------------------------------------------------------------


def board_game(seed: int = 1, moves: int = 9, place: bool = True) -> Game:
    """A 2-player game after ``moves`` random moves (then, with ``place``, keeping at a swap
    decision: a placement is due)."""
    game = Game(2, seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose("random"))
    while place and game.phase == "swap":
        game.play("keep")
    return game


def card_game(seed: int = 1, moves: int = 9, place: bool = True) -> CardGame:
    """The same for a 3-player card game (a play is due, with ``place``)."""
    game = CardGame(3, seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose("random"))
    while place and game.phase == "swap":
        game.play("keep")
    return game


def board_core(seed: int = 1, moves: int = 9) -> _core.Core:
    return load_board(board_game(seed, moves).position)


def card_core(seed: int = 1, moves: int = 9) -> _cards.Cards:
    return load_cards(card_game(seed, moves).position)


def codes_for(players: int, policy: str = "random") -> tuple[npt.NDArray[Any], ...]:
    codes, eps = kernel_codes(*parse_policies(policy, players, search=False))
    return codes, eps


def corrupted(core: Any, dtype: np.dtype[Any], edit: Callable[[Any], None]) -> bytes:
    """``core``'s snapshot with ``edit`` applied to its fields (by the kernel's STATE_DTYPE)."""
    fields = np.frombuffer(core.snapshot(), dtype=dtype).copy()
    edit(fields[0])
    return fields.tobytes()


# -- states the kernels did not make: restore ------------------------------------------------


def _tile_on_a_free_edge(s: Any) -> None:
    """A tile half on the board whose free edges and potentials were not updated."""
    board = s["board"]
    cell = next(i for i in range(len(board)) if board[i] == 6)
    board[cell] = 2


def _free_bit(s: Any) -> None:
    s["free_bits"][0] ^= 1 << 63


BOARD_CORRUPTIONS: list[tuple[str, Callable[[Any], None]]] = [
    ("rack size", lambda s: s["rack_n"].__setitem__(0, 7)),
    ("tile type", lambda s: s["rack"].__setitem__((0, 0), 30)),
    ("tiles in the bag", lambda s: s["bag"].__setitem__("n", 200)),
    ("bag item", lambda s: s["bag"]["item"].__setitem__(0, 25)),
    ("bag and racks", lambda s: s["bag"].__setitem__("n", 119)),
    ("seat to move", lambda s: s.__setitem__("current", 2)),
    ("phase", lambda s: s.__setitem__("phase", 3)),
    ("turn", lambda s: s.__setitem__("turn", 0)),
    ("first symbol", lambda s: s["first_symbol"].__setitem__(0, 100)),
    ("opening", lambda s: s["opening"].__setitem__(0, 20000)),
    ("score", lambda s: s["score"].__setitem__((0, 0), 19)),
    ("players", lambda s: s["rules"].__setitem__("players", 0)),
    ("radius", lambda s: s["rules"].__setitem__("radius", 9)),
    ("rack size rule", lambda s: s["rules"].__setitem__("rack_size", 7)),
    ("counter sets", lambda s: s["rules"]["counter_of"].__setitem__(1, 3)),
    ("board value", lambda s: s["board"].__setitem__(150, 9)),
    ("wall", lambda s: s["board"].__setitem__(0, 6)),
    ("symbol", lambda s: s["board"].__setitem__(_core.index_of(0, -5), 3)),
    ("tile not in free edges", _tile_on_a_free_edge),
    ("free edge bit", _free_bit),
    ("free edge count", lambda s: s.__setitem__("n_free", s["n_free"] + 1)),
]

CARD_CORRUPTIONS: list[tuple[str, Callable[[Any], None]]] = [
    ("players", lambda s: s.__setitem__("players", 5)),
    ("display size", lambda s: s.__setitem__("display_size", 3)),
    ("turn cap", lambda s: s.__setitem__("turn_cap", 0)),
    ("turn", lambda s: s.__setitem__("turns", s["turn_cap"] + 1)),
    ("seat to move", lambda s: s.__setitem__("current", 3)),
    ("phase", lambda s: s.__setitem__("phase", 9)),
    ("winner while playing", lambda s: s.__setitem__("winner", 1)),
    ("winner", lambda s: (s.__setitem__("phase", 2), s.__setitem__("winner", 7))),
    ("bonus", lambda s: s.__setitem__("bonus", 200)),
    ("marker", lambda s: s["marker"].__setitem__((0, 0), 11)),
    ("marker area", lambda s: s["marker"].__setitem__((0, 0), 9)),
    ("markers all past the cap", lambda s: s["marker"].__setitem__(0, 200)),
    ("hand count", lambda s: s["hand"].__setitem__((0, 0), s["hand"][0, 0] + 1)),
    ("hand size", lambda s: s["hand_n"].__setitem__(0, 9)),
    ("hand mask", lambda s: s["hand_mask"].__setitem__(0, s["hand_mask"][0] ^ 1)),
    ("display length", lambda s: s["disp_n"].__setitem__(0, 3)),
    ("display card", lambda s: s["disp"].__setitem__((0, 0), 20)),
    ("display colours", lambda s: s["on_display"].__setitem__(0, 9)),
    ("deck size", lambda s: s["deck"].__setitem__("n", 200)),
    ("deck card", lambda s: s["deck"]["item"].__setitem__(0, 30)),
    ("a card missing", lambda s: s["deck"].__setitem__("n", s["deck"]["n"] - 1)),
    ("a seat not playing", lambda s: s["marker"].__setitem__((3, 0), 1)),
]


@pytest.mark.parametrize(("what", "edit"), BOARD_CORRUPTIONS, ids=[c[0] for c in BOARD_CORRUPTIONS])
def test_board_restore_refuses_a_state_it_did_not_make(
    what: str, edit: Callable[[Any], None]
) -> None:
    core = board_core()
    before = core.snapshot()
    data = corrupted(core, _core.STATE_DTYPE, edit)
    with pytest.raises(ValueError, match="not a snapshot of a game"):
        core.restore(data)
    with pytest.raises(ValueError, match="not a snapshot of a game"):
        _core.Core.from_snapshot(data)
    assert core.snapshot() == before
    core.restore(before)  # what the kernel made round-trips
    assert core.snapshot() == before


@pytest.mark.parametrize(("what", "edit"), CARD_CORRUPTIONS, ids=[c[0] for c in CARD_CORRUPTIONS])
def test_card_restore_refuses_a_state_it_did_not_make(
    what: str, edit: Callable[[Any], None]
) -> None:
    core = card_core()
    before = core.snapshot()
    data = corrupted(core, _cards.STATE_DTYPE, edit)
    with pytest.raises(ValueError, match="not a snapshot of a game"):
        core.restore(data)
    with pytest.raises(ValueError, match="not a snapshot of a game"):
        _cards.Cards.from_snapshot(data)
    assert core.snapshot() == before
    core.restore(before)
    assert core.snapshot() == before


# -- positions: set_position -----------------------------------------------------------------


def board_position_args(game: Game) -> dict[str, Any]:
    """``set_position``'s arguments for ``game``'s position, as ``genial.board.notation``
    gives them."""
    pos = game.position
    return {
        "cells": {_core.index_of(*cell): colour for cell, colour in pos.board.items()},
        "scores": [list(s) for s in pos.scores],
        "racks": [[tile_id(t) for t in rack] for rack in pos.racks],
        "bag_counts": list(pos.bag),
        "current": pos.to_move,
        "phase": "psx".index(PHASE_LETTERS[pos.phase]),
        "bonus": pos.bonus,
        "first_symbols": [255 if s is None else 254 if s == NO_SYMBOL else s for s in pos.first],
        "turn": pos.turn,
    }


def card_position_args(game: CardGame) -> dict[str, Any]:
    pos = game.position
    return {
        "markers": [list(m) for m in pos.markers],
        "hands": [[card_id(c) for c in hand] for hand in pos.hands],
        "displays": [[card_id(c) for c in d] for d in pos.displays],
        "deck": list(pos.deck),
        "discard": list(pos.discard),
        "current": pos.to_move,
        "phase": CARD_PHASES.index(pos.phase),
        "bonus": pos.bonus,
        "turns": pos.turn,
        "winner": pos.winner,
        "truncated": False,
    }


def _with(args: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    return {**args, name: value}


def _row(rows: list[list[int]], k: int, value: list[int]) -> list[list[int]]:
    return [value if i == k else list(r) for i, r in enumerate(rows)]


def test_board_set_position_checks_every_value() -> None:
    """``set_position`` once trusted its caller: a cell index or a tile type out of range
    wrote outside the state. Each wrong value is a ValueError, the state unchanged."""
    game = board_game()
    args = board_position_args(game)
    core = Rules(2).core()
    core.set_position(**args)
    assert core.snapshot() == load_board(game.position).snapshot()
    symbol = _core.index_of(0, -5)
    cases = [
        _with(args, "cells", {5000: 0}),
        _with(args, "cells", {-3: 0}),
        _with(args, "cells", {_core.index_of(0, 0): 9}),
        _with(args, "cells", {symbol: 1}),
        _with(args, "cells", {_core.index_of(7, 0): 1}),  # outside the 2-player area
        _with(args, "cells", {"a": 1}),
        _with(args, "scores", _row(args["scores"], 0, [99] * 6)),
        _with(args, "scores", _row(args["scores"], 0, [1, 2])),
        _with(args, "racks", [[0] * 7, args["racks"][1]]),
        _with(args, "racks", [[30], args["racks"][1]]),
        _with(args, "bag_counts", [200] * 21),
        _with(args, "bag_counts", [6] * 20 + [-1]),
        _with(args, "bag_counts", [0] * 20),
        _with(args, "current", 5),
        _with(args, "phase", 4),
        _with(args, "turn", 0),
        _with(args, "first_symbols", [300, 255]),
        _with(args, "first_symbols", [9, 255]),
        _with(args, "bonus", -1),
    ]
    before = core.snapshot()
    for bad in cases:
        with pytest.raises((ValueError, TypeError)):
            core.set_position(**bad)
        assert core.snapshot() == before
    with pytest.raises(ValueError, match="no rules"):
        _core.Core.__new__(_core.Core).set_position(**args)


def test_card_set_position_checks_every_value() -> None:
    """The card game's ``set_position`` once trusted its caller: a card id out of range, a
    hand or display too long wrote outside the state. Each is a ValueError, state unchanged."""
    game = card_game()
    args = card_position_args(game)
    core = CardRules(3).core()
    core.set_position(**args)
    assert core.snapshot() == load_cards(game.position).snapshot()
    hands, displays = args["hands"], args["displays"]
    cases = [
        (_with(args, "hands", [[20], *hands[1:]]), "hand of seat 0: a card"),
        (_with(args, "hands", [[0] * 7, *hands[1:]]), "7 cards, at most 6"),
        (_with(args, "hands", [[0] * 5, *hands[1:]]), "5 cards of type 0"),
        (_with(args, "displays", [[0, 1, 2, 3], *displays[1:]]), "4 cards, at most 3"),
        (_with(args, "displays", [[99], *displays[1:]]), "display of seat 0: a card"),
        (_with(args, "displays", [[], *displays[1:]]), "display of seat 0: 0 cards"),
        (_with(args, "markers", _row(args["markers"], 0, [11] * 6)), "markers of seat 0"),
        (_with(args, "markers", _row(args["markers"], 0, [0, 0, 0, 0, 0, 9])), "beyond the"),
        (_with(args, "deck", [9] * 15), "deck: a count"),
        (_with(args, "discard", [0] * 14), "discard pile: 15 counts"),
        (_with(args, "current", 5), "current"),
        (_with(args, "phase", 3), "phase"),
        (_with(args, "winner", 9), "winner"),
        (_with(args, "winner", 1), "while the game goes on"),
        (_with(args, "turns", 0), "turns"),
        (_with(args, "bonus", 50), "bonus"),
    ]
    before = core.snapshot()
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            core.set_position(**bad)
        assert core.snapshot() == before
    with pytest.raises(ValueError, match="no rules"):
        _cards.Cards.__new__(_cards.Cards).set_position(**args)


# -- moves: private paths, scripts, deals ----------------------------------------------------


@pytest.mark.parametrize("make", [board_core, card_core], ids=["board", "cards"])
def test_the_unchecked_apply_is_not_reachable(make: Callable[[], Any]) -> None:
    """``_run`` applied any id unchecked (``apply`` checks first): it is private to the
    kernel now."""
    core = make()
    with pytest.raises(AttributeError):
        core._run(99999, np.random.PCG64(1), None)


class Flaky(Sequence[int]):
    """A script whose items change when read again (the first read is the true one)."""

    def __init__(self, items: list[int]) -> None:
        self.items = items
        self.reads = [0] * len(items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):  # pragma: no cover - not used by the kernels
            return self.items[i]
        self.reads[i] += 1
        return self.items[i] if self.reads[i] == 1 else 250

    def __iter__(self) -> Iterator[int]:
        return (self[i] for i in range(len(self)))


@pytest.mark.parametrize(
    "fresh", [lambda: Rules(2).core(), lambda: CardRules(3).core()], ids=["board", "cards"]
)
def test_scripted_draws_are_read_once(fresh: Callable[[], Any]) -> None:
    """A script is read once, and what was checked is what is drawn (it was read twice: the
    check saw one value, the draw another)."""
    dealt = fresh()
    drawn = dealt.deal(np.random.PCG64(5))
    core = fresh()
    assert core.deal(script=Flaky(drawn)) == drawn  # (the bag's order may differ)
    with pytest.raises(ValueError, match="too many"):
        fresh().deal(script=iter(range(10**9)))  # an endless script is cut, never listed
    with pytest.raises(TypeError):
        fresh().deal(script=[1.5] * len(drawn))


def test_a_second_card_deal_is_refused() -> None:
    """A second deal overfilled the displays (three cards of two, then out of the row)."""
    core = _cards.Cards(players=2, display_size=2, turn_cap=100)
    core.deal(np.random.PCG64(1))
    before = core.snapshot()
    with pytest.raises(ValueError, match="already dealt"):
        core.deal(np.random.PCG64(2))
    assert core.snapshot() == before
    codes, eps = codes_for(2)
    rows = np.zeros(2, dtype=_cards.ROW_DTYPE)
    with pytest.raises(ValueError, match="already dealt"):
        _cards.run_chunk(core, *streams(), True, codes, eps, rows)


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_redeal_never_shows_another_thread_a_half_dealt_state(kind: str) -> None:
    """``redeal`` runs without the GIL; it changed the state in place, so another thread
    reading the state meanwhile saw the other hands emptied, or dealt again half way (a copy
    of that state would then hold more tiles, or cards, than there are). It works on a copy
    now, put back with the GIL: every read sees each hand's size and the bag's as they are."""
    core: Any
    if kind == "board":
        board = Game(4, seed=1)
        for _ in range(8):
            board.play(board.choose("random"))
        core = load_board(board.position)

        def sizes() -> list[int]:
            return [len(core.rack(p)) for p in range(4)] + [core.bag_n]
    else:
        cards = CardGame(4, seed=1)
        for _ in range(8):
            cards.play(cards.choose("random"))
        core = load_cards(cards.position)

        def sizes() -> list[int]:
            return [len(core.hand(p)) for p in range(4)] + [core.deck_n]

    want = sizes()
    stop = threading.Event()

    def redeal() -> None:
        rng = np.random.PCG64(1)
        while not stop.is_set():
            core.redeal(0, rng)

    thread = threading.Thread(target=redeal, daemon=True)
    thread.start()
    torn = 0
    try:
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            torn += sizes() != want
    finally:
        stop.set()
        thread.join()
    assert torn == 0


# -- run_chunk: forced actions and arguments -------------------------------------------------


def test_board_run_chunk_refuses_a_forced_action_that_is_not_legal() -> None:
    """The board kernel played an illegal forced action silently (a covered cell, a tile the
    rack lacks, an id outside the action space); it refuses them now, as the card kernel does:
    ``ValueError``, the start untouched."""
    game = board_game(moves=9)
    base = load_board(game.position)
    seat = game.current_player
    codes, eps = codes_for(2)
    rows = np.zeros(4, dtype=_core.ROW_DTYPE)
    legal = set(game.legal_actions().tolist())
    covered = next(a for a in range(_core.ACTION_SWAP) if not base.is_free_edge(a // 36))
    missing = next(
        a
        for a in range(_core.ACTION_SWAP)
        if a not in legal and base.is_free_edge(a // 36) and base.illegal_reason(a) == "no-tile"
    )

    def call(**kwargs: Any) -> None:
        _core.run_chunk(base, *streams(), False, codes, eps, rows, **kwargs)

    def one(action: int, who: int = seat) -> dict[str, Any]:
        return {
            "forced_seats": np.array([who], dtype=np.int16),
            "forced_actions": np.array([action], dtype=np.int16),
        }

    cases: list[tuple[dict[str, Any], str]] = [
        (one(covered), "not legal at its decision"),
        (one(missing), "not legal at its decision"),
        (one(20000), "no action 20000"),
        (one(-5), "no action -5"),
        (one(0, who=7), "no seat 7"),
        (one(0, who=-1), "no seat -1"),
        ({**one(min(legal)), "forced_each": np.full(4, covered, np.int16)}, "not legal"),
        ({**one(min(legal)), "forced_each": np.full(4, -9, np.int16)}, "no action -9"),
        ({"view_seat": -2}, "no seat -2"),
        ({**one(min(legal), who=1 - seat), "view_seat": seat}, "only that seat"),
    ]
    before = base.snapshot()
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            call(**kwargs)
        assert base.snapshot() == before
    call(**one(min(legal)))  # a legal one plays
    with pytest.raises(ValueError, match="no rules"):
        _core.run_chunk(_core.Core.__new__(_core.Core), *streams(), False, codes, eps, rows)


def test_card_run_chunk_refuses_a_forced_action_that_is_not_legal() -> None:
    """The card kernel's twin of the board's test: the same checks (``genial/_batch.pxi``,
    written once for both kernels), the same messages, the start untouched."""
    game = card_game(moves=9)
    base = load_cards(game.position)
    seat = game.current_player
    codes, eps = codes_for(3)
    rows = np.zeros(4, dtype=_cards.ROW_DTYPE)
    legal = set(game.legal_actions().tolist())
    missing = next(a for a in range(_cards.ACTION_SWAP) if a not in legal)  # not in the hand

    def call(**kwargs: Any) -> None:
        _cards.run_chunk(base, *streams(), False, codes, eps, rows, **kwargs)

    def one(action: int, who: int = seat) -> dict[str, Any]:
        return {
            "forced_seats": np.array([who], dtype=np.int16),
            "forced_actions": np.array([action], dtype=np.int16),
        }

    cases: list[tuple[dict[str, Any], str]] = [
        (one(missing), "not legal at its decision"),
        (one(200), "no action 200"),
        (one(-5), "no action -5"),
        (one(0, who=7), "no seat 7"),
        (one(0, who=-1), "no seat -1"),
        ({**one(min(legal)), "forced_each": np.full(4, missing, np.int16)}, "not legal"),
        ({**one(min(legal)), "forced_each": np.full(4, -9, np.int16)}, "no action -9"),
        ({"view_seat": -2}, "no seat -2"),
        ({**one(min(legal), who=(seat + 1) % 3), "view_seat": seat}, "only that seat"),
        ({"search": np.zeros(3, dtype=_core.SEARCH_DTYPE)}, "no search policies"),
    ]
    before = base.snapshot()
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            call(**kwargs)
        assert base.snapshot() == before
    call(**one(min(legal)))  # a legal one plays
    with pytest.raises(ValueError, match="no rules"):
        _cards.run_chunk(_cards.Cards.__new__(_cards.Cards), *streams(), False, codes, eps, rows)


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_both_kernels_take_the_same_run_chunk_arguments(kind: str) -> None:
    """One batch engine (``genial/_batch.pxi``): the same argument names, ``deal`` by keyword,
    and the same refusal of a start of the other game's kernel (``TypeError``)."""
    kernel: Any = _core if kind == "board" else _cards
    fresh = Rules(2).core() if kind == "board" else CardRules(2).core()
    other = CardRules(2).core() if kind == "board" else Rules(2).core()
    codes, eps = codes_for(2)
    rows = np.zeros(3, dtype=kernel.ROW_DTYPE)
    kernel.run_chunk(fresh, *streams(), deal=True, policies=codes, epsilons=eps, rows=rows)
    assert (rows["ranks"][:, :2] >= 0).all() and (rows["turns"] > 0).all()
    with pytest.raises(TypeError, match="start: a"):
        kernel.run_chunk(other, *streams(), True, codes, eps, rows)


def _aliased_forced_each(
    kernel: Any, base: Any, seat: int, codes: Any, eps: Any, actions: list[int]
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """``run_chunk`` twice: with ``forced_each`` and ``policies`` separate arrays, and with
    both views of the rows' memory (which the games write): the rows of each."""
    n = 24
    each = np.resize(np.array(actions, dtype=np.int16), n)
    seats = np.array([seat], dtype=np.int16)
    apart = np.zeros(n, dtype=kernel.ROW_DTYPE)
    kernel.run_chunk(
        base, *streams(), False, codes, eps, apart, None, seats, each[:1], view_seat=seat,
        forced_each=each,
    )  # fmt: skip
    rows = np.zeros(n, dtype=kernel.ROW_DTYPE)
    memory = rows.view(np.uint8)
    each_view = memory[: 2 * n].view(np.int16)
    each_view[:] = each
    policies = memory[2 * n : 2 * n + len(codes)]
    policies[:] = codes
    kernel.run_chunk(
        base, *streams(), False, policies, eps, rows, None, seats, each[:1], view_seat=seat,
        forced_each=each_view,
    )  # fmt: skip
    return apart, rows


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_run_chunk_reads_its_inputs_before_writing_its_outputs(kind: str) -> None:
    """Inputs sharing memory with the rows: the games write rows, which once changed the
    forced actions (and the card kernel's policies) of the games after them, unchecked. The
    kernel copies every input first: the same games as with separate arrays."""
    if kind == "board":
        game: Any = board_game(moves=9)
        kernel: Any = _core
        base: Any = load_board(game.position)
    else:
        game = card_game(moves=9)
        kernel = _cards
        base = load_cards(game.position)
    codes, eps = codes_for(game.players, "greedy")
    legal = [int(a) for a in game.legal_actions()]
    apart, rows = _aliased_forced_each(kernel, base, game.current_player, codes, eps, legal)
    assert len({row.tobytes() for row in apart}) > 1
    # the rows that held no input are the same games
    assert apart.tobytes() == rows.tobytes()


# -- forced actions fuzzed: legal ones play as a game, the others are refused ----------------


def replayed(kernel: Any, start: Any, log: Any) -> Any:
    """``start`` played on with ``Core.apply``/``Cards.apply`` (each move checked legal) by a
    game's log: its moves, each with its scripted draws."""
    core = start.copy()
    at = 0
    for k in range(int(log["n_moves"])):
        count = int(log["counts"][k])
        core.apply(int(log["moves"][k]), None, [int(t) for t in log["draws"][at : at + count]])
        at += count
    assert at == int(log["n_draws"])
    return core


def check_forced_action(kind: str, seed: int, moves: int, action: int) -> None:
    """``run_chunk`` forcing ``action`` for the seat to move of a game's position (an id of the
    kind of the decision due, or one out of range): a legal one is each game's first move, and
    the game replays move by move as a game from there; any other is refused (ValueError), the
    start untouched."""
    if kind == "board":
        kernel: Any = _core
        game: Any = board_game(seed, moves, place=False)
        start: Any = load_board(game.position)
        final: Callable[[Any], Any] = lambda core: core.scores()  # noqa: E731
    else:
        kernel = _cards
        game = card_game(seed, moves, place=False)
        start = load_cards(game.position)
        final = lambda core: core.markers()  # noqa: E731
    if game.is_over:
        return
    seat = game.current_player
    rows = np.zeros(3, dtype=kernel.ROW_DTYPE)
    logs = np.zeros(3, dtype=kernel.LOG_DTYPE)
    codes, eps = codes_for(game.players)
    before = start.snapshot()
    args = (
        start, *streams(), False, codes, eps, rows, logs, np.array([seat], dtype=np.int16),
        np.array([action], dtype=np.int16),
    )  # fmt: skip
    if start.is_legal(action):
        kernel.run_chunk(*args)
        for g in range(3):
            assert int(logs[g]["moves"][0]) == action
            core = replayed(kernel, start, logs[g])
            assert core.phase == 2  # over
            assert np.array_equal(final(core), rows[g]["scores"][: game.players])
            assert core.ranks().tolist() == rows[g]["ranks"][: game.players].tolist()
    else:
        with pytest.raises(ValueError, match=r"not legal at its decision|no action"):
            kernel.run_chunk(*args)
    assert start.snapshot() == before


@st.composite
def forced_cases(draw: st.DrawFn, kind: str) -> tuple[int, int, int]:
    seed = draw(st.integers(0, 2**16))
    moves = draw(st.integers(0, 40))
    game: Any = (board_game if kind == "board" else card_game)(seed, moves, place=False)
    if game.is_over:
        return seed, moves, 0
    legal = [int(a) for a in game.legal_actions()]
    swap = _core.ACTION_SWAP if kind == "board" else _cards.ACTION_SWAP
    size = _core.ACTION_SIZE if kind == "board" else _cards.ACTION_SIZE
    if game.phase == "swap":
        of_its_kind = st.sampled_from([swap, swap + 1])
    else:
        of_its_kind = st.integers(-(2**15), swap - 1)
    action = draw(st.one_of(st.sampled_from(legal), of_its_kind, st.integers(size, 2**15 - 1)))
    return seed, moves, action


@settings(max_examples=40, deadline=None)
@given(case=forced_cases("board"))
def test_board_forced_actions_fuzzed(case: tuple[int, int, int]) -> None:
    check_forced_action("board", *case)


@settings(max_examples=40, deadline=None)
@given(case=forced_cases("cards"))
def test_card_forced_actions_fuzzed(case: tuple[int, int, int]) -> None:
    check_forced_action("cards", *case)


# -- the vector kernels ----------------------------------------------------------------------


def board_kernel(n: int = 6, start: bool = True) -> _vector.Kernel:
    kernel = _vector.Kernel(Rules(2).core(), n, 1, 0)
    kernel.seed(np.array([7, 0, 0, 0], dtype=np.uint32), 4)
    if start:
        kernel.start(True)
    return kernel


def card_kernel(n: int = 6, start: bool = True) -> _cards_vector.Kernel:
    kernel = _cards_vector.Kernel(CardRules(3).core(), n, 2, 0)
    kernel.seed(np.array([7, 0, 0, 0], dtype=np.uint32), 4)
    if start:
        kernel.start(True)
    return kernel


KERNELS = {"board": board_kernel, "cards": card_kernel}
STATE_DTYPES = {"board": _core.STATE_DTYPE, "cards": _cards.STATE_DTYPE}
ENV_FIELDS = {"board": _vector.ENV_FIELDS, "cards": _cards_vector.ENV_FIELDS}


def sampled(kernel: Any, n: int) -> npt.NDArray[np.int32]:
    out = np.empty(n, dtype=np.int32)
    kernel.sample(out)
    return out


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_step_checks_what_it_applies(kind: str) -> None:
    """``Kernel.step`` applied whatever it was given (the env called ``check`` first, on the
    caller's array): it checks its own copy now, and refuses the whole step for one bad id."""
    kernel = KERNELS[kind]()
    bad = sampled(kernel, 6)
    before = kernel.snapshot()[0]
    bad[3] = 99999
    assert kernel.step(bad) == 3
    assert kernel.last_actions()[3] == 99999
    assert kernel.snapshot()[0] == before
    assert kernel.step(np.full(6, -7, dtype=np.int32)) == 0
    assert kernel.snapshot()[0] == before
    assert kernel.step(sampled(kernel, 6)) == -1
    assert kernel.snapshot()[0] != before
    with pytest.raises(ValueError, match="one action per env"):
        kernel.step(np.zeros(5, dtype=np.int32))


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_needs_its_games_started(kind: str) -> None:
    """Before ``start`` the envs are zeros, no games: stepping, sampling or reading them was
    acting on states nobody made."""
    kernel = KERNELS[kind](start=False)
    with pytest.raises(ValueError, match="not started"):
        kernel.step(np.zeros(6, dtype=np.int32))
    with pytest.raises(ValueError, match="not started"):
        kernel.sample(np.zeros(6, dtype=np.int32))
    with pytest.raises(ValueError, match="not started"):
        kernel.core(0)
    with pytest.raises(ValueError, match="not started"):
        kernel.snapshot()
    kernel.start(True)
    with pytest.raises(IndexError):
        kernel.core(6)
    with pytest.raises(IndexError):
        kernel.stream_state(-1)


@pytest.mark.parametrize("kind", KERNELS)
def test_the_shared_vector_base_makes_no_games(kind: str) -> None:
    """``_EnvBatch`` (``genial/_envs.pxi``, the loops both vector kernels share) is reachable
    from Python, but only a game's ``Kernel`` makes the output arrays it writes: the base, or a
    Python subclass of it, refuses to start or restore (it would write through no arrays)."""
    module: Any = _vector if kind == "board" else _cards_vector
    base = Rules(2).core() if kind == "board" else CardRules(3).core()
    real = KERNELS[kind]()
    envs, prefix, pool_size, arrays = real.snapshot()

    class Bare(module._EnvBatch):  # type: ignore[misc,name-defined]
        pass

    for make in (module._EnvBatch, Bare):
        bare = make(base, 6, 1, 0)
        bare.seed(np.array([7, 0, 0, 0], dtype=np.uint32), 4)
        with pytest.raises(TypeError, match="no output arrays"):
            bare.start(True)
        with pytest.raises(TypeError, match="no output arrays"):
            bare.restore(envs, prefix, pool_size, arrays)
        with pytest.raises(ValueError, match="not started"):
            bare.step(np.zeros(6, dtype=np.int32))
        assert bare.arrays == {}


def test_board_vector_kernel_refuses_a_base_that_is_no_fresh_game() -> None:
    """A ``Core.__new__`` (zeros: radius 0, no area) made zero-size arrays the kernel wrote
    into; a dealt base made every game start with the same racks."""
    with pytest.raises(ValueError, match="players"):
        _vector.Kernel(_core.Core.__new__(_core.Core), 2, 1, 0)
    dealt = Rules(2).core()
    dealt.deal(np.random.PCG64(1))
    with pytest.raises(ValueError, match="fresh game"):
        _vector.Kernel(dealt, 2, 1, 0)
    with pytest.raises(ValueError, match="fresh game"):
        _vector.Kernel(board_core(), 2, 1, 0)


def test_board_vector_kernel_on_a_small_area() -> None:
    """An area of radius below 5 holds no printed symbol: the board planes of a fresh game
    are empty (the symbols' columns were -1: a write before the array)."""
    core = _core.Core(
        players=2, radius=3, rack_size=6, cap=18, cross=18, bonus=1, first=0, swap=True,
        teams=False, tile_counts=_core.STANDARD_COUNTS,
    )  # fmt: skip
    kernel = _vector.Kernel(core, 3, 1, 0)
    kernel.seed(np.array([1, 0, 0, 0], dtype=np.uint32), 4)
    kernel.start(True)
    assert not kernel.arrays["board"].any()


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_restore_checks_every_env(kind: str) -> None:
    """A snapshot's env bytes were copied in as they were: an env can no longer hold a state
    ``check_state`` refuses, a game of other rules, or streams PCG64 never has; nothing
    changes when one is refused."""
    kernel = KERNELS[kind]()
    kernel.step(sampled(kernel, 6))
    envs, prefix, pool, arrays = kernel.snapshot()
    size = len(envs) // 6
    dtype = STATE_DTYPES[kind]

    def with_env(k: int, edit: Callable[[Any], None]) -> bytes:
        state = np.frombuffer(envs[k * size : k * size + dtype.itemsize], dtype=dtype).copy()
        edit(state[0])
        return envs[: k * size] + state.tobytes() + envs[k * size + dtype.itemsize :]

    chance = ENV_FIELDS[kind]["chance"] + 24  # the low word of the stream's increment: even
    even = envs[:chance] + bytes(8) + envs[chance + 8 :]
    if kind == "board":
        rules = with_env(4, lambda s: s["rules"].__setitem__("players", 3))
        bad = with_env(4, lambda s: s["rack_n"].__setitem__(0, 9))
        over = with_env(4, lambda s: s.__setitem__("phase", 2))
    else:
        rules = with_env(4, lambda s: s.__setitem__("turn_cap", 7))
        bad = with_env(4, lambda s: s["hand_n"].__setitem__(0, 9))
        over = with_env(4, lambda s: (s.__setitem__("phase", 2), s.__setitem__("truncated", 1)))
    other = KERNELS[kind]()
    before = other.snapshot()
    cases: list[tuple[tuple[Any, ...], str]] = [
        ((bad, prefix, pool, arrays), "env 4: "),
        ((rules, prefix, pool, arrays), "env 4: "),
        ((over, prefix, pool, arrays), "env 4: "),
        ((even, prefix, pool, arrays), "env 0: not a PCG64 stream"),
        ((envs[:-1], prefix, pool, arrays), "its size"),
        ((envs, prefix, 3, arrays), "its seed"),
        ((envs, prefix, pool, {**arrays, "rewards": [0.0] * 18}), "rewards"),
        ((envs, prefix, pool, {"rewards": arrays["rewards"]}), "its arrays"),
    ]
    for parts, message in cases:
        with pytest.raises(ValueError, match=message):
            other.restore(*parts)
        after = other.snapshot()
        assert after[0] == before[0] and all(
            np.array_equal(after[3][k], before[3][k]) for k in before[3]
        )


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_restore_recomputes_what_the_states_determine(kind: str) -> None:
    """A snapshot's counts of the bag (deck), decisions and mask bookkeeping were taken as
    they were (a count of 200 tiles of a type overflowed the bag's sort); the kernel computes
    them again from each state: the restored kernel plays on exactly as the one snapshotted."""
    kernel = KERNELS[kind]()
    for _ in range(5):
        kernel.step(sampled(kernel, 6))
    envs, prefix, pool, arrays = kernel.snapshot()
    size = len(envs) // 6
    fields = ENV_FIELDS[kind]
    garbage = bytearray(envs)
    for k in range(6):
        for name, length in (("bag_counts", 21), ("deck_counts", 15), ("edges", 56),
                             ("count", 4), ("m_edges", 56)):  # fmt: skip
            if name in fields:
                at = k * size + fields[name]
                garbage[at : at + length] = b"\xc8" * length
    masks = {**arrays}
    if "masks" in masks:
        masks["masks"] = np.full_like(masks["masks"], 1)
    twin = KERNELS[kind]()
    twin.restore(bytes(garbage), prefix, pool, masks)
    for _ in range(30):
        actions = sampled(kernel, 6)
        assert np.array_equal(actions, sampled(twin, 6))
        assert kernel.step(actions) == twin.step(actions) == -1
        for name, value in kernel.arrays.items():
            assert np.array_equal(value, twin.arrays[name]), name


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_outputs_cannot_be_freed_under_it(kind: str) -> None:
    """The output arrays were numpy's own: ``resize(refcheck=False)`` (or dropping the
    ``arrays`` dict) freed the memory the kernel writes. Their memory is the kernel's now."""
    kernel = KERNELS[kind]()
    with pytest.raises(ValueError, match="does not own its data"):
        kernel.arrays["rewards"].resize(0, refcheck=False)
    kernel.arrays.clear()
    assert "rewards" in kernel.arrays
    env: Any = VectorEnv(4, 2, seed=1) if kind == "board" else CardVectorEnv(4, 3, seed=1)
    env.reset()
    with pytest.raises(ValueError, match="does not own its data"):
        env.observations["phase"].base.resize(0, refcheck=False)


class Reentrant(np.ndarray):
    """An array whose ``shape`` calls back into a vector kernel (as another thread would)."""

    kernel: Any = None

    @property  # type: ignore[misc]
    def shape(self) -> tuple[int, ...]:
        Reentrant.kernel.seed(np.array([1, 2, 3, 4], dtype=np.uint32), 4)
        return tuple(np.asarray(self).shape)


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_takes_one_call_at_a_time(kind: str) -> None:
    """The kernels change their envs and seed words without the GIL: a second call while one
    runs (another thread's ``seed`` freed the words a step was using) is a RuntimeError."""
    kernel = KERNELS[kind]()
    envs, prefix, pool, arrays = kernel.snapshot()
    Reentrant.kernel = kernel
    evil = np.asarray(arrays["rewards"]).view(Reentrant)
    with pytest.raises(RuntimeError, match="busy"):
        kernel.restore(envs, prefix, pool, {**arrays, "rewards": evil})
    kernel.step(sampled(kernel, 6))  # free again


@pytest.mark.parametrize("kind", KERNELS)
def test_vector_kernel_refuses_a_huge_seed_prefix(kind: str) -> None:
    kernel = KERNELS[kind]()
    with pytest.raises(ValueError, match="prefix: at most"):
        kernel.seed(np.zeros(100_000, dtype=np.uint32), 4)
    with pytest.raises(ValueError, match="pool_size"):
        kernel.seed(np.zeros(4, dtype=np.uint32), 65)


@pytest.mark.parametrize("kind", KERNELS)
def test_a_pickled_env_that_is_not_one_is_a_genial_error(kind: str) -> None:
    """The public face: unpickling an env whose kernel bytes were changed is a GenialError."""
    env: Any = VectorEnv(3, 2, seed=1) if kind == "board" else CardVectorEnv(3, 3, seed=1)
    env.reset()
    state = env.__getstate__()
    envs, prefix, pool, arrays = state["kernel"]
    state["kernel"] = (b"\xff" * len(envs), prefix, pool, arrays)
    data = pickle.dumps(env)
    clone = pickle.loads(data)
    with pytest.raises(GenialError, match="not one"):
        clone.__setstate__(state)


@pytest.mark.parametrize("make", [board_core, card_core], ids=["board", "cards"])
def test_choose_names_an_unknown_policy(make: Callable[[], Any]) -> None:
    """An unknown policy name was a KeyError (not a ValueError naming it)."""
    core = make()
    with pytest.raises(ValueError, match="policy: one of random"):
        core.choose("gready", np.random.PCG64(1))
    with pytest.raises(TypeError):
        core.choose("random", np.random.default_rng(1))  # not a BitGenerator


def test_core_reads_its_tile_counts_once() -> None:
    """``Core(tile_counts=...)`` read each count twice (checked one, stored the next)."""
    counts = Flaky(list(_core.STANDARD_COUNTS))
    core = _core.Core(
        players=2, radius=5, rack_size=6, cap=18, cross=18, bonus=1, first=1, swap=True,
        teams=False, tile_counts=counts,
    )  # fmt: skip
    assert core.bag_counts() == list(_core.STANDARD_COUNTS)
    with pytest.raises(ValueError, match="tile_counts: a count"):
        _core.Core(
            players=2, radius=5, rack_size=6, cap=18, cross=18, bonus=1, first=1, swap=True,
            teams=False, tile_counts=[200] + [0] * 20,
        )  # fmt: skip
