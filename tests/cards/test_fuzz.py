"""Hostile input for the card game (``genial.cards``), in the manner of ``tests/test_fuzz.py``:
random and mutated position texts, mutated records, ``CardPosition`` objects with arbitrary
values in their fields, arbitrary objects as moves and arguments.

For every call:

- **exception type**: anything raised is a ``genial.GenialError`` (a ``ValueError``), never a
  ``TypeError``, ``OverflowError``, plain ``ValueError`` (``int`` -> ``str`` of more than 4,300
  digits raises one), ``RecursionError`` ...;
- **message length**: ``len(str(exc)) <= MAX_MESSAGE`` whatever the size of the input;
- **time**: each call returns or raises within ``LIMIT`` seconds of CPU time
  (``time.process_time``, which a busy machine does not inflate as it does the wall clock; a
  slow call is measured twice more and the fastest run counts); records are checked to take
  linear time in their length;
- **no state change**: a rejected call on a live game leaves ``to_text()`` and ``to_record()``
  as they were;
- **accepted positions play**: a position that is accepted reads back from its text and plays
  to its end with ``choose("random")``, and a batch can start from it.

``GENIAL_FUZZ_EXAMPLES`` (default 60: the file runs in a few seconds) scales every test's
example count. A failing example prints as expressions over this module and
``tests.fuzz_strategies`` (``from tests.cards.test_fuzz import *``).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st

import genial
from genial import GenialError
from genial.cards import CardGame, CardMove, CardPosition, CardRules
from genial.cards.notation import load

from .. import fuzz_strategies as fs
from ..depth import sized
from ..fuzz_strategies import Expr, const, text_expr

EXAMPLES = sized("GENIAL_FUZZ_EXAMPLES", full=60, quick=20)
LIMIT = 0.05
"""CPU seconds a call may take (parsers and checks are linear and capped)."""
MAX_MESSAGE = 300
MAX_MOVES = 3000
"""Moves after which an accepted game that has not ended is a failure (games take ~100)."""
FIELDS = (
    *("rules", "markers", "hands", "displays", "deck", "discard"),
    *("to-move", "phase", "bonus", "turn", "turn-cap", "winner"),
)
"""The twelve fields of a card position text (``genial.cards.notation``)."""
HUGE = ("1" + "0" * 5000, "9" * 5000, "9" * 4300, "9" * 4301, "0" * 5000, "1" + "0" * 100)
"""Numbers too long for ``int``'s string conversion limit (4,300 digits) and short ones."""


def fuzz(share: float = 1.0) -> settings:
    return settings(
        max_examples=max(1, int(EXAMPLES * share)),
        deadline=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.large_base_example,
        ],
    )


# -- games, texts and records (the names the reproducers use) -------------------------------------


def card_game_of(
    players: int, seed: int, steps: int, cap: int = 1000, live: bool = False
) -> CardGame:
    """The card game of ``players`` and ``seed`` after ``steps`` random moves (``choose``);
    ``live``: moves taken back until the game runs."""
    game = CardGame(players, seed=seed, turn_cap=cap)
    for _ in range(steps):
        if game.is_over:
            break
        game.play(game.choose("random"))
    while live and game.is_over:
        game.undo()
    return game


@lru_cache(maxsize=4096)
def _record_json(players: int, seed: int, steps: int, cap: int) -> str:
    return json.dumps(card_game_of(players, seed, steps, cap).to_record())


def card_record_of(players: int, seed: int, steps: int, cap: int = 1000) -> dict[str, Any]:
    """A fresh record of ``card_game_of(players, seed, steps, cap)``."""
    record: dict[str, Any] = json.loads(_record_json(players, seed, steps, cap))
    return record


@lru_cache(maxsize=4096)
def card_text_of(players: int, seed: int, steps: int, cap: int = 1000) -> str:
    """The position text of ``card_game_of(players, seed, steps, cap)``."""
    return CardGame.from_record(card_record_of(players, seed, steps, cap)).to_text()


def record_with(start: str | None = None, move: str | None = None) -> dict[str, Any]:
    """A valid record with its start text or its first move replaced."""
    record = card_record_of(3, 1, 4)
    if start is not None:
        record["start"] = start
    if move is not None:
        record["moves"] = [{"move": move, "draws": []}]
    return record


keys = st.tuples(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 2**32 - 1),
    st.one_of(st.integers(0, 150), st.integers(20, 60)),
    st.sampled_from([1000, 1000, 1000, 7, 40]),
)


@st.composite
def card_games(draw: st.DrawFn, live: bool = False) -> Expr:
    players, seed, steps, cap = draw(keys)
    code = f"card_game_of({players}, {seed}, {steps}, {cap}{', live=True' if live else ''})"
    return Expr(code, lambda: card_game_of(players, seed, steps, cap, live))


@st.composite
def card_texts(draw: st.DrawFn) -> Expr:
    players, seed, steps, cap = draw(keys)
    text = card_text_of(players, seed, steps, cap)
    return const(f"card_text_of({players}, {seed}, {steps}, {cap})", text)


# -- mutations of card position texts -------------------------------------------------------------

NUMBERS = (*fs.NUMBERS, *HUGE)


def _index(draw: st.DrawFn, size: int) -> int:
    return draw(st.integers(0, max(size - 1, 0)))


def _set_field(text: str, k: int, value: str) -> str:
    parts = text.split(" ")
    if len(parts) > k:
        parts[k] = value
    return " ".join(parts)


def _get_field(text: str, k: int) -> str:
    parts = text.split(" ")
    return parts[k] if len(parts) > k else ""


