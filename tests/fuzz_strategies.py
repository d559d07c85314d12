"""Strategies of the hostile-input fuzz suite (``tests/test_fuzz.py``).

Every strategy draws an ``Expr``: a value together with the Python expression that builds it.
Hypothesis prints the expression for a failing example, so a failure reads as a one-line
reproducer: ``from tests.fuzz_strategies import *`` gives the names the expressions use
(``text_of``, ``record_of``, ``put``, ``nested``, ``np``, ``Game`` ...). ``Expr.make()`` builds a
fresh value on each call, so that mutable values are never shared between calls.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from hypothesis import strategies as st

import genial
from genial import Game, Move, Position, Rules, simulate
from genial.board.notation import load
from genial.board.openings import analyse, first_placements

__all__ = [
    "TOKENS",
    "BigRepr",
    "Decimal",
    "Expr",
    "Fraction",
    "Game",
    "Index",
    "IntLike",
    "Move",
    "Opaque",
    "Position",
    "Rules",
    "StrLike",
    "analyse",
    "blow",
    "drop",
    "dup",
    "game_of",
    "genial",
    "load",
    "nest_items",
    "nested",
    "np",
    "position_of",
    "put",
    "record_of",
    "simulate",
    "text_of",
    "wrap",
]

TOKENS = ("1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t")
"""Every rules token (RULES §3, §4.1-§4.3, §2.2)."""
MAX_INPUT = 20_000
"""The largest hostile text, in characters."""
MAX_STEPS = 170
"""Random moves played to make a position: enough to end a 4-player game."""


# -- expressions ---------------------------------------------------------------------------------


class Expr:
    """A value and the expression that builds it (its ``repr``)."""

    __slots__ = ("_make", "code")

    def __init__(self, code: str, make: Callable[[], Any]) -> None:
        self.code = code
        self._make = make

    def make(self) -> Any:
        return self._make()

    def __repr__(self) -> str:
        return self.code


def const(code: str, value: Any) -> Expr:
    """An immutable value (shared between calls)."""
    return Expr(code, lambda: value)


def str_code(text: str) -> str:
    """An expression for a string, with runs of one character written ``'c' * n``."""
    parts: list[str] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        if j - i >= 12:
            if literal:
                parts.append(repr("".join(literal)))
                literal = []
            parts.append(f"{text[i]!r} * {j - i}")
        else:
            literal.append(text[i:j])
        i = j
    if literal:
        parts.append(repr("".join(literal)))
    return " + ".join(parts) or "''"


def text_expr(text: str) -> Expr:
    return const(str_code(text), text)


def float_code(x: float) -> str:
    return f"float({str(x)!r})" if math.isnan(x) or math.isinf(x) else repr(x)


# -- the names reproducers use ---------------------------------------------------------------------


class Opaque:
    """An object of no type the library knows."""

    def __repr__(self) -> str:
        return "Opaque()"


class BigRepr:
    """An object whose repr is 100,000 characters long."""

    def __repr__(self) -> str:
        return "<" + "x" * 100_000 + ">"


class Index:
    """Not an int, but usable as one through ``__index__``."""

    def __index__(self) -> int:
        return 2

    def __repr__(self) -> str:
        return "Index()"


class IntLike(int):
    """An int subclass."""


class StrLike(str):
    """A str subclass."""


def nested(depth: int, kind: str = "list", leaf: Any = None) -> Any:
    """A list (or dict, or tuple) nested ``depth`` deep around ``leaf``."""
    value = leaf
    for _ in range(depth):
        if kind == "list":
            value = [value]
        elif kind == "tuple":
            value = (value,)
        else:
            value = {"moves": value}
    return value


def game_of(token: str, seed: int, steps: int, live: bool = False) -> Game:
    """The game of rules ``token`` and ``seed`` after ``steps`` random moves (``choose``);
    ``live``: moves taken back until the game runs."""
    game = Game(token, seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.play(game.choose("random"))
    while live and game.is_over:
        game.undo()
    return game


@lru_cache(maxsize=8192)
def _record_json(token: str, seed: int, steps: int) -> str:
    return json.dumps(game_of(token, seed, steps).to_record())


def text_of(token: str, seed: int, steps: int) -> str:
    """The position text of ``game_of(token, seed, steps)``."""
    record = json.loads(_record_json(token, seed, steps))
    game = Game.from_record(record)
    return game.to_text()


def record_of(token: str, seed: int, steps: int) -> dict[str, Any]:
    """A fresh record of ``game_of(token, seed, steps)``."""
    record: dict[str, Any] = json.loads(_record_json(token, seed, steps))
    return record


def position_of(token: str, seed: int, steps: int) -> Position:
    """The ``Position`` of ``game_of(token, seed, steps)``."""
    return Position.parse(text_of(token, seed, steps))


def blow(text: str, field: int, value: str) -> str:
    """``text`` with its space-separated field ``field`` replaced by ``value``."""
    fields = text.split(" ")
    fields[field % len(fields)] = value
    return " ".join(fields)


def _at(tree: Any, path: Sequence[Any]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def put(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    """``tree`` with the node at ``path`` replaced by ``value`` (in place; returns the tree)."""
    if not path:
        return value
    _at(tree, path[:-1])[path[-1]] = value
    return tree


def drop(tree: Any, path: tuple[Any, ...]) -> Any:
    """``tree`` without the node at ``path`` (a dict key or a list item)."""
    if not path:
        return {}
    del _at(tree, path[:-1])[path[-1]]
    return tree


def wrap(tree: Any, path: tuple[Any, ...], depth: int = 1) -> Any:
    """``tree`` with the node at ``path`` nested in ``depth`` lists."""
    return put(tree, path, nested(depth, leaf=_at(tree, path)))


def dup(tree: Any, path: tuple[Any, ...], i: int) -> Any:
    """``tree`` with the items ``i:`` of the list at ``path`` repeated at its end."""
    items = _at(tree, path)
    try:
        copied = json.loads(json.dumps(items[i:]))
    except RecursionError:  # items nested deeper than json goes (an earlier wrap): share them
        copied = list(items[i:])
    return put(tree, path, items + copied)


def nest_items(tree: Any, path: tuple[Any, ...]) -> Any:
    """``tree`` with each item of the list at ``path`` wrapped in a list."""
    return put(tree, path, [[x] for x in _at(tree, path)])


def _paths(tree: Any, limit: int = 3000) -> list[tuple[Any, ...]]:
    """Paths to the nodes of a JSON-like tree (depth-first, bounded)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(tree, ())]
    while stack and len(out) < limit:
        node, path = stack.pop()
        out.append(path)
        if len(path) >= 8:
            continue
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
    return out


# -- games and positions ---------------------------------------------------------------------------

tokens = st.sampled_from(TOKENS)
seeds = st.integers(0, 2**32 - 1)
steps = st.one_of(st.integers(0, MAX_STEPS), st.integers(25, 90))


@st.composite
def game_keys(draw: st.DrawFn) -> tuple[str, int, int]:
    return (draw(tokens), draw(seeds), draw(steps))


@st.composite
def games(draw: st.DrawFn, live: bool = False) -> Expr:
    """A game after random moves (``live``: still running), with its history."""
    token, seed, n = draw(game_keys())
    code = f"game_of({token!r}, {seed}, {n}{', live=True' if live else ''})"
    return Expr(code, lambda: game_of(token, seed, n, live))


@st.composite
def position_texts(draw: st.DrawFn) -> Expr:
    token, seed, n = draw(game_keys())
    text = text_of(token, seed, n)
    return const(f"text_of({token!r}, {seed}, {n})", text)


# -- characters and text mutations ---------------------------------------------------------------

POSITION_CHARS = "RGBOYPrgboyp-/,+ 0123456789xpstTv"
EXOTIC = (
    "٣",  # Arabic-Indic three: int() reads it
    "²",  # superscript two: str.isdigit() is True
    "１",  # full-width one
    "８",
    "Ｒ",  # full-width R
    "ｐ",
    "\u00a0",  # no-break space
    "\u3000",  # ideographic space: str.split() splits on it
    "\u2028",
    "\x1c",
    "\t",
    "\n",
    "\r",
    "\x0b",
    "\x00",
    "_",
    "ß",
    "\u212a",  # Kelvin sign: lower() is 'k'
    "İ",
    "Ⅻ",
    "①",
    "𝟗",
    "\ufeff",
    "\u200b",
    "é",
    "e\u0301",
    "\udcff",
)
FRAGMENTS = (
    "+1",
    "1_0",
    "-0",
    "00",
    "01",
    "-1",
    "0x1",
    "1e3",
    "1.0",
    "nan",
    "None",
    "٣",
    "²",
    "１８",
    "Ｒ0,0",
    " ",
    "  ",
    "/",
    "//",
    ",",
    ",,",
    "+",
    "++",
    "(",
    ")",
    "()",
    "x",
    "swap",
    "keep",
    "R0,0+B1,0",
    "9" * 40,
    "9" * 5000,
)
NUMBERS = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "12",
    "13",
    "17",
    "18",
    "19",
    "35",
    "36",
    "37",
    "99",
    "100",
    "255",
    "256",
    "32767",
    "32768",
    "65535",
    "65536",
    "99999",
    "100000",
    "-1",
    "-0",
    "+1",
    "01",
    "00",
    "007",
    "1_0",
    "٣",
    "²",
    "１",
    "１８",
    "1e1",
    "0x1",
    "1.0",
    "",
    "9" * 50,
    "9" * 5000,
)
RULES_FIELDS = (
    *TOKENS,
    "0",
    "5",
    "2t",
    "3T",
    "4v",
    "1t",
    "1T",
    "3v",
    "22",
    "2TT",
    "2vT",
    "t2",
    "٢",
    "２",
    "",
    "2Tvx",
)
PHASES = ("p", "s", "x", "P", "S", "X", "ps", "-", "", "o", "place")

characters = st.one_of(
    st.sampled_from(POSITION_CHARS), st.sampled_from(EXOTIC), st.characters(codec=None)
)
fragments = st.one_of(characters, st.sampled_from(FRAGMENTS))

Op = Callable[[st.DrawFn, str], str]


def _index(draw: st.DrawFn, size: int) -> int:
    return draw(st.integers(0, max(size - 1, 0)))


def op_replace(draw: st.DrawFn, text: str) -> str:
    if not text:
        return draw(characters)
    i = _index(draw, len(text))
    return text[:i] + draw(characters) + text[i + 1 :]


def op_insert(draw: st.DrawFn, text: str) -> str:
    i = draw(st.integers(0, len(text)))
    return text[:i] + draw(fragments) + text[i:]


def op_delete(draw: st.DrawFn, text: str) -> str:
    i = _index(draw, len(text))
    return text[:i] + text[i + draw(st.integers(1, 8)) :]