def op_number(draw: st.DrawFn, text: str) -> str:
    """A numeric field (to-move, bonus, turn, turn-cap, winner) set to any number text,
    huge ones included."""
    k = draw(st.sampled_from([6, 8, 9, 10, 11]))
    return _set_field(text, k, draw(st.sampled_from(NUMBERS)))


def op_rules(draw: st.DrawFn, text: str) -> str:
    tokens = ["c2", "c3", "c4", "c1", "c5", "c3:50", "C3", "c", "3", "c٣", "c33", "c" + "9" * 5000]
    return _set_field(text, 0, draw(st.sampled_from(tokens)))


def op_phase(draw: st.DrawFn, text: str) -> str:
    return _set_field(text, 7, draw(st.sampled_from(["p", "s", "x", "P", "ps", "-", "", "over"])))


def op_marker(draw: st.DrawFn, text: str) -> str:
    seats = [s.split(",") for s in _get_field(text, 1).split("/")]
    seat = seats[_index(draw, len(seats))]
    how = draw(st.sampled_from(["set", "set", "set", "drop", "add", "seat"]))
    if how == "set" and seat:
        seat[_index(draw, len(seat))] = draw(st.sampled_from(NUMBERS))
    elif how == "drop" and seat:
        del seat[_index(draw, len(seat))]
    elif how == "add":
        seat.append(draw(st.sampled_from(NUMBERS)))
    else:
        seats.append(list(seat))
    return _set_field(text, 1, "/".join(",".join(s) for s in seats))