def op_swap_fields(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    i, j = _index(draw, len(parts)), _index(draw, len(parts))
    parts[i], parts[j] = parts[j], parts[i]
    return " ".join(parts)


def op_duplicate_field(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    i = _index(draw, len(parts))
    parts.insert(draw(st.integers(0, len(parts))), parts[i])
    return " ".join(parts)


def op_drop_field(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    del parts[_index(draw, len(parts))]
    return " ".join(parts)


def op_separator(draw: st.DrawFn, text: str) -> str:
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return text
    i = spaces[_index(draw, len(spaces))]
    sep = draw(st.sampled_from(["", "  ", "\t", "\n", "\u3000", "\x0b", "\x1c", "\u00a0", "_"]))
    return text[:i] + sep + text[i + 1 :]


def op_other_field(draw: st.DrawFn, text: str) -> str:
    """A field taken from the position of another game (maybe of other rules)."""
    other = draw(position_texts()).make().split(" ")
    parts = text.split(" ")
    k = _index(draw, min(len(parts), len(other)))
    parts[k] = other[k]
    return " ".join(parts)


def _field(draw: st.DrawFn, text: str, k: int, values: st.SearchStrategy[str]) -> str:
    parts = text.split(" ")
    if len(parts) <= k:
        return text
    parts[k] = draw(values)
    return " ".join(parts)


def op_rules(draw: st.DrawFn, text: str) -> str:
    return _field(draw, text, 0, st.sampled_from(RULES_FIELDS))


def op_to_move(draw: st.DrawFn, text: str) -> str:
    return _field(draw, text, 5, st.sampled_from(NUMBERS))


def op_phase(draw: st.DrawFn, text: str) -> str:
    return _field(draw, text, 6, st.sampled_from(PHASES))


def op_bonus(draw: st.DrawFn, text: str) -> str:
    return _field(draw, text, 7, st.sampled_from(NUMBERS))


def op_turn(draw: st.DrawFn, text: str) -> str:
    return _field(draw, text, 9, st.sampled_from(NUMBERS))


def op_score(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    if len(parts) < 3:
        return text
    seats = [s.split(",") for s in parts[2].split("/")]
    seat = seats[_index(draw, len(seats))]
    how = draw(st.sampled_from(["set", "set", "set", "drop", "add", "seat"]))
    if how == "set":
        seat[_index(draw, len(seat))] = draw(st.sampled_from(NUMBERS))
    elif how == "drop" and seat:
        del seat[_index(draw, len(seat))]
    elif how == "add":
        seat.append(draw(st.sampled_from(NUMBERS)))
    else:
        seats.append(list(seat))
    parts[2] = "/".join(",".join(s) for s in seats)
    return " ".join(parts)


def op_rack(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    if len(parts) < 4:
        return text
    racks = parts[3].split("/")
    i = _index(draw, len(racks))
    rack = racks[i]
    how = draw(st.sampled_from(["add", "drop", "lower", "empty", "odd", "seat"]))
    if how == "add":
        tile = draw(st.sampled_from("RGBOYP")) + draw(st.sampled_from("RGBOYP"))
        rack = ("" if rack == "-" else rack) + tile
    elif how == "drop" and len(rack) >= 2:
        j = 2 * _index(draw, len(rack) // 2)
        rack = rack[:j] + rack[j + 2 :] or "-"
    elif how == "lower":
        rack = rack.lower()
    elif how == "empty":
        rack = draw(st.sampled_from(["-", "", "--", "-R"]))
    elif how == "odd":
        rack = rack + draw(characters)
    else:
        racks.append(rack)
    racks[i] = rack
    parts[3] = "/".join(racks)
    return " ".join(parts)


def op_bag(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    if len(parts) < 5 or not parts[4]:
        return text
    bag = parts[4]
    j = _index(draw, len(bag))
    digit = draw(st.one_of(st.sampled_from("0123456789"), st.sampled_from(EXOTIC[:4])))
    parts[4] = bag[:j] + digit + bag[j + 1 :]
    return " ".join(parts)


def op_first(draw: st.DrawFn, text: str) -> str:
    """The first-round field rewritten: seats that owe their first placement again (what makes
    the "stuck" positions of RULES §3.2), repeated symbols, '+' outside the tournament."""
    parts = text.split(" ")
    if len(parts) < 9:
        return text
    first = parts[8]
    how = draw(st.sampled_from(["clear", "clear", "some", "random"]))
    if how == "clear":
        parts[8] = "-" * len(first)
    elif how == "some":
        parts[8] = "".join("-" if draw(st.booleans()) else ch for ch in first)
    else:
        size = draw(st.integers(max(len(first) - 1, 0), len(first) + 1))
        parts[8] = "".join(draw(st.sampled_from("-+RGBOYPx")) for _ in range(size))
    return " ".join(parts)


def _board_cells(draw: st.DrawFn, text: str, wanted: str) -> tuple[list[str], list[int]]:
    parts = text.split(" ")
    if len(parts) < 2:
        return parts, []
    cells = [i for i, ch in enumerate(parts[1]) if (ch == "-") == (wanted == "-")]
    cells = [i for i in cells if parts[1][i] != "/"]
    return parts, cells


def op_crowd(draw: st.DrawFn, text: str) -> str:
    """Empty cells covered with random colours (a crowded board: the symbols' neighbourhoods
    fill up, so first placements run out)."""
    parts, empty = _board_cells(draw, text, "-")
    if not empty:
        return text
    rng = draw(st.randoms(use_true_random=False))
    board = list(parts[1])
    for i in rng.sample(empty, min(len(empty), draw(st.integers(1, 40)))):
        board[i] = rng.choice("RGBOYP")
    parts[1] = "".join(board)
    return " ".join(parts)


def op_clear(draw: st.DrawFn, text: str) -> str:
    """Covered cells (or printed symbols) emptied."""
    parts, covered = _board_cells(draw, text, "R")
    if not covered:
        return text
    rng = draw(st.randoms(use_true_random=False))
    board = list(parts[1])
    for i in rng.sample(covered, min(len(covered), draw(st.integers(1, 10)))):
        board[i] = "-"
    parts[1] = "".join(board)
    return " ".join(parts)


def op_board_rows(draw: st.DrawFn, text: str) -> str:
    parts = text.split(" ")
    if len(parts) < 2:
        return text
    rows = parts[1].split("/")
    i = _index(draw, len(rows))
    how = draw(st.sampled_from(["swap", "drop", "dup", "long", "short"]))
    if how == "swap":
        j = _index(draw, len(rows))
        rows[i], rows[j] = rows[j], rows[i]
    elif how == "drop":
        del rows[i]
    elif how == "dup":
        rows.insert(i, rows[i])
    elif how == "long":
        rows[i] += "-"
    else:
        rows[i] = rows[i][:-1]
    parts[1] = "/".join(rows)
    return " ".join(parts)


CHAR_OPS: tuple[Op, ...] = (op_replace, op_insert, op_delete)
FIELD_OPS: tuple[Op, ...] = (
    op_swap_fields,
    op_duplicate_field,
    op_drop_field,
    op_separator,
    op_other_field,
)
SEMANTIC_OPS: tuple[Op, ...] = (
    op_rules,
    op_to_move,
    op_phase,
    op_bonus,
    op_turn,
    op_score,
    op_rack,
    op_bag,
    op_first,
    op_first,
    op_crowd,
    op_crowd,
    op_clear,
    op_board_rows,
)
ALL_OPS = CHAR_OPS * 3 + FIELD_OPS + SEMANTIC_OPS


@st.composite
def mutated_texts(
    draw: st.DrawFn, ops: Sequence[Op] = ALL_OPS, max_ops: int = 4, base: Expr | None = None
) -> Expr:
    """A valid position text of a random game, mutated 1 to ``max_ops`` times."""
    if base is None:
        base = draw(position_texts())
    text = base.make()
    for _ in range(draw(st.integers(1, max_ops))):
        text = draw(st.sampled_from(ops))(draw, text)
    return text_expr(text)


# a mostly semantic mix, to reach positions that from_text accepts
plausible_texts = mutated_texts(ops=SEMANTIC_OPS * 3 + CHAR_OPS, max_ops=3)


# -- hostile texts -----------------------------------------------------------------------------

UNITS = (
    " ",
    "0",
    "9",
    "(",
    ")",
    ",",
    "+",
    "-",
    "/",
    "R",
    "x",
    "R0,0",
    "R0,0+",
    "+R0,0",
    "(0,0)",
    "2 ",
    "٣",
    "²",
    "１",
    "\t",
    "\n",
    "\x00",
    "-1",
    "--",
    "1_0",
    "+1",
    ", ",
    "R-",
    "RR",
    "\u3000",
)
MOVE_TEMPLATES = (
    "R{}0,0{}x+R0,0",
    "R{}0{},0+B1,0",
    "R0,0{}+{}B1,0",
    "R0,-4{}+B1,-4{}",
    "({}R0,-4+B1,-4{})",
    "R({}0,-4{})+B1,-4",
    "{}swap{}",
    "{}keep{}",
    "R1,-5{}+{}R0,-4",
    "{}R-5,2+B-4,2{}",
)


def _run(unit: str, n: int) -> Expr:
    return const(f"{unit!r} * {n}", unit * n)


def _repeats(unit: str) -> st.SearchStrategy[int]:
    top = MAX_INPUT // max(len(unit), 1)
    return st.one_of(st.integers(0, top), st.sampled_from([top, top // 2, 2000, 4300, 4301]))


@st.composite
def shaped_texts(draw: st.DrawFn) -> Expr:
    """Adversarial shapes: long runs, padded move texts, deep nesting, 5,000-digit numbers,
    long joins and positions with one field blown up, all at most ``MAX_INPUT`` characters."""
    kind = draw(st.sampled_from(["run", "pad", "nest", "number", "join", "blow", "repeat"]))
    if kind == "run":
        unit = draw(st.sampled_from(UNITS))
        return _run(unit, min(draw(_repeats(unit)), MAX_INPUT))
    if kind == "pad":
        template = draw(st.sampled_from(MOVE_TEMPLATES))
        unit = draw(st.sampled_from(UNITS))
        cap = (MAX_INPUT // 2) // max(len(unit), 1)
        a, b = draw(st.integers(0, cap)), draw(st.integers(0, cap))
        value = template.format(unit * a, unit * b)
        head, middle, tail = template.split("{}")
        code = f"{head!r} + {unit!r} * {a} + {middle!r} + {unit!r} * {b} + {tail!r}"
        return const(code, value)
    if kind == "nest":
        core = draw(st.sampled_from(["R0,-4+B1,-4", "0,0", "", "R0,0", "swap", "2"]))
        left, right = draw(st.sampled_from([("(", ")"), ("[", "]"), ("{", "}"), ("((", ")")]))
        n = draw(st.integers(0, (MAX_INPUT - len(core)) // (len(left) + len(right))))
        code = f"{left!r} * {n} + {core!r} + {right!r} * {n}"
        return const(code, left * n + core + right * n)
    if kind == "number":
        digits = draw(st.sampled_from([10, 100, 4300, 4301, 5000, 19_000]))
        digit = draw(st.sampled_from("0179"))
        template = draw(
            st.sampled_from(["R{},0+B1,0", "R0,{}+B1,0", "{}", "-{}", "R0,-4+B1,{}", "{}.5"])
        )
        head, tail = template.split("{}")
        code = f"{head!r} + {digit!r} * {digits} + {tail!r}"
        return const(code, head + digit * digits + tail)
    if kind == "join":
        sep, piece = draw(
            st.sampled_from(
                [
                    ("+", "R0,0"),
                    (",", "0"),
                    (",", "-1"),
                    ("/", "-" * 11),
                    (" ", "2"),
                    (" ", "p"),
                    ("", "R0,-4+B1,-4 "),
                    ("+", ""),
                    ("/", "0,0,0,0,0,0"),
                    ("", "RR"),
                ]
            )
        )
        n = draw(_repeats(sep + piece)) if sep + piece else 0
        n = min(n, MAX_INPUT // max(len(sep + piece), 1))
        return const(f"{sep!r}.join([{piece!r}] * {n})", sep.join([piece] * n))
    if kind == "blow":
        base = draw(position_texts())
        field = draw(st.integers(0, 9))
        unit = draw(st.sampled_from(UNITS))
        n = min(draw(_repeats(unit)), (MAX_INPUT - 400) // max(len(unit), 1))
        value = blow(base.make(), field, unit * n)
        return const(f"blow({base.code}, {field}, {unit!r} * {n})", value)
    unit = draw(st.text(min_size=1, max_size=30))
    n = draw(st.integers(1, MAX_INPUT // len(unit)))
    return const(f"{str_code(unit)} * {n}", unit * n)


random_texts = st.one_of(
    st.text(max_size=300).map(text_expr),
    st.text(alphabet=POSITION_CHARS + "(),", max_size=120).map(text_expr),
)


@st.composite
def move_like_texts(draw: st.DrawFn) -> Expr:
    """Move texts (placements on the board, swap, keep) with a few character edits."""
    move = draw(st.integers(0, genial.ACTION_SIZE - 1))
    text = str(genial.board.moves.MOVES[move])
    for _ in range(draw(st.integers(0, 3))):
        text = draw(st.sampled_from(CHAR_OPS))(draw, text)
    return text_expr(text)


hostile_texts = st.one_of(
    shaped_texts(), random_texts, move_like_texts(), mutated_texts(), st.just(text_expr(""))
)


# -- arbitrary Python objects ------------------------------------------------------------------


def _pairs(
    table: Sequence[tuple[str, Any]], kind: Callable[..., Expr] = const
) -> st.SearchStrategy[Expr]:
    """One of ``(code, value)`` pairs (``kind=Expr``: ``(code, factory)``), drawn by index:
    hypothesis never reprs the values (``repr(10**5000)`` raises), and prints the code."""

    def pick(i: int) -> Expr:
        return kind(*table[i])

    # a name that is no Python syntax, so that hypothesis prints the Expr, not "pick(8)"
    pick.__name__ = pick.__qualname__ = "table entry"
    return st.integers(0, len(table) - 1).map(pick)


BIG_INTS = (
    ("10**12", 10**12),
    ("2**31", 2**31),
    ("2**32", 2**32),
    ("2**40", 2**40),
    ("2**40 + 1", 2**40 + 1),
    ("2**63 - 1", 2**63 - 1),
    ("2**63", 2**63),
    ("2**64", 2**64),
    ("-2**63 - 1", -(2**63) - 1),
    ("10**100", 10**100),
    ("10**4299", 10**4299),
    ("10**4300", 10**4300),
    ("10**5000", 10**5000),
    ("-10**5000", -(10**5000)),
)
SMALL_INTS = (-1, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 18, 36, 127, 128, 255, 256, 1024, 1025)
SMALL_INTS += (15336, 15337, 15338, 32767, 32768, 65535, 65536)

_LEAVES: tuple[tuple[str, Callable[[], Any]], ...] = (
    ("None", lambda: None),
    ("True", lambda: True),
    ("False", lambda: False),
    ("np.True_", lambda: np.True_),
    ("np.False_", lambda: np.False_),
    ("np.int8(-1)", lambda: np.int8(-1)),
    ("np.int16(2)", lambda: np.int16(2)),
    ("np.int64(3)", lambda: np.int64(3)),
    ("np.int64(2**63 - 1)", lambda: np.int64(2**63 - 1)),
    ("np.int64(-2**63)", lambda: np.int64(-(2**63))),
    ("np.uint8(255)", lambda: np.uint8(255)),
    ("np.uint64(2**64 - 1)", lambda: np.uint64(2**64 - 1)),
    ("np.float64('nan')", lambda: np.float64("nan")),
    ("np.float32(0.5)", lambda: np.float32(0.5)),
    ("np.float16('inf')", lambda: np.float16("inf")),
    ("np.longdouble('1e4000')", lambda: np.longdouble("1e4000")),
    ("np.complex128(1j)", lambda: np.complex128(1j)),
    ("np.str_('2')", lambda: np.str_("2")),
    ("np.bytes_(b'2')", lambda: np.bytes_(b"2")),
    ("np.datetime64('2020-01-01')", lambda: np.datetime64("2020-01-01")),
    ("float('nan')", lambda: math.nan),
    ("float('inf')", lambda: math.inf),
    ("float('-inf')", lambda: -math.inf),
    ("-0.0", lambda: -0.0),
    ("0.1", lambda: 0.1),
    ("0.5", lambda: 0.5),
    ("1.0", lambda: 1.0),
    ("2.0", lambda: 2.0),
    ("1e308", lambda: 1e308),
    ("5e-324", lambda: 5e-324),
    ("1j", lambda: 1j),
    ("Fraction(1, 3)", lambda: Fraction(1, 3)),
    ("Fraction(2)", lambda: Fraction(2)),
    ("Decimal('0.1')", lambda: Decimal("0.1")),
    ("Decimal('NaN')", lambda: Decimal("NaN")),
    ("Decimal('sNaN')", lambda: Decimal("sNaN")),
    ("b'2'", lambda: b"2"),
    ("b'random'", lambda: b"random"),
    ("bytearray(b'R0,-4+B1,-4')", lambda: bytearray(b"R0,-4+B1,-4")),
    ("memoryview(b'2')", lambda: memoryview(b"2")),
    ("''", lambda: ""),
    ("'2'", lambda: "2"),
    ("'4t'", lambda: "4t"),
    ("'random'", lambda: "random"),
    ("'greedy'", lambda: "greedy"),
    ("'epsilon-greedy:0.2'", lambda: "epsilon-greedy:0.2"),
    ("'epsilon-greedy:1e999'", lambda: "epsilon-greedy:1e999"),
    ("'epsilon-greedy:nan'", lambda: "epsilon-greedy:nan"),
    ("'epsilon-greedy:٠.٥'", lambda: "epsilon-greedy:٠.٥"),
    ("'R0,-4+B1,-4'", lambda: "R0,-4+B1,-4"),
    ("'R1,-5+R0,-4'", lambda: "R1,-5+R0,-4"),
    ("'swap'", lambda: "swap"),
    ("'keep'", lambda: "keep"),
    ("'board'", lambda: "board"),
    ("'travel'", lambda: "travel"),
    ("'standard'", lambda: "standard"),
    ("'x' * 20000", lambda: "x" * 20000),
    ("StrLike('2')", lambda: StrLike("2")),
    ("IntLike(2)", lambda: IntLike(2)),
    ("Index()", Index),
    ("Opaque()", Opaque),
    ("BigRepr()", BigRepr),
    ("object()", object),
    ("int", lambda: int),
    ("str", lambda: str),
    ("len", lambda: len),
    ("Ellipsis", lambda: Ellipsis),
    ("NotImplemented", lambda: NotImplemented),
    ("slice(0, 2)", lambda: slice(0, 2)),
    ("range(3)", lambda: range(3)),
    ("range(5000)", lambda: range(5000)),
    ("iter([1, 2])", lambda: iter([1, 2])),
    ("(i for i in range(3))", lambda: (i for i in range(3))),
    ("[0] * 5000", lambda: [0] * 5000),
    ("['R0,-4+B1,-4'] * 5000", lambda: ["R0,-4+B1,-4"] * 5000),
    ("[[0, 0], [1, 0]]", lambda: [[0, 0], [1, 0]]),
    ("((0, -4), (1, -4))", lambda: ((0, -4), (1, -4))),
    ("{(0, 0): 0}", lambda: {(0, 0): 0}),
    ("{1, 2}", lambda: {1, 2}),
    ("frozenset({0})", lambda: frozenset({0})),
    ("np.array([])", lambda: np.array([])),
    ("np.array(2)", lambda: np.array(2)),
    ("np.array([1, 2])", lambda: np.array([1, 2])),
    ("np.array([True])", lambda: np.array([True])),
    ("np.array([1.5])", lambda: np.array([1.5])),
    ("np.array([[0, 0], [1, 0]])", lambda: np.array([[0, 0], [1, 0]])),
    ("np.array(['R0,-4+B1,-4'])", lambda: np.array(["R0,-4+B1,-4"])),
    ("np.array([None], dtype=object)", lambda: np.array([None], dtype=object)),
    ("np.zeros(5000)", lambda: np.zeros(5000)),
    ("np.arange(5000)", lambda: np.arange(5000)),
    ("np.random.SeedSequence(1)", lambda: np.random.SeedSequence(1)),
    ("np.random.default_rng(1)", lambda: np.random.default_rng(1)),
    ("np.random.PCG64(1)", lambda: np.random.PCG64(1)),
    ("np.random.MT19937(1)", lambda: np.random.MT19937(1)),
    ("np.random.RandomState(1)", lambda: np.random.RandomState(1)),
    ("Rules(2)", lambda: Rules(2)),
    ("Rules(4, teams=True)", lambda: Rules(4, teams=True)),
    ("Rules(1, tiles='travel')", lambda: Rules(1, tiles="travel")),
    ("Move.swap()", Move.swap),
    ("Move.parse('R0,-4+B1,-4')", lambda: Move.parse("R0,-4+B1,-4")),
    ("Move.parse('R1,-5+R0,-4')", lambda: Move.parse("R1,-5+R0,-4")),
    ("Game('2', seed=1)", lambda: Game("2", seed=1)),
    ("Position.empty(Rules(2))", lambda: Position.empty(Rules(2))),
    # deeper nesting crashes numpy's SeedSequence (a C stack overflow, not an exception): it is
    # tested in a child process (test_fuzz.test_deep_nesting_does_not_crash)
    ("nested(5000)", lambda: nested(5000)),
    ("nested(20000, leaf=1)", lambda: nested(20_000, leaf=1)),
    ("nested(1000, 'tuple')", lambda: nested(1000, "tuple")),
    ("nested(5000, 'dict')", lambda: nested(5000, "dict")),
)

leaf_objects = st.one_of(
    _pairs(_LEAVES, Expr),
    st.sampled_from(SMALL_INTS).map(lambda i: const(repr(i), i)),
    _pairs(BIG_INTS),
    st.integers().map(lambda i: const(repr(i), i)),
    st.floats().map(lambda x: const(float_code(x), x)),
    st.text(max_size=12).map(text_expr),
)
_KEYS = st.sampled_from(["0", "1", "format", "moves", "x"]).map(lambda k: const(repr(k), k)) | (
    st.sampled_from(SMALL_INTS[:6]).map(lambda i: const(repr(i), i))
)


def _list_expr(items: list[Expr], kind: str = "list") -> Expr:
    inner = ", ".join(e.code for e in items)
    if kind == "tuple":
        code = f"({inner}{',' if len(items) == 1 else ''})"
        return Expr(code, lambda: tuple(e.make() for e in items))
    return Expr(f"[{inner}]", lambda: [e.make() for e in items])


def _dict_expr(pairs: list[tuple[Expr, Expr]]) -> Expr:
    code = "{" + ", ".join(f"{k.code}: {v.code}" for k, v in pairs) + "}"
    return Expr(code, lambda: {k.make(): v.make() for k, v in pairs})


def _containers(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.lists(children, max_size=4).map(_list_expr),
        st.lists(children, max_size=4).map(lambda items: _list_expr(items, "tuple")),
        st.lists(st.tuples(_KEYS, children), max_size=3).map(_dict_expr),
    )


objects = st.recursive(leaf_objects, _containers, max_leaves=6)
"""Arbitrary Python objects, as expressions."""


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def counts(max_valid: int) -> st.SearchStrategy[Expr]:
    """Objects for a number of games: valid counts up to ``max_valid`` only (bigger valid
    counts run for real; the memory test in a child process has those)."""

    def safe(e: Expr) -> bool:
        value = e.make()
        return not (_is_int(value) and max_valid < int(value) <= 2**40)

    small = st.integers(0, max_valid).map(lambda i: const(repr(i), i))
    return st.one_of(small, objects.filter(safe))


# -- JSON-like garbage and records ---------------------------------------------------------------

_JSON_LEAVES: tuple[tuple[str, Any], ...] = (
    ("None", None),
    ("True", True),
    ("False", False),
    ("0", 0),
    ("-1", -1),
    ("1", 1),
    ("2", 2),
    ("2**63", 2**63),
    ("2**64", 2**64),
    ("10**5000", 10**5000),
    ("-10**5000", -(10**5000)),
    ("1.0", 1.0),
    ("0.5", 0.5),
    ("float('nan')", math.nan),
    ("float('inf')", math.inf),
    ("-0.0", -0.0),
    ("1e308", 1e308),
    ("''", ""),
    ("'RR'", "RR"),
    ("'rr'", "rr"),
    ("'R'", "R"),
    ("'RRR'", "RRR"),
    ("'R٣'", "R٣"),
    ("'swap'", "swap"),
    ("'keep'", "keep"),
    ("'R0,-4+B1,-4'", "R0,-4+B1,-4"),
    ("'genial-record'", "genial-record"),
    ("'x' * 20000", "x" * 20000),
    ("'RR' * 5000", "RR" * 5000),
    ("'\\x00'", "\x00"),
)

json_leaves = st.one_of(
    _pairs(_JSON_LEAVES),
    st.integers().map(lambda i: const(repr(i), i)),
    st.floats().map(lambda x: const(float_code(x), x)),
    st.text(max_size=10).map(text_expr),
)
_JSON_KEYS = st.sampled_from(["format", "version", "start", "moves", "move", "draws", "", "x"])


def _json_containers(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    keys = _JSON_KEYS.map(lambda k: const(repr(k), k))
    return st.one_of(
        st.lists(children, max_size=4).map(_list_expr),
        st.lists(st.tuples(keys, children), max_size=3).map(_dict_expr),
    )


@st.composite
def _deep_json(draw: st.DrawFn) -> Expr:
    depth = draw(st.sampled_from([2, 100, 999, 1000, 1001, 5000, 100_000]))
    kind = draw(st.sampled_from(["list", "dict"]))
    leaf = draw(st.sampled_from([None, "RR", 1]))
    return Expr(f"nested({depth}, {kind!r}, {leaf!r})", lambda: nested(depth, kind, leaf))


@st.composite
def _long_json(draw: st.DrawFn) -> Expr:
    n = draw(st.sampled_from([120, 121, 255, 256, 1000, 5000]))
    item, code = draw(
        st.sampled_from(
            [
                ("RR", "'RR'"),
                (["RR"], "['RR']"),
                ({"move": "swap", "draws": []}, "{'move': 'swap', 'draws': []}"),
                (0, "0"),
            ]
        )
    )
    return Expr(f"[{code}] * {n}", lambda: json.loads(json.dumps([item] * n)))


json_garbage = st.one_of(
    st.recursive(json_leaves, _json_containers, max_leaves=8), _deep_json(), _long_json()
)


@st.composite
def mutated_records(draw: st.DrawFn) -> Expr:
    """``to_record()`` of a random game with 1 to 3 edits: values replaced by garbage (lists,
    dicts, None, bools, huge ints, floats, long strings, deep nesting), keys removed or added,
    strings mutated, items duplicated, nodes wrapped in lists."""
    token, seed, n = draw(game_keys())
    code = f"record_of({token!r}, {seed}, {n})"
    edits: list[Callable[[Any], Any]] = []
    tree: Any = record_of(token, seed, n)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(tree)
        path = paths[_index(draw, len(paths))]
        node = _at(tree, path)
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
            garbage = draw(json_garbage)
            target = path if kind == "replace" else (*path, draw(_JSON_KEYS))
            code = f"put({code}, {target!r}, {garbage.code})"
            edit = lambda t, p=target, g=garbage: put(t, p, g.make())  # noqa: E731
        elif kind == "version":
            value = draw(st.sampled_from(["True", "1.0", "'1'", "2", "0", "None", "10**5000"]))
            target = (*path, "version")
            code = f"put({code}, {target!r}, {value})"
            version = eval(value)
            edit = lambda t, p=target, v=version: put(t, p, v)  # noqa: E731
        elif kind == "drop":
            code = f"drop({code}, {path!r})"
            edit = lambda t, p=path: drop(t, p)  # noqa: E731
        elif kind == "wrap":
            depth = draw(st.sampled_from([1, 2, 1000, 100_000]))
            code = f"wrap({code}, {path!r}, {depth})"
            edit = lambda t, p=path, d=depth: wrap(t, p, d)  # noqa: E731
        elif kind == "text":
            ops = ALL_OPS if path == ("start",) else CHAR_OPS
            new = draw(mutated_texts(ops=ops, max_ops=2, base=const("", node))).make()
            code = f"put({code}, {path!r}, {str_code(new)})"
            edit = lambda t, p=path, s=new: put(t, p, s)  # noqa: E731
        elif kind == "dup":
            i = _index(draw, len(node))
            code = f"dup({code}, {path!r}, {i})"
            edit = lambda t, p=path, i=i: dup(t, p, i)  # noqa: E731
        else:  # draws (or moves) as nested lists
            code = f"nest_items({code}, {path!r})"
            edit = lambda t, p=path: nest_items(t, p)  # noqa: E731
        tree = edit(tree)
        edits.append(edit)

    def make() -> Any:
        value: Any = record_of(token, seed, n)
        for edit in edits:
            value = edit(value)
        return value

    return Expr(code, make)


valid_rules = st.sampled_from(TOKENS).map(lambda t: const(f"Rules.parse({t!r})", Rules.parse(t)))

# -- per-field garbage for Position objects -------------------------------------------------------

CELLS = (
    ("(0, 0)", (0, 0)),
    ("(1, 0)", (1, 0)),
    ("(0, -5)", (0, -5)),
    ("(7, 0)", (7, 0)),
    ("(10, 10)", (10, 10)),
    ("(0,)", (0,)),
    ("(0, 0, 0)", (0, 0, 0)),
    ("(0.5, 0)", (0.5, 0)),
    ("(np.int64(0), np.int64(1))", (np.int64(0), np.int64(1))),
    ("(10**5000, 0)", (10**5000, 0)),
    ("(True, False)", (True, False)),
    ("'ab'", "ab"),
    ("0", 0),
    ("None", None),
)
COLOUR_VALUES = (
    ("0", 0),
    ("5", 5),
    ("-1", -1),
    ("6", 6),
    ("1.5", 1.5),
    ("True", True),
    ("None", None),
    ("'R'", "R"),
    ("np.int8(2)", np.int8(2)),
    ("np.uint8(255)", np.uint8(255)),
    ("10**30", 10**30),
    ("float('nan')", math.nan),
)
TILE_VALUES = (
    ("(0, 0)", (0, 0)),
    ("(0, 5)", (0, 5)),
    ("(7, 8)", (7, 8)),
    ("(-1, 0)", (-1, 0)),
    ("(0,)", (0,)),
    ("(0, 0, 0)", (0, 0, 0)),
    ("(0.5, 1)", (0.5, 1)),
    ("('a', 'b')", ("a", "b")),
    ("'RR'", "RR"),
    ("(True, False)", (True, False)),
    ("(np.int64(1), 2)", (np.int64(1), 2)),
    ("(10**30, 0)", (10**30, 0)),
)
COUNT_VALUES = (
    ("0", 0),
    ("1", 1),
    ("2", 2),
    ("-1", -1),
    ("255", 255),
    ("256", 256),
    ("10**30", 10**30),
    ("1.5", 1.5),
    ("None", None),
    ("True", True),
    ("np.uint8(200)", np.uint8(200)),
    ("float('nan')", math.nan),
    ("'1'", "1"),
)
FIRST_VALUES = (
    ("None", None),
    ("-1", -1),
    ("0", 0),
    ("5", 5),
    ("6", 6),
    ("254", 254),
    ("255", 255),
    ("256", 256),
    ("10**30", 10**30),
    ("1.5", 1.5),
    ("'R'", "R"),
)


def _seq(draw: st.DrawFn, base: Sequence[Any], values: st.SearchStrategy[Expr], kind: str) -> Expr:
    """``base`` as a tuple (or list) with some items replaced, dropped or added."""
    items = [const(repr(v), v) for v in base]
    for _ in range(draw(st.integers(1, 2))):
        how = draw(st.sampled_from(["set", "set", "drop", "add"]))
        if how == "set" and items:
            items[_index(draw, len(items))] = draw(values)
        elif how == "drop" and items:
            del items[_index(draw, len(items))]
        else:
            items.insert(draw(st.integers(0, len(items))), draw(values))
    return _list_expr(items, kind)


@st.composite
def field_values(draw: st.DrawFn, field: str, base: Position, base_code: str) -> Expr:
    """Hostile values for one field of a ``Position``."""
    if draw(st.integers(0, 3)) == 0:
        return draw(objects)
    if field == "rules":
        return draw(valid_rules)
    if field == "board":
        pairs = draw(st.lists(st.tuples(_pairs(CELLS), _pairs(COLOUR_VALUES)), max_size=4))
        board = dict(base.board)
        keep = draw(st.booleans())

        def make() -> Any:
            out: dict[Any, Any] = dict(board) if keep else {}
            for k, v in pairs:
                with contextlib.suppress(TypeError):  # an unhashable key is left out
                    out[k.make()] = v.make()
            return out

        items = ([f"**{base_code}.board"] if keep else []) + [f"{k}: {v}" for k, v in pairs]
        code = "{" + ", ".join(items) + "}"
        return Expr(code, make)
    if field == "scores":
        seats = [const(repr(s), s) for s in base.scores]
        i = _index(draw, len(seats))
        seats[i] = _seq(draw, base.scores[i], _pairs(COUNT_VALUES), "tuple")
        if draw(st.booleans()):
            seats.append(seats[0])
        return _list_expr(seats, "tuple")
    if field == "racks":
        racks = [const(repr(r), r) for r in base.racks]
        i = _index(draw, len(racks))
        racks[i] = _seq(draw, base.racks[i], _pairs(TILE_VALUES), "tuple")
        return _list_expr(racks, "tuple")
    if field == "bag":
        return _seq(draw, base.bag, _pairs(COUNT_VALUES), "tuple")
    if field == "first":
        return _seq(draw, base.first, _pairs(FIRST_VALUES), "tuple")
    if field == "phase":
        return draw(_pairs(tuple((repr(p), p) for p in ("place", "swap", "over", "p", "x", ""))))
    return draw(_pairs(COUNT_VALUES))  # to_move, bonus, turn


POSITION_FIELDS = (
    "rules",
    "board",
    "scores",
    "racks",
    "bag",
    "to_move",
    "phase",
    "bonus",
    "first",
    "turn",
)


@st.composite
def hostile_positions(draw: st.DrawFn, field: str | None = None) -> tuple[Expr, dict[str, Expr]]:
    """A valid ``Position`` and a hostile value for ``field`` (``None``: for 1 to 3 fields)."""
    token, seed, n = draw(game_keys())
    base = position_of(token, seed, n)
    fields = (
        [field]
        if field is not None
        else draw(st.lists(st.sampled_from(POSITION_FIELDS), min_size=1, max_size=3, unique=True))
    )
    code = f"position_of({token!r}, {seed}, {n})"
    changes = {f: draw(field_values(f, base, code)) for f in fields}
    return const(code, base), changes


# -- valid values of arguments ---------------------------------------------------------------------


@lru_cache(maxsize=16)
def first_moves(token: str) -> tuple[str, ...]:
    return tuple(str(m) for m in first_placements(token))


valid_players = st.one_of(
    st.sampled_from(TOKENS).map(lambda t: const(repr(t), t)),
    st.sampled_from([1, 2, 3, 4]).map(lambda i: const(repr(i), i)),
    valid_rules,
)
valid_policies = st.sampled_from(
    ["'random'", "'greedy'", "'epsilon-greedy'", "'epsilon-greedy:0.3'", "('random', 'greedy')"]
).map(lambda code: const(code, eval(code)))
valid_seeds = st.one_of(
    st.integers(0, 2**64).map(lambda i: const(repr(i), i)),
    st.sampled_from(
        ["None", "[1, 2]", "np.random.SeedSequence(3)", "np.random.default_rng(4)"]
    ).map(lambda code: Expr(code, lambda: eval(code))),
)
valid_epsilons = st.sampled_from([0, 0.0, 0.1, 0.5, 1, 1.0]).map(lambda x: const(repr(x), x))


@st.composite
def valid_openings(draw: st.DrawFn) -> Expr:
    token = draw(tokens)
    moves = first_moves(token)
    first = moves[_index(draw, len(moves))]
    return const(f"[{first!r}]", [first])


@st.composite
def valid_options(draw: st.DrawFn) -> Expr:
    """``simulate``'s ``options``: the board game's (``epsilon``, ``openings``), any of them."""
    pairs = []
    for name, values in (("epsilon", valid_epsilons), ("openings", valid_openings())):
        if draw(st.booleans()):
            pairs.append((const(repr(name), name), draw(values)))
    return _dict_expr(pairs)


@st.composite
def valid_starts(draw: st.DrawFn) -> Expr:
    token, seed, n = draw(game_keys())
    if draw(st.booleans()):
        code = f"game_of({token!r}, {seed}, {n}, live=True)"
        return Expr(code, lambda: game_of(token, seed, n, True))
    text = game_of(token, seed, n, live=True).to_text()
    return const(str_code(text), text)


@st.composite
def valid_replies(draw: st.DrawFn) -> Expr:
    moves = first_moves("2")
    move = moves[_index(draw, len(moves))]
    return const(repr(move), move)


def argument(valid: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr | None]:
    """An argument: left out (``None``, 2 in 5), valid (2 in 5) or any object (1 in 5)."""
    return st.one_of(st.none(), st.none(), valid, valid, objects)


class Call:
    """A call of ``function`` with keyword arguments, each an ``Expr``; ``repr`` is the call."""

    def __init__(self, name: str, kwargs: dict[str, Expr]) -> None:
        self.name = name
        self.kwargs = kwargs

    def make(self) -> dict[str, Any]:
        return {k: v.make() for k, v in self.kwargs.items()}

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v.code}' for k, v in self.kwargs.items())})"


def _booleans() -> st.SearchStrategy[Expr]:
    return st.booleans().map(lambda b: const(repr(b), b))


def _codes(*codes: str) -> st.SearchStrategy[Expr]:
    return st.sampled_from(codes).map(lambda c: const(c, eval(c)))


SIMULATE_ARGUMENTS: dict[str, st.SearchStrategy[Expr]] = {
    "n_games": st.integers(0, 3).map(lambda i: const(repr(i), i)),
    "rules": valid_players,
    "policy": valid_policies,
    "seed": valid_seeds,
    "workers": _codes("1", "-1", "2", "1024"),
    "start": valid_starts(),
    "options": valid_options(),
    "records": _booleans(),
    "game": _codes("'board'", "'genial'"),
}
"""Valid values of ``simulate``'s arguments (``n_games`` small)."""
ANALYSE_ARGUMENTS: dict[str, st.SearchStrategy[Expr]] = {
    "players": valid_players,
    "games_per_opening": _codes("1"),
    "policy": valid_policies,
    "seed": valid_seeds,
    "workers": _codes("1", "-1"),
    "reply_to": valid_replies(),
    "epsilon": valid_epsilons,
    "teams": _booleans(),
    "tournament": _booleans(),
    "tiles": _codes("'standard'", "'travel'"),
    "rules": valid_players,
}
"""Valid values of ``openings.analyse``'s arguments (one game per class)."""
COUNT_ARGUMENTS = {"n_games": 3, "games_per_opening": 1}
"""The counts and their largest valid value in-process (a bigger batch runs for real)."""


@st.composite
def calls(
    draw: st.DrawFn,
    name: str,
    table: dict[str, st.SearchStrategy[Expr]],
    hostile: str | None,
    keep: Sequence[str] = (),
) -> Call:
    """Arguments of ``name``: ``hostile`` an arbitrary object (a count: any object but a valid
    count above the in-process bound), the others left out or valid (``keep``: never left
    out); ``hostile=None``: every argument left out, valid or any object."""
    kwargs: dict[str, Expr] = {}
    for arg, valid in table.items():
        if arg in COUNT_ARGUMENTS:
            wild: st.SearchStrategy[Expr] = counts(COUNT_ARGUMENTS[arg])
        else:
            wild = objects
        if arg == hostile:
            value: Expr | None = draw(wild)
        elif hostile is None:
            value = draw(st.one_of(st.none(), st.none(), valid, valid, wild))
        else:
            value = draw(st.one_of(st.none(), valid))
        if value is None and arg in keep:
            value = draw(valid)
        if value is not None:
            kwargs[arg] = value
    return Call(name, kwargs)