def op_cards(draw: st.DrawFn, text: str) -> str:
    """A hand or a display with a card added or dropped, lower-cased, an odd character, an
    empty or a repeated seat."""
    k = draw(st.sampled_from([2, 3]))
    rows = _get_field(text, k).split("/")
    i = _index(draw, len(rows))
    row = rows[i]
    how = draw(st.sampled_from(["add", "drop", "lower", "empty", "odd", "seat", "same"]))
    if how == "add":
        pair = draw(st.sampled_from("RGBOYP")) + draw(st.sampled_from("RGBOYP"))
        row = ("" if row == "-" else row) + pair
    elif how == "drop" and len(row) >= 2:
        j = 2 * _index(draw, len(row) // 2)
        row = row[:j] + row[j + 2 :] or "-"
    elif how == "lower":
        row = row.lower()
    elif how == "empty":
        row = draw(st.sampled_from(["-", "", "--", "-R"]))
    elif how == "odd":
        row = row + draw(fs.characters)
    elif how == "same":
        row = row[:2] * draw(st.integers(1, 8))
    else:
        rows.append(row)
    rows[i] = row
    return _set_field(text, k, "/".join(rows))


def op_counts(draw: st.DrawFn, text: str) -> str:
    """The deck's or the discard pile's counts with a digit changed, one added or removed, or
    the field replaced by a long number."""
    k = draw(st.sampled_from([4, 5]))
    counts = _get_field(text, k)
    how = draw(st.sampled_from(["digit", "digit", "add", "drop", "huge"]))
    if how == "digit" and counts:
        j = _index(draw, len(counts))
        digit = draw(st.one_of(st.sampled_from("0123456789"), st.sampled_from(fs.EXOTIC[:4])))
        counts = counts[:j] + digit + counts[j + 1 :]
    elif how == "add":
        counts += draw(st.sampled_from("01234"))
    elif how == "drop":
        counts = counts[:-1]
    else:
        counts = draw(st.sampled_from(HUGE))
    return _set_field(text, k, counts)


def op_other_field(draw: st.DrawFn, text: str) -> str:
    """A field taken from the position of another card game (maybe of another player count)."""
    other = draw(card_texts()).make().split(" ")
    parts = text.split(" ")
    k = _index(draw, min(len(parts), len(other)))
    parts[k] = other[k]
    return " ".join(parts)


def op_blow(draw: st.DrawFn, text: str) -> str:
    """A field blown up to a long run (the text is then past the 400-character cap)."""
    unit = draw(st.sampled_from(["9", "0", "R", "RG", "/", ",", "-", "0,"]))
    return _set_field(
        text, _index(draw, len(FIELDS)), unit * draw(st.sampled_from([50, 200, 5000]))
    )


CARD_OPS = (op_number, op_rules, op_phase, op_marker, op_marker, op_cards, op_cards, op_counts)
FIELD_OPS = (*fs.FIELD_OPS[:4], op_other_field, op_blow)
ALL_OPS = fs.CHAR_OPS * 3 + FIELD_OPS + CARD_OPS * 2


@st.composite
def mutated_texts(draw: st.DrawFn, ops: Sequence[Any] = ALL_OPS, max_ops: int = 4) -> Expr:
    """A valid card position text, mutated 1 to ``max_ops`` times."""
    text = draw(card_texts()).make()
    for _ in range(draw(st.integers(1, max_ops))):
        text = draw(st.sampled_from(ops))(draw, text)
    return text_expr(text)


# mostly card-aware edits: positions that from_text accepts
plausible_texts = mutated_texts(ops=CARD_OPS * 3 + fs.CHAR_OPS, max_ops=2)
random_texts = st.one_of(
    st.text(max_size=500).map(text_expr),
    st.text(alphabet="0123456789,/- RGBOYPrgboypcpsx:٣", max_size=500).map(text_expr),
)


@st.composite
def move_like_texts(draw: st.DrawFn) -> Expr:
    """Card move texts (plays in either order, swap, keep) with a few character edits."""
    text = str(CardMove.from_action(draw(st.integers(0, 31))))
    for _ in range(draw(st.integers(0, 3))):
        text = draw(st.sampled_from(fs.CHAR_OPS))(draw, text)
    return text_expr(text)


hostile_texts = st.one_of(
    random_texts, mutated_texts(), move_like_texts(), fs.shaped_texts(), st.just(text_expr(""))
)


# -- checking one call ----------------------------------------------------------------------------


def _safe_str(value: object, limit: int = 160) -> str:
    try:
        text = str(value)
    except Exception as exc:  # an unprintable value is described, not printed
        text = f"<str() raised {type(exc).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _fail(message: str, error: BaseException | None = None) -> None:
    if error is None:
        raise AssertionError(message)
    raise AssertionError(message) from error


def _timed(call: Callable[[], Any]) -> tuple[Any, BaseException | None, float]:
    """``call()``'s value or exception, and the CPU time it took (``time.process_time``: what
    it computed, which other processes on a busy machine do not inflate as they do the wall
    clock; these calls compute, they do not wait)."""
    enabled = gc.isenabled()
    gc.disable()
    start = time.process_time()
    try:
        value, error = call(), None
    except Exception as exc:  # every exception is checked by the caller
        value, error = None, exc
    elapsed = time.process_time() - start
    if enabled:
        gc.enable()
    return value, error, elapsed


def check_error(what: str, error: BaseException) -> None:
    """A GenialError with a short message, else a failure naming the problem."""
    if not isinstance(error, GenialError):
        kind = f"{type(error).__module__}.{type(error).__qualname__}"
        _fail(f"{what}: raised {kind}, not a GenialError: {_safe_str(error)}", error)
    size = len(str(error))
    if size > MAX_MESSAGE:
        _fail(f"{what}: a message of {size} characters: {_safe_str(error)}", error)


def attempt(
    what: str,
    call: Callable[..., Any],
    *inputs: Expr,
    limit: float = LIMIT,
    again: Callable[..., Any] | None = None,
) -> tuple[Any, BaseException | None]:
    """Run ``call`` on fresh values of ``inputs``: its time and what it raises are checked (a
    slow call is run twice more on fresh values, through ``again`` for a call that changes
    something; the fastest run counts). Returns ``(value, None)`` or ``(None, error)``."""
    args = [i.make() for i in inputs]
    value, error, elapsed = _timed(lambda: call(*args))
    for _ in range(2):
        if elapsed <= limit:
            break
        fresh = [i.make() for i in inputs]
        elapsed = min(elapsed, _timed(lambda fresh=fresh: (again or call)(*fresh))[2])
    if elapsed > limit:
        _fail(f"{what}: took {elapsed * 1000:.0f} ms (bound {limit * 1000:.0f} ms)")
    if error is not None:
        check_error(what, error)
    return value, error


def snapshot(game: CardGame) -> tuple[str, str]:
    return game.to_text(), json.dumps(game.to_record(), sort_keys=True)


def play_to_the_end(game: CardGame, origin: str) -> None:
    """An accepted position plays to its end with random moves, its text reading back to
    itself after every move (RULES §5.7: every game ends, by a win or the turn cap)."""
    for _ in range(MAX_MOVES):
        text = game.to_text()
        try:
            again = CardGame.from_text(text)
        except GenialError as exc:
            _fail(f"round trip: from_text(to_text()) raised {_safe_str(exc)}; text: {text}", exc)
        if again.to_text() != text:
            _fail(f"round trip: {text} reads back as {again.to_text()}")
        if game.is_over:
            assert game.truncated or game.position.winner is not None
            return
        if not len(game.legal_actions()):
            _fail(f"stuck: no legal move, not over ({origin}); position: {text}")
        game.play(game.choose("random"))
    _fail(f"no end after {MAX_MOVES} moves ({origin})")


def accepted(game: CardGame, origin: str) -> None:
    """Everything an accepted position must do: play to its end, and start a batch."""
    if not game.is_over:
        runs, _ = attempt(
            f"simulate(start={origin})",
            lambda: genial.simulate(2, game="cards", rules=game.rules, start=game, seed=0),
            limit=1.0,
        )
        assert runs is not None and len(runs) == 2
        assert (runs.turns >= game.turn).all()
    play_to_the_end(game.copy(), origin)


# -- texts ----------------------------------------------------------------------------------------

TEXT_ENTRY_POINTS: dict[str, Callable[[CardGame, str], Any]] = {
    "CardGame.from_text": lambda g, t: CardGame.from_text(t),
    "CardPosition.parse": lambda g, t: CardPosition.parse(t),
    "CardRules.parse": lambda g, t: CardRules.parse(t),
    "CardRules.of": lambda g, t: CardRules.of(t),
    "CardMove.parse": lambda g, t: CardMove.parse(t),
    "CardGame(text)": lambda g, t: CardGame(t, seed=0),
    "CardGame(rules=text)": lambda g, t: CardGame(rules=t, seed=0),
    "CardGame.from_record(start=text)": lambda g, t: CardGame.from_record(record_with(start=t)),
    "CardGame.from_record(move=text)": lambda g, t: CardGame.from_record(record_with(move=t)),
    "simulate(cards, rules=text)": lambda g, t: genial.simulate(1, game="cards", rules=t, seed=0),
    "simulate(cards, start=text)": lambda g, t: genial.simulate(
        1, game="cards", rules=g.rules, start=t, seed=0
    ),
    "simulate(cards, policy=text)": lambda g, t: genial.simulate(
        1, game="cards", rules="c3", policy=t, seed=0
    ),
    "game.choose(text)": lambda g, t: g.choose(t),
    "game.gains(text)": lambda g, t: g.gains(t),
}


@pytest.mark.parametrize("entry", list(TEXT_ENTRY_POINTS))
@fuzz(0.5)
@given(game=card_games(live=True), text=hostile_texts)
def test_hostile_texts(entry: str, game: Expr, text: Expr) -> None:
    """Random texts, mutated position texts, adversarial shapes (long runs, 5,000-digit numbers,
    deep brackets) through each text entry point; a game's own methods leave it unchanged."""
    live = game.make()
    before = snapshot(live)
    attempt(
        entry,
        lambda t: TEXT_ENTRY_POINTS[entry](live, t),
        text,
        limit=0.5 if "simulate" in entry else LIMIT,
    )
    if snapshot(live) != before:
        _fail(f"{entry} changed the game")


@fuzz(2)
@given(mutated_texts())
def test_mutated_positions(text: Expr) -> None:
    """Valid texts with characters replaced, inserted or deleted, fields swapped, duplicated,
    dropped, taken from other games or blown up, numbers made huge, cards added or dropped:
    read or rejected with a short PositionError, and an accepted one writes itself back."""
    game, error = attempt("CardGame.from_text", CardGame.from_text, text)
    attempt("CardPosition.parse", CardPosition.parse, text)
    attempt("CardGame.from_text(seed=1)", lambda t: CardGame.from_text(t, seed=1), text)
    record = Expr(f"record_with(start={text.code})", lambda: record_with(start=text.make()))
    attempt("CardGame.from_record(start=mutated)", CardGame.from_record, record)
    event("accepted" if game is not None else type(error).__name__)
    if game is not None:
        assert CardGame.from_text(game.to_text()).to_text() == game.to_text()


@fuzz(0.5)
@given(plausible_texts)
def test_accepted_positions_play_to_the_end(text: Expr) -> None:
    """A mutated position that ``from_text`` accepts plays to its end, and a batch starts
    there (``notation.load``: "every position accepted plays on to its end")."""
    game, _ = attempt("CardGame.from_text", lambda t: CardGame.from_text(t, seed=0), text)
    event("accepted" if game is not None else "rejected")
    if game is not None:
        accepted(game, f"CardGame.from_text({text.code})")


def _huge_texts() -> list[tuple[str, str]]:
    """A valid running position with one number made huge: each numeric field, one marker of
    each seat, a count of the deck and of the discard pile, and the rules' digit."""
    base = card_text_of(3, 5, 10)
    fields = base.split(" ")
    out = []
    for number in ("1" + "0" * 5000, "9" * 4301, "1" + "0" * 100):
        name = f"{len(number)} digits"
        for k in (6, 8, 9, 10, 11):
            out.append((f"{FIELDS[k]} {name}", _set_field(base, k, number)))
        for seat in range(3):
            rows = [r.split(",") for r in fields[1].split("/")]
            rows[seat][seat + 1] = number
            out.append(
                (f"marker {seat} {name}", _set_field(base, 1, "/".join(map(",".join, rows))))
            )
        for k in (4, 5):
            out.append((f"{FIELDS[k]} {name}", _set_field(base, k, fields[k][:7] + number)))
        out.append((f"rules {name}", _set_field(base, 0, "c" + number)))
    return out


HUGE_TEXTS = _huge_texts()


@pytest.mark.parametrize(("what", "text"), HUGE_TEXTS, ids=[w for w, _ in HUGE_TEXTS])
def test_huge_numbers_in_position_texts(what: str, text: str) -> None:
    """A number of 5,000 digits (past Python's 4,300-digit ``int``/``str`` limit, where ``int()``
    and ``str()`` raise a plain ValueError) or of 101 digits in any numeric field of a text: a
    short PositionError, quickly, from every reader of texts (a RecordError from records)."""
    for name, call, kind in (
        ("CardGame.from_text", CardGame.from_text, genial.PositionError),
        ("CardPosition.parse", CardPosition.parse, genial.PositionError),
        ("from_record", lambda t: CardGame.from_record(record_with(start=t)), genial.RecordError),
    ):
        _, error = attempt(f"{name} ({what})", call, const(repr(what), text))
        assert isinstance(error, kind), f"{name} ({what}) accepted it"


# -- records --------------------------------------------------------------------------------------


CARD_LEAVES: tuple[tuple[str, Callable[[], Any]], ...] = (
    ("'RG'", lambda: "RG"),
    ("'GR'", lambda: "GR"),
    ("'rg'", lambda: "rg"),
    ("'RR'", lambda: "RR"),
    ("'YP'", lambda: "YP"),
    ("'swap'", lambda: "swap"),
    ("'keep'", lambda: "keep"),
    ("10**5000", lambda: 10**5000),
    ("'9' * 5000", lambda: "9" * 5000),
    ("['RG'] * 7", lambda: ["RG"] * 7),
    ("['RG'] * 5", lambda: ["RG"] * 5),
    ("[['RG']]", lambda: [["RG"]]),
    ("nested(100000, 'list', 'RG')", lambda: fs.nested(100_000, "list", "RG")),
    ("nested(1000, 'dict', 'RG')", lambda: fs.nested(1000, "dict", "RG")),
)
"""Card-record values (made afresh for each use: edits may change them in place)."""
garbage = st.one_of(fs.json_garbage, fs._pairs(CARD_LEAVES, Expr))


@st.composite
def mutated_records(draw: st.DrawFn) -> Expr:
    """``to_record()`` of a random card game with 1 to 3 edits: values replaced by garbage
    (wrong types, huge ints, long strings, deep nesting), keys removed or added, strings
    mutated (the start text with every text mutation), lists duplicated, nodes wrapped."""
    players, seed, steps, cap = draw(keys)
    code = f"card_record_of({players}, {seed}, {steps}, {cap})"
    edits: list[Callable[[Any], Any]] = []
    tree: Any = card_record_of(players, seed, steps, cap)
    for _ in range(draw(st.integers(1, 3))):
        paths = fs._paths(tree)
        path = paths[_index(draw, len(paths))]
        node = fs._at(tree, path)
        kinds = ["replace", "replace", "wrap"]
        if path:
            kinds.append("drop")
        if isinstance(node, str):
            kinds += ["text", "text"]
        if isinstance(node, list) and node:
            kinds += ["dup", "nest-items"]
        if isinstance(node, dict):
            kinds += ["add", "version"]
        kind = draw(st.sampled_from(kinds))
        edit: Callable[[Any], Any]
        if kind in ("replace", "add"):
            value = draw(garbage)
            target = (
                path
                if kind == "replace"
                else (*path, draw(st.sampled_from(["move", "draws", "version", "x"])))
            )
            code = f"put({code}, {target!r}, {value.code})"
            edit = lambda t, p=target, v=value: fs.put(t, p, v.make())  # noqa: E731
        elif kind == "version":
            text = draw(st.sampled_from(["True", "1.0", "'1'", "2", "0", "None", "10**5000"]))
            target = (*path, "version")
            code = f"put({code}, {target!r}, {text})"
            version = eval(text)
            edit = lambda t, p=target, v=version: fs.put(t, p, v)  # noqa: E731
        elif kind == "drop":
            code = f"drop({code}, {path!r})"
            edit = lambda t, p=path: fs.drop(t, p)  # noqa: E731
        elif kind == "wrap":
            depth = draw(st.sampled_from([1, 2, 1000, 100_000]))
            code = f"wrap({code}, {path!r}, {depth})"
            edit = lambda t, p=path, d=depth: fs.wrap(t, p, d)  # noqa: E731
        elif kind == "text":
            new = node
            ops = ALL_OPS if path == ("start",) else fs.CHAR_OPS
            for _ in range(draw(st.integers(1, 2))):
                new = draw(st.sampled_from(ops))(draw, new)
            code = f"put({code}, {path!r}, {fs.str_code(new)})"
            edit = lambda t, p=path, s=new: fs.put(t, p, s)  # noqa: E731
        elif kind == "dup":
            i = _index(draw, len(node))
            code = f"dup({code}, {path!r}, {i})"
            edit = lambda t, p=path, i=i: fs.dup(t, p, i)  # noqa: E731
        else:
            code = f"nest_items({code}, {path!r})"
            edit = lambda t, p=path: fs.nest_items(t, p)  # noqa: E731
        tree = edit(tree)
        edits.append(edit)

    def make() -> Any:
        value: Any = card_record_of(players, seed, steps, cap)
        for edit in edits:
            value = edit(value)
        return value

    return Expr(code, make)


@fuzz(2)
@given(mutated_records())
def test_mutated_records(record: Expr) -> None:
    """``from_record`` on mutated records: a short RecordError, quickly, or a game that writes
    the same record back and plays on to its end."""
    game, error = attempt("CardGame.from_record", CardGame.from_record, record)
    attempt("CardGame.from_record(seed=1)", lambda r: CardGame.from_record(r, seed=1), record)
    if error is not None:
        assert isinstance(error, genial.RecordError), f"{type(error).__name__}: {error}"
    event("accepted" if game is not None else "rejected")
    if game is not None:
        again = CardGame.from_record(game.to_record())
        assert again.to_text() == game.to_text() and again.to_record() == game.to_record()
        accepted(game, f"CardGame.from_record({record.code})")


def _timed_min(call: Callable[[], Any], runs: int = 3) -> float:
    return min(_timed(call)[2] for _ in range(runs))


@pytest.mark.parametrize("wrong", ["a bad draw last", "illegal moves"])
def test_records_are_read_in_linear_time(wrong: str) -> None:
    """A record ten times longer takes at most about ten times as long to reject (loosely: 40
    times, and the long one within 0.5 s; the fastest of three runs): whether every move is read
    before the last one is found wrong ("a bad draw last": 'RX' is no card), or the replay stops
    at an illegal move, nothing is read twice."""
    base = card_record_of(3, 2, 0)

    def record(n: int) -> dict[str, Any]:
        moves = [{"move": "RG", "draws": []} for _ in range(n)]
        if wrong == "a bad draw last":
            moves.append({"move": "RG", "draws": ["RX"]})
        return {**base, "moves": moves}

    small, large = record(1000), record(10_000)
    for value in (small, large):
        _, error, _ = _timed(lambda value=value: CardGame.from_record(value))
        assert isinstance(error, genial.RecordError), error
        if wrong == "a bad draw last":
            assert f"move {len(value['moves']) - 1} " in str(error)
    t_small = _timed_min(lambda: CardGame.from_record(small))
    t_large = _timed_min(lambda: CardGame.from_record(large))
    assert t_large < max(40 * t_small, 0.05) and t_large < 0.5, (t_small, t_large)


# -- CardPosition objects -------------------------------------------------------------------------

POSITION_FIELDS = (
    *("rules", "markers", "hands", "displays", "deck", "discard"),
    *("to_move", "phase", "bonus", "turn", "winner"),
)
CARD_VALUES = (
    ("(0, 1)", (0, 1)),
    ("(1, 0)", (1, 0)),
    ("'RG'", "RG"),
    ("'rg'", "rg"),
    ("(0, 0)", (0, 0)),
    ("(0, 6)", (0, 6)),
    ("(-1, 0)", (-1, 0)),
    ("(0,)", (0,)),
    ("(0, 1, 2)", (0, 1, 2)),
    ("(0.0, 1.0)", (0.0, 1.0)),
    ("(True, 2)", (True, 2)),
    ("(np.int64(2), np.int8(4))", (np.int64(2), np.int8(4))),
    ("(10**5000, 1)", (10**5000, 1)),
    ("(1, -10**5000)", (1, -(10**5000))),
    ("np.array([0, 1])", np.array([0, 1])),
    ("'R'", "R"),
    ("None", None),
    ("0", 0),
)
INT_VALUES = (
    *((repr(v), v) for v in (0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, -1, 1000, 1001, 32000, 32001)),
    ("10**5000", 10**5000),
    ("-10**5000", -(10**5000)),
    ("10**4300", 10**4300),
    ("2**64", 2**64),
    ("np.int64(2)", np.int64(2)),
    ("np.uint8(255)", np.uint8(255)),
    ("True", True),
    ("1.0", 1.0),
    ("float('nan')", float("nan")),
    ("'1'", "1"),
    ("None", None),
)


def _seq(
    draw: st.DrawFn, base: Sequence[Any], values: st.SearchStrategy[Expr], kind: str = "tuple"
) -> Expr:
    """``base`` with an item replaced, dropped or added."""
    items = [const(repr(v), v) for v in base]
    how = draw(st.sampled_from(["set", "set", "set", "drop", "add"]))
    if how == "set" and items:
        items[_index(draw, len(items))] = draw(values)
    elif how == "drop" and items:
        del items[_index(draw, len(items))]
    else:
        items.insert(draw(st.integers(0, len(items))), draw(values))
    return fs._list_expr(items, kind)


@st.composite
def field_values(draw: st.DrawFn, field: str, base: CardPosition) -> Expr:
    """Hostile values for one field of a ``CardPosition``: any object, or the field's own value
    with one item changed (a marker, a card, a count), possibly deep inside."""
    if draw(st.integers(0, 3)) == 0:
        return draw(fs.objects)
    ints = fs._pairs(INT_VALUES)
    if field == "rules":
        rules = [CardRules(2), CardRules(3), CardRules(4), CardRules(3, turn_cap=7)]
        return draw(st.sampled_from([*rules, "c3", 3, None]).map(lambda r: const(repr(r), r)))
    if field in ("markers", "hands", "displays"):
        rows: Any = getattr(base, field)
        inner = ints if field == "markers" else fs._pairs(CARD_VALUES)
        seat = _index(draw, len(rows))
        items = [fs._list_expr([const(repr(v), v) for v in row], "tuple") for row in rows]
        if draw(st.booleans()):
            items[seat] = _seq(draw, rows[seat], inner)
        else:
            items = [const(repr(r), r) for r in rows]
            how = draw(st.sampled_from(["drop", "add", "object"]))
            if how == "drop":
                del items[seat]
            elif how == "add":
                items.append(items[seat])
            else:
                items[seat] = draw(fs.objects)
        return fs._list_expr(items, "tuple")
    if field in ("deck", "discard"):
        return _seq(draw, getattr(base, field), ints)
    if field == "phase":
        return draw(
            st.sampled_from(["play", "swap", "over", "p", "PLAY", ""]).map(
                lambda p: const(repr(p), p)
            )
        )
    return draw(ints)


@st.composite
def hostile_positions(draw: st.DrawFn, field: str | None) -> tuple[Expr, dict[str, Expr]]:
    players, seed, steps, cap = draw(keys)
    code = f"CardPosition.parse(card_text_of({players}, {seed}, {steps}, {cap}))"
    base = CardPosition.parse(card_text_of(players, seed, steps, cap))
    names = (
        [field]
        if field is not None
        else draw(st.lists(st.sampled_from(POSITION_FIELDS), min_size=1, max_size=3, unique=True))
    )
    return const(code, base), {name: draw(field_values(name, base)) for name in names}


@pytest.mark.parametrize("field", [*POSITION_FIELDS, None])
@fuzz(0.5)
@given(data=st.data())
def test_positions_with_hostile_fields(field: str | None, data: st.DataObject) -> None:
    """``CardPosition`` objects with a hostile value in ``field`` (``None``: in 1 to 3 fields),
    made by ``replace``, through ``notation.load`` and ``CardGame.from_position``; an accepted
    one plays to its end and its text reads back to the same position."""
    base, changes = data.draw(hostile_positions(field))
    fields = Expr(repr(changes), lambda: {k: v.make() for k, v in changes.items()})
    position, error = attempt("CardPosition.replace", lambda b, f: b.replace(**f), base, fields)
    if error is not None:
        assert isinstance(error, genial.PositionError), error
        return
    _, error = attempt("notation.load", lambda: load(position))
    game, _ = attempt("CardGame.from_position", lambda: CardGame.from_position(position, seed=0))
    event("accepted" if game is not None else "rejected")
    if game is not None:
        assert CardPosition.parse(game.to_text()) == game.position
        accepted(game, f"{base.code}.replace(**{changes})")


HUGE_FIELDS: list[tuple[str, Callable[[CardPosition], dict[str, Any]]]] = [
    ("to_move", lambda p: {"to_move": 10**5000}),
    ("bonus", lambda p: {"bonus": 10**5000}),
    ("turn", lambda p: {"turn": 10**5000}),
    ("winner", lambda p: {"winner": 10**5000}),
    ("to_move negative", lambda p: {"to_move": -(10**5000)}),
    ("turn negative", lambda p: {"turn": -(10**5000)}),
    ("a marker", lambda p: {"markers": ((10**5000,) * 6, *p.markers[1:])}),
    ("a negative marker", lambda p: {"markers": ((0, 0, 0, 0, 0, -(10**5000)), *p.markers[1:])}),
    ("the largest marker", lambda p: {"markers": ((4, 4, 4, 4, 4, 10**5000), *p.markers[1:])}),
    ("a deck count", lambda p: {"deck": (10**5000, *p.deck[1:])}),
    ("a discard count", lambda p: {"discard": (*p.discard[:-1], -(10**5000))}),
    ("a hand card", lambda p: {"hands": (((10**5000, 1),), *p.hands[1:])}),
    ("a display card", lambda p: {"displays": (((0, 10**5000),), *p.displays[1:])}),
]


@pytest.mark.parametrize(("what", "change"), HUGE_FIELDS, ids=[w for w, _ in HUGE_FIELDS])
def test_huge_ints_in_position_fields(
    what: str, change: Callable[[CardPosition], dict[str, Any]]
) -> None:
    """A 5,000-digit int in a field of a ``CardPosition`` (formatting it in a message with
    ``str`` or an f-string raises a plain ValueError past 4,300 digits): a short PositionError
    from ``replace``, ``load`` or ``from_position``, never another error."""
    base = CardPosition.parse(card_text_of(3, 5, 10))
    try:
        position = base.replace(**change(base))
    except Exception as exc:
        check_error(f"replace({what})", exc)
        return
    for name, call in (
        ("load", lambda: load(position)),
        ("CardGame.from_position", lambda: CardGame.from_position(position)),
    ):
        _, error = attempt(f"{name} ({what})", call)
        assert error is not None, f"{name} accepted {what} = 10**5000"


BUILD_ARGUMENTS = (
    "rules",
    "hands",
    "displays",
    "markers",
    "discard",
    "to_move",
    "phase",
    "bonus",
    "turn",
    "winner",
)


def _build(**changes: Any) -> CardGame:
    """``CardPosition.build`` of a small valid position with some arguments replaced, then
    ``CardGame.from_position``."""
    args: dict[str, Any] = {
        "rules": CardRules(3),
        "hands": [["RG", "BO"], ["YP"], ["GY"]],
        "displays": [["RB"], ["OP"], ["GP"]],
        "markers": [[1, 1, 1, 1, 1, 1], [0] * 6, [0] * 6],
    }
    args.update(changes)
    rules = args.pop("rules")
    return CardGame.from_position(CardPosition.build(rules, **args))


@pytest.mark.parametrize("argument", BUILD_ARGUMENTS)
@fuzz(0.5)
@example(value=const("5", 5))
@example(value=const("[1, 2, 3]", [1, 2, 3]))
@given(value=fs.objects)
def test_build_with_hostile_arguments(argument: str, value: Expr) -> None:
    """``CardPosition.build`` with one argument an arbitrary object: a short PositionError (or
    RulesError), quickly, or a position that plays to its end."""
    game, _ = attempt(
        f"CardPosition.build({argument}={value.code})", lambda v: _build(**{argument: v}), value
    )
    if game is not None:
        accepted(game, f"_build({argument}={value.code})")


def test_build_with_markers_not_a_sequence_of_rows() -> None:
    """Markers that are not one row of six ints per seat are a PositionError (a fuzzing find:
    they were a TypeError)."""
    for markers in (5, [1, 2, 3], [None, None, None]):
        with pytest.raises(GenialError):
            _build(markers=markers)


@pytest.mark.parametrize("rules", [np.array([]), np.array([2, 3])], ids=["empty", "two"])
def test_simulate_cards_with_an_array_as_rules(rules: Any) -> None:
    """``genial.simulate(1, game="cards", rules=np.array([]))`` is a GenialError (a fuzzing
    find: numpy's truth-value error escaped)."""
    with pytest.raises(GenialError):
        genial.simulate(1, game="cards", rules=rules, seed=0)


# -- moves and the game's methods -----------------------------------------------------------------


def check_moves_on(game: CardGame, move: Expr) -> None:
    """``play`` and ``is_legal`` of ``move`` on ``game``: a rejected move changes nothing, a
    played one was legal, ``is_legal`` answers a bool and never raises."""
    before = snapshot(game)
    copy = game.copy()
    legal, error = attempt("game.is_legal", copy.is_legal, move)
    if error is not None:
        _fail(f"game.is_legal raised {type(error).__name__}: {_safe_str(error)}", error)
    if not isinstance(legal, bool):
        _fail(f"game.is_legal answered {legal!r}, not a bool")
    if snapshot(copy) != before:
        _fail("game.is_legal changed the game")
    played = len(game.moves)
    _, error = attempt("game.play", game.play, move, again=lambda m: game.copy().play(m))
    if error is not None:
        assert isinstance(error, genial.IllegalMoveError), error
        if snapshot(game) != before:
            _fail(f"game.play raised {type(error).__name__} and changed the game", error)
    elif not legal:
        _fail("game.play played a move is_legal called illegal")
    else:
        assert len(game.moves) == played + 1


move_values = st.one_of(
    fs.objects,
    hostile_texts,
    move_like_texts(),
    st.integers(-2, 33).map(lambda i: const(repr(i), i)),
    st.integers().map(lambda i: const(repr(i), i)),
    fs._pairs(CARD_VALUES),
    st.sampled_from([CardMove.swap(), CardMove.keep(), CardMove.parse("RG")]).map(
        lambda m: const(repr(m), m)
    ),
)


@fuzz(2)
@given(game=card_games(live=True), move=move_values)
def test_play_with_arbitrary_objects(game: Expr, move: Expr) -> None:
    """``play`` and ``is_legal`` with any object (texts, ids, huge ints, cards as tuples, numpy
    values, containers, deep nesting) on a live game."""
    check_moves_on(game.make(), move)


GAME_METHODS: dict[str, Callable[[CardGame, Any], Any]] = {
    "gains": lambda g, x: g.gains(x),
    "hand": lambda g, x: g.hand(x),
    "display": lambda g, x: g.display(x),
    "view": lambda g, x: g.view(x),
    "choose": lambda g, x: g.choose(x),
    "choose(epsilon=)": lambda g, x: g.choose("epsilon-greedy", epsilon=x),
    "playouts": lambda g, x: genial.simulate(
        1, game="cards", rules=g.rules, start=g, policy=x, seed=0
    ),
}


def _method_params() -> list[Any]:
    return [pytest.param(method, id=method) for method in GAME_METHODS]


@pytest.mark.parametrize("method", ["hand", "display", "view"])
@pytest.mark.parametrize("seat", [10**5000, 10**4299, -(10**5000)], ids=["5001", "4300", "-5001"])
def test_a_huge_seat_number(method: str, seat: int) -> None:
    """``CardGame(3, seed=1).hand(10**5000)``: a short GenialError (a fuzzing find: the seat
    was formatted whole)."""
    game = CardGame(3, seed=1)
    with pytest.raises(GenialError) as info:
        getattr(game, method)(seat)
    assert len(str(info.value)) <= MAX_MESSAGE


@pytest.mark.parametrize("method", _method_params())
@fuzz(0.5)
@example(
    game=Expr("card_game_of(3, 1, 0)", lambda: card_game_of(3, 1, 0)),
    value=const("10**5000", 10**5000),
)
@given(game=card_games(live=True), value=fs.objects)
def test_game_methods_on_garbage(method: str, game: Expr, value: Expr) -> None:
    """The game's other methods with any object: a short GenialError or an answer, quickly, and
    the game unchanged."""
    live = game.make()
    before = snapshot(live)
    attempt(
        f"game.{method}({value.code})",
        lambda v: GAME_METHODS[method](live, v),
        value,
        limit=0.5 if method == "playouts" else LIMIT,
    )
    if snapshot(live) != before:
        _fail(f"game.{method}({value.code}) changed the game")


def _simulate_small(n: Any) -> Any:
    """``simulate(n, game="cards")``; a valid count above 64 is not run (a real batch; huge
    ones are refused before allocating, which tests/test_fuzz.py checks in a child process)."""
    if fs._is_int(n) and 64 < n <= 2**40:
        return None
    return genial.simulate(n, game="cards", seed=0)


CONSTRUCTORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("CardGame(x)", lambda x: CardGame(x)),
    ("CardGame(seed=x)", lambda x: CardGame(seed=x)),
    ("CardGame(3, turn_cap=x)", lambda x: CardGame(3, turn_cap=x)),
    ("CardGame(rules=x)", lambda x: CardGame(rules=x)),
    ("CardRules(x)", lambda x: CardRules(x)),
    ("CardRules(3, x)", lambda x: CardRules(3, x)),
    ("CardRules.parse(x)", lambda x: CardRules.parse(x)),
    ("CardRules.of(x)", lambda x: CardRules.of(x)),
    ("CardMove.parse(x)", lambda x: CardMove.parse(x)),
    ("CardMove.play(x)", lambda x: CardMove.play(x)),
    ("CardMove.from_action(x)", lambda x: CardMove.from_action(x)),
    ("CardPosition.parse(x)", lambda x: CardPosition.parse(x)),
    ("notation.load(x)", lambda x: load(x)),
    ("CardGame.from_position(x)", lambda x: CardGame.from_position(x)),
    ("CardGame.from_text(x)", lambda x: CardGame.from_text(x)),
    (
        "CardGame.from_text(text, seed=x)",
        lambda x: CardGame.from_text(card_text_of(3, 1, 5), seed=x),
    ),
    ("CardGame.from_record(x)", lambda x: CardGame.from_record(x)),
    (
        "CardGame.from_record(r, seed=x)",
        lambda x: CardGame.from_record(card_record_of(2, 1, 5), seed=x),
    ),
    ("simulate(x, game='cards')", lambda x: _simulate_small(x)),
    (
        "simulate(1, game='cards', rules=x)",
        lambda x: genial.simulate(1, game="cards", rules=x, seed=0),
    ),
]


def _constructor_params() -> list[Any]:
    return [pytest.param(what, call, id=what) for what, call in CONSTRUCTORS]


@pytest.mark.parametrize(("what", "call"), _constructor_params())
@fuzz(0.5)
@example(x=const("np.array([])", np.array([])))
@given(x=fs.objects)
def test_constructors_and_codecs(what: str, call: Callable[[Any], Any], x: Expr) -> None:
    """Arbitrary objects as the arguments of the constructors, the rules, the move codec and
    the position and record readers."""
    attempt(f"{what} with x={x.code}", call, x, limit=0.5 if what.startswith("simulate") else LIMIT)
