"""Hostile input (issue "no hang, no wrong exception type, no echoing messages"): a bounded fuzz
suite for the parsers, positions, records and arguments of the public API.

For every entry point and every input (random text, adversarial shapes up to 20 KB, mutated
position texts and records of games of every rules, arbitrary Python objects as arguments):

- **time**: each call returns or raises within ``LIMIT`` seconds of CPU time
  (``time.process_time``, which a busy machine does not inflate as it does the wall clock; a
  slow call is measured twice more and the fastest run counts);
- **exception type**: anything raised is a ``genial.GenialError`` (a ``ValueError``), never a
  ``TypeError``, ``KeyError``, ``OverflowError``, ``RecursionError``, numpy error ...;
- **message length**: ``len(str(exc)) <= MAX_MESSAGE`` whatever the size of the input;
- **no state change**: a rejected call on a live game leaves ``to_text()`` and ``to_record()``
  as they were (RULES: the README's "every wrong input ... leaves the game exactly as it was");
- **accepted positions play**: a position that ``Game.from_text`` (or ``from_position``,
  ``from_record``) accepts plays to its end with ``choose("random")`` (never "no legal move"
  while the game runs; RULES §3.2, §3.6), its text round-tripping after every move, and the
  kernel's batch games from it are never truncated;
- **memory**: ``simulate(10**9)`` and the like raise at once, without allocating (checked in a
  child process with an address-space limit, so that a regression cannot exhaust the machine);
- **no crash**: arguments nested 100,000 deep raise a GenialError (in child processes: numpy's
  ``SeedSequence`` overflows the C stack on them; in-process strategies nest at most 20,000).

Examples are derandomised in CI (the "ci" profile of ``conftest.py``); ``GENIAL_FUZZ_EXAMPLES``
(default 200) scales every test's example count for long campaigns. A failing example prints
as expressions over ``tests.fuzz_strategies`` (``from tests.fuzz_strategies import *``).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import genial
from genial import Game, GenialError, Move, Position, Rules, simulate
from genial.board.notation import load
from genial.board.openings import analyse

from . import fuzz_strategies as fs
from .depth import sized

EXAMPLES = sized("GENIAL_FUZZ_EXAMPLES", full=200, quick=50)
LIMIT = 0.5
"""CPU seconds a call may take: a bound that catches a hang or a super-linear parser (the
slowest checks take about 5 ms quiet), never one a loaded machine can miss (a shared CI core
once took 51 ms over a refused ``analyse``, the fastest of three runs)."""
SLOW_LIMIT = 10.0
"""CPU seconds a successful ``analyse`` (a real, small analysis) may take."""
MAX_MESSAGE = 300
MAX_MOVES = 1000
"""Moves after which a game that has not ended is a failure (a game has fewer than 400)."""


def fuzz(share: float = 1.0) -> settings:
    return settings(
        max_examples=max(1, int(EXAMPLES * share)),
        deadline=None,
        # no "explain" phase: it replays each failure many times, slowly on big inputs
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.large_base_example,
        ],
    )


# -- checking one call -------------------------------------------------------------------------


def _safe_str(value: object, limit: int = 160) -> str:
    try:
        text = str(value)
    except Exception as exc:  # an unprintable value is described, not printed
        text = f"<str() raised {type(exc).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _fail(message: str, error: BaseException | None = None) -> None:
    """Raise an AssertionError; with ``error``, raised while handling it, so that hypothesis
    tells failures apart by where the library raised ``error``."""
    if error is None:
        raise AssertionError(message)
    try:
        raise error
    except BaseException:
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


def _values(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(i.make() if isinstance(i, (fs.Expr, fs.Call)) else i for i in inputs)


def attempt(
    what: str,
    call: Callable[..., Any],
    *inputs: Any,
    first: tuple[Any, ...] | None = None,
    again: Callable[..., Any] | None = None,
    limit: float = LIMIT,
    limit_ok: float | None = None,
) -> tuple[Any, BaseException | None]:
    """Run ``call(*values)``, the values made from ``inputs`` (``Expr``s are made afresh,
    before the clock starts; ``first``: the values of the first run): its time, and the type
    and message of what it raises, are checked. Returns ``(value, None)`` or ``(None, error)``.
    A slow call is run twice more on fresh values (through ``again`` for a call that changed
    something) and the fastest run counts."""
    args = _values(inputs) if first is None else first
    value, error, elapsed = _timed(lambda: call(*args))
    bound = limit if error is not None or limit_ok is None else limit_ok
    for _ in range(2):
        if elapsed <= bound:
            break
        fresh = _values(inputs)
        elapsed = min(elapsed, _timed(lambda fresh=fresh: (again or call)(*fresh))[2])
    if elapsed > bound:
        _fail(f"{what}: took {elapsed * 1000:.0f} ms (bound {bound * 1000:.0f} ms)")
    if error is not None:
        check_error(what, error)
    return value, error


def snapshot(game: Game) -> tuple[str, str]:
    return game.to_text(), json.dumps(game.to_record(), sort_keys=True)


def play_to_the_end(game: Game, origin: str) -> None:
    """Accepted-positions property: ``choose("random")`` plays the game to its end, and the
    text of every position reached reads back to itself (RULES §3.2, §3.6)."""
    for _ in range(MAX_MOVES):
        text = game.to_text()
        try:
            again = Game.from_text(text)
        except GenialError as exc:
            _fail(f"round trip: from_text(to_text()) raised {_safe_str(exc)}; text: {text}", exc)
        if again.to_text() != text:
            _fail(f"round trip: {text} reads back as {again.to_text()}")
        if game.is_over:
            return
        if not len(game.legal_actions()):
            _fail(f"stuck: no legal move, not over ({origin}); position: {text}")
        try:
            move = game.choose("random")
        except GenialError as exc:
            _fail(f"stuck: choose raised {_safe_str(exc)} ({origin}); position: {text}", exc)
        game.play(move)
    _fail(f"no end after {MAX_MOVES} moves ({origin})")


def batch_from(game: Game, origin: str) -> None:
    """The kernel's batch games from an accepted running position end normally."""
    if game.is_over:
        return
    runs, _ = attempt(
        "simulate(start=accepted)", lambda: simulate(3, game.rules, start=game, seed=0)
    )
    if runs is not None and runs.truncated.any():
        _fail(f"stuck: a batch game from {origin} stopped with no legal move: {game.to_text()}")


def accepted(game: Game, origin: str) -> None:
    """Everything an accepted position must do: play to the end, in Game and in batches."""
    batch_from(game, origin)
    play_to_the_end(game.copy(), origin)


# -- texts -------------------------------------------------------------------------------------


def _record_with(start: str | None = None, move: str | None = None) -> dict[str, Any]:
    record = fs.record_of("2", 1, 0)
    if start is not None:
        record["start"] = start
    if move is not None:
        record["moves"] = [{"move": move, "draws": []}]
    return record


TEXT_ENTRY_POINTS: dict[str, Callable[[Game, str], Any]] = {
    "Move.parse": lambda g, t: Move.parse(t),
    "Position.parse": lambda g, t: Position.parse(t),
    "Game.from_text": lambda g, t: Game.from_text(t),
    "Rules.parse": lambda g, t: Rules.parse(t),
    "Rules.of": lambda g, t: Rules.of(t),
    "Game(text)": lambda g, t: Game(t, seed=0),
    "Game(rules=text)": lambda g, t: Game(rules=t, seed=0),
    "Game(tiles=text)": lambda g, t: Game(2, tiles=t),
    "Move.from_action(0, text)": lambda g, t: Move.from_action(0, t),
    "Game.from_record(start=text)": lambda g, t: Game.from_record(_record_with(start=t)),
    "Game.from_record(move=text)": lambda g, t: Game.from_record(_record_with(move=t)),
    "genial.make(text)": lambda g, t: genial.make(t),
    "simulate(policy=text)": lambda g, t: simulate(1, policy=t, seed=0),
    "simulate(start=text)": lambda g, t: simulate(1, g.rules, start=t, seed=0),
    "simulate(options={'openings': text})": lambda g, t: simulate(
        1, options={"openings": [t]}, seed=0
    ),
    "simulate(game=text)": lambda g, t: simulate(1, game=t),
    "analyse(reply_to=text)": lambda g, t: analyse(2, games_per_opening=1, reply_to=t, workers=1),
    "game.choose(text)": lambda g, t: g.choose(t),
    "game.choose('epsilon-greedy:' + text)": lambda g, t: g.choose("epsilon-greedy:" + t),
    "game.gains(text)": lambda g, t: g.gains(t),
    "game.rack(text)": lambda g, t: g.rack(t),  # type: ignore[arg-type]
    "game.play(text), game.is_legal(text)": lambda g, t: None,  # check_moves_on
}


def check_text(game: Game, entry: str, text: fs.Expr) -> None:
    """One text entry point on ``text``; those of ``game`` leave it unchanged."""
    if entry.startswith("game.play"):
        check_moves_on(game, text)
        return
    call = TEXT_ENTRY_POINTS[entry]
    before = snapshot(game)
    slow = SLOW_LIMIT if entry.startswith("analyse") else None  # a valid reply is analysed
    attempt(entry, lambda t: call(game, t), text, limit_ok=slow)
    if snapshot(game) != before:
        _fail(f"{entry} changed the game")


def check_moves_on(game: Game, move: fs.Expr) -> None:
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
    _, error = attempt("game.play", game.play, move, again=lambda m: copy.copy().play(m))
    if error is not None and snapshot(game) != before:
        _fail(f"game.play raised {type(error).__name__} and changed the game", error)
    if error is None and not legal:
        _fail("game.play played a move is_legal called illegal")


@pytest.mark.parametrize("entry", list(TEXT_ENTRY_POINTS))
@fuzz(0.25)
@given(game=fs.games(live=True), text=fs.hostile_texts)
def test_hostile_texts(entry: str, game: fs.Expr, text: fs.Expr) -> None:
    """Random texts and adversarial shapes (long runs, padded moves, nesting, 5,000-digit
    numbers, blown-up fields) through each text entry point."""
    check_text(game.make(), entry, text)


ADVERSARIAL = [
    fs.const(
        "'R' + ' ' * 2000 + '0,0' + ' ' * 2000 + 'x+R0,0'",
        "R" + " " * 2000 + "0,0" + " " * 2000 + "x+R0,0",
    ),
    fs.const("' ' * 20000", " " * 20000),
    fs.const("'9' * 5000", "9" * 5000),
    fs.const("'R' + '9' * 5000 + ',0+B1,0'", "R" + "9" * 5000 + ",0+B1,0"),
    fs.const("'(' * 10000 + ')' * 10000", "(" * 10000 + ")" * 10000),
    fs.const("',' * 20000", "," * 20000),
    fs.const("'+' * 20000", "+" * 20000),
    fs.const("'+'.join(['R0,0'] * 4000)", "+".join(["R0,0"] * 4000)),
    fs.const("'/'.join(['-' * 11] * 1600)", "/".join(["-" * 11] * 1600)),
    fs.const("' '.join(['2'] * 10000)", " ".join(["2"] * 10000)),
    fs.const("'٣' * 20000", "٣" * 20000),
    fs.const("'R٣,٣+B٤,٣'", "R٣,٣+B٤,٣"),
    fs.const("'R0,-4+B1,-4' + '\\x00'", "R0,-4+B1,-4\x00"),
]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=repr)
@pytest.mark.parametrize("entry", list(TEXT_ENTRY_POINTS))
def test_adversarial_texts(entry: str, text: fs.Expr) -> None:
    """The issue's shapes through each text entry point (on live games of every rules)."""
    token = fs.TOKENS[ADVERSARIAL.index(text) % len(fs.TOKENS)]
    check_text(fs.game_of(token, 7, 30, live=True), entry, text)


# -- positions ---------------------------------------------------------------------------------


@fuzz()
@given(fs.mutated_texts())
def test_mutated_positions(text: fs.Expr) -> None:
    """Position texts of random games of every rules, mutated (characters replaced, inserted,
    deleted; fields swapped, duplicated, dropped, taken from other games; unicode digits,
    '+1', '1_0', full-width characters), read by every position entry point."""
    game, _ = attempt("Game.from_text", Game.from_text, text)
    attempt("Position.parse", Position.parse, text)
    attempt("Game.from_text(seed=1)", lambda t: Game.from_text(t, seed=1), text)
    record = fs.Expr(f"_record_with({text.code})", lambda: _record_with(text.make()))
    attempt("Game.from_record(start=mutated)", Game.from_record, record)
    if game is not None:
        again = Game.from_text(game.to_text())
        assert again.to_text() == game.to_text()


@fuzz(0.5)
@given(st.one_of(fs.plausible_texts, fs.mutated_texts(max_ops=2)))
def test_accepted_positions_play_to_the_end(text: fs.Expr) -> None:
    """A mutated position that ``from_text`` accepts plays to its end (RULES §3.2: a seat that
    still owes its first placement always has one, or the rule lapses)."""
    game, _ = attempt("Game.from_text", lambda t: Game.from_text(t, seed=0), text)
    event("accepted" if game is not None else "rejected")
    if game is not None:
        accepted(game, f"Game.from_text({text.code})")


# -- records -----------------------------------------------------------------------------------


@fuzz()
@given(fs.mutated_records())
def test_mutated_records(record: fs.Expr) -> None:
    """Records of random games with values replaced by garbage (lists, dicts, None, bools, huge
    ints, floats, long strings, deep nesting), keys removed or added, strings mutated, draws as
    nested lists: ``from_record`` raises a short RecordError or replays a game that plays on."""
    game, _ = attempt("Game.from_record", Game.from_record, record)
    attempt("Game.from_record(seed=1)", lambda r: Game.from_record(r, seed=1), record)
    event("accepted" if game is not None else "rejected")
    if game is not None:
        again, _ = attempt("from_record(to_record())", lambda: Game.from_record(game.to_record()))
        assert again is not None and again.to_text() == game.to_text()
        accepted(game, f"Game.from_record({record.code})")


# -- Position objects and load -------------------------------------------------------------------


@pytest.mark.parametrize("field", [*fs.POSITION_FIELDS, None])
@fuzz(0.2)
@given(data=st.data())
def test_positions_with_hostile_fields(field: str | None, data: st.DataObject) -> None:
    """``Position`` objects with a hostile value in ``field`` (``None``: in 1 to 3 fields), made
    by ``replace``, through ``load`` and ``Game.from_position``; a position accepted plays to
    its end and its text reads back."""
    base, changes = data.draw(fs.hostile_positions(field))
    fields = fs.Expr(repr(changes), lambda: {k: v.make() for k, v in changes.items()})
    position, error = attempt("Position.replace", lambda b, f: b.replace(**f), base, fields)
    if error is not None:
        return
    attempt("notation.load", lambda: load(position))
    game, _ = attempt("Game.from_position", lambda: Game.from_position(position, seed=0))
    event("accepted" if game is not None else "rejected")
    if game is not None:
        accepted(game, f"{base.code}.replace({changes})")


# -- arguments -----------------------------------------------------------------------------------


@st.composite
def game_calls(draw: st.DrawFn, method: str) -> tuple[fs.Expr, fs.Call]:
    """A live game and hostile arguments for one of its methods."""
    game = draw(fs.games(live=True))
    move = st.one_of(fs.objects, fs.hostile_texts, fs.move_like_texts())
    kwargs: dict[str, fs.Expr]
    if method in ("play", "is_legal", "gains"):
        ids = st.one_of(st.integers(-2, genial.ACTION_SIZE + 1), st.integers())
        kwargs = {"move": draw(st.one_of(move, ids.map(lambda i: fs.const(repr(i), i))))}
    elif method == "rack":
        seats = st.integers(-1, 5).map(lambda i: fs.const(repr(i), i))
        kwargs = {"player": draw(st.one_of(fs.objects, seats))}
    elif method == "choose":
        kwargs = {"policy": draw(st.one_of(fs.valid_policies, fs.objects))}
        epsilon = draw(fs.argument(fs.valid_epsilons))
        if epsilon is not None:
            kwargs["epsilon"] = epsilon
    else:
        table = {
            "n_games": fs.SIMULATE_ARGUMENTS["n_games"],
            "policy": fs.valid_policies,
            "seed": fs.valid_seeds,
            "workers": fs.SIMULATE_ARGUMENTS["workers"],
            "epsilon": fs.valid_epsilons,
            "records": fs.SIMULATE_ARGUMENTS["records"],
        }
        hostile = draw(st.sampled_from([*table, None]))
        kwargs = draw(fs.calls("playouts", table, hostile, keep=["n_games"])).kwargs
    return game, fs.Call(f"{game.code}.{method}", kwargs)


GAME_METHODS = ("play", "is_legal", "gains", "rack", "choose", "playouts")


@pytest.mark.parametrize("method", GAME_METHODS)
@fuzz(0.25)
@given(data=st.data())
def test_game_methods_on_garbage(method: str, data: st.DataObject) -> None:
    """``play``, ``is_legal``, ``gains``, ``rack``, ``choose`` and ``playouts`` with garbage on a
    live game: a GenialError with a short message, quickly, and the game unchanged."""
    game_expr, call = data.draw(game_calls(method))
    game = game_expr.make()
    if method in ("play", "is_legal"):
        check_moves_on(game, call.kwargs["move"])
        return
    before = snapshot(game)
    attempt(repr(call), lambda kwargs: getattr(game, method)(**kwargs), call)
    if snapshot(game) != before:
        _fail(f"{call!r} changed the game")


@pytest.mark.parametrize("hostile", [*fs.SIMULATE_ARGUMENTS, None])
@fuzz(0.2)
@given(data=st.data())
def test_simulate_arguments(hostile: str | None, data: st.DataObject) -> None:
    """``simulate`` with one argument an arbitrary object (``n_games`` small or huge,
    ``seed=True`` ...) and the others left out or valid (``None``: all of them anything): a
    short GenialError, quickly, or a batch of ``n_games`` games that leaves a ``start`` game
    unchanged."""
    call = data.draw(fs.calls("simulate", fs.SIMULATE_ARGUMENTS, hostile, keep=["n_games"]))
    kwargs = call.make()
    start = kwargs.get("start")
    before = snapshot(start) if isinstance(start, Game) else None
    runs, _ = attempt(repr(call), lambda kw: simulate(**kw), call, first=(kwargs,))
    if runs is not None:
        assert len(runs) == kwargs["n_games"]
        assert not runs.truncated.any()
    if before is not None and snapshot(start) != before:
        _fail(f"{call!r} changed its start game")


@pytest.mark.parametrize("hostile", list(fs.ANALYSE_ARGUMENTS))
@fuzz(0.1)
@given(data=st.data())
def test_analyse_arguments(hostile: str | None, data: st.DataObject) -> None:
    """``openings.analyse`` with one argument an arbitrary object, the others left out or
    valid: a short GenialError, quickly (a valid call is a real analysis of one game per
    class, allowed ``SLOW_LIMIT``; no all-hostile case: each valid call costs 0.05-0.3 s)."""
    keep = ["games_per_opening", "workers"]
    call = data.draw(fs.calls("analyse", fs.ANALYSE_ARGUMENTS, hostile, keep=keep))
    attempt(repr(call), lambda kwargs: analyse(**kwargs), call, limit_ok=SLOW_LIMIT)


RUNS = simulate(4, seed=1, records=True)

CONSTRUCTORS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("Game(x)", lambda x, y: Game(x)),
    ("Game(seed=x)", lambda x, y: Game(seed=x)),
    ("Game(x, seed=y)", lambda x, y: Game(x, seed=y)),
    ("Game(4, teams=x)", lambda x, y: Game(4, teams=x)),
    ("Game(2, tournament=x)", lambda x, y: Game(2, tournament=x)),
    ("Game(2, tiles=x)", lambda x, y: Game(2, tiles=x)),
    ("Game(rules=x)", lambda x, y: Game(rules=x)),
    ("Rules(x)", lambda x, y: Rules(x)),
    ("Rules(2, teams=x)", lambda x, y: Rules(2, teams=x)),
    ("Rules(2, tournament=x)", lambda x, y: Rules(2, tournament=x)),
    ("Rules(2, tiles=x)", lambda x, y: Rules(2, tiles=x)),
    ("Rules.of(x)", lambda x, y: Rules.of(x)),
    ("Rules.of(x, rules=y)", lambda x, y: Rules.of(x, rules=y)),
    ("Rules.of(2, teams=x, tiles=y)", lambda x, y: Rules.of(2, teams=x, tiles=y)),
    ("Rules.parse(x)", lambda x, y: Rules.parse(x)),
    ("Move.parse(x)", lambda x, y: Move.parse(x)),
    ("Move.place(x, y)", lambda x, y: Move.place(x, y)),
    ("Move.place(((0, 0), (1, 0)), x)", lambda x, y: Move.place(((0, 0), (1, 0)), x)),
    ("Move.place(x, (0, 1))", lambda x, y: Move.place(x, (0, 1))),
    ("Move.place(((x, 0), (1, 0)), (0, 1))", lambda x, y: Move.place(((x, 0), (1, 0)), (0, 1))),
    ("Move.place(((0, 0), (1, 0)), (x, 1))", lambda x, y: Move.place(((0, 0), (1, 0)), (x, 1))),
    ("Move.from_action(x)", lambda x, y: Move.from_action(x)),
    ("Move.from_action(x, y)", lambda x, y: Move.from_action(x, y)),
    ("Move.from_action(0, x)", lambda x, y: Move.from_action(0, x)),
    ("Position.parse(x)", lambda x, y: Position.parse(x)),
    ("notation.load(x)", lambda x, y: load(x)),
    ("Game.from_position(x)", lambda x, y: Game.from_position(x)),
    ("Game.from_text(x)", lambda x, y: Game.from_text(x)),
    ("Game.from_text(text, seed=x)", lambda x, y: Game.from_text(fs.text_of("2", 1, 0), seed=x)),
    ("Game.from_record(x)", lambda x, y: Game.from_record(x)),
    ("Game.from_record(r, seed=x)", lambda x, y: Game.from_record(fs.record_of("2", 1, 3), seed=x)),
    ("genial.make(x)", lambda x, y: genial.make(x)),
    ("genial.make('board', x, seed=y)", lambda x, y: genial.make("board", x, seed=y)),
    ("Playouts.replay(x)", lambda x, y: RUNS.replay(x)),
]


@pytest.mark.parametrize(("what", "call"), CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
@fuzz(0.25)
@given(x=fs.objects, y=fs.objects)
def test_constructors_and_codecs(
    what: str, call: Callable[[Any, Any], Any], x: fs.Expr, y: fs.Expr
) -> None:
    """Arbitrary objects as the arguments of the constructors, the rules, the move codec, the
    position and record readers and ``Playouts.replay``."""
    attempt(f"{what} with x={x.code}, y={y.code}", call, x, y)


@pytest.mark.parametrize(
    "call",
    [
        lambda: simulate(1, seed=True),
        lambda: simulate(1, seed=False),
        lambda: Game(seed=True),
        lambda: Game.from_text(fs.text_of("2", 1, 0), seed=True),
        lambda: Game.from_record(fs.record_of("2", 1, 5), seed=True),
        lambda: Game(2, seed=1).playouts(1, seed=True),
        lambda: analyse(2, games_per_opening=1, seed=True),
    ],
    ids=["simulate", "simulate-False", "Game", "from_text", "from_record", "playouts", "analyse"],
)
def test_seed_true_raises(call: Callable[[], Any]) -> None:
    """A bool is no seed (numpy would take True as 1)."""
    _, error = attempt("seed=True", call)
    assert error is not None, "seed=True was accepted"


# -- in a child process: memory and crashes ---------------------------------------------------

CHILD = r"""
import json, resource, sys, time
limit = int(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import numpy as np
import genial
from genial.board.openings import analyse
def nested(depth, kind="list", leaf=None):
    for _ in range(depth):
        leaf = [leaf] if kind == "list" else (leaf,) if kind == "tuple" else {"moves": leaf}
    return leaf
names = {"genial": genial, "simulate": genial.simulate, "Game": genial.Game, "np": np,
         "analyse": analyse, "nested": nested, "Move": genial.Move, "Rules": genial.Rules}
arguments = eval(sys.argv[3], names) if len(sys.argv) > 3 else ()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()  # CPU time: a busy machine does not inflate it
try:
    eval(sys.argv[1], names, {"x": arguments})
    out = {"raised": None}
except BaseException as exc:
    out = {"raised": type(exc).__name__, "genial": isinstance(exc, genial.GenialError),
           "length": len(str(exc)), "message": str(exc)[:200]}
out["seconds"] = time.process_time() - start
out["grown_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps(out))
"""
ADDRESS_SPACE = 4 * 2**30
"""The memory test's address-space limit: a batch that allocates what it cannot have fails."""


def in_child(call: str, address_space: int = 0, x: str = "()") -> dict[str, Any]:
    """Run ``call`` (an expression over ``genial``, ``simulate``, ``analyse``, ``nested`` and
    ``x``, the value of the expression ``x``, made before the clock starts) in a fresh
    interpreter; its outcome, or a failure if it hangs or dies."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, call, str(address_space), x],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} (x = {x}): no answer after 60 s")
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        pytest.fail(f"{call} (x = {x}): the interpreter died (exit code {done.returncode})")
    outcome: dict[str, Any] = json.loads(lines[-1])
    return outcome


@pytest.mark.parametrize(
    "call",
    [
        "simulate(10**9)",
        "simulate(10**12)",
        "simulate(2**40)",
        "simulate(10**8, records=True)",
        "simulate(10**9, players=4, policy='greedy', workers=-1)",
        "Game(2, seed=1).playouts(10**9)",
        "analyse(2, games_per_opening=10**9, workers=1)",
    ],
)
def test_huge_batches_are_refused_without_allocating(call: str) -> None:
    """A batch that needs tens of GB raises a GenialError at once, before allocating (the
    library checks the memory a batch needs); in a child process with a 4 GiB address space."""
    out = in_child(call, ADDRESS_SPACE)
    assert out["raised"] is not None, f"{call} was accepted"
    assert out["genial"], f"{call}: raised {out['raised']} ({out['message']}), not a GenialError"
    assert out["seconds"] < 1.0, f"{call}: raised after {out['seconds']:.1f} s"
    assert out["grown_mb"] < 200, f"{call}: allocated {out['grown_mb']:.0f} MB before raising"
    assert out["length"] <= MAX_MESSAGE, f"{call}: a message of {out['length']} characters"


DEEP = ["nested(100000, leaf=1)", "nested(100000, 'tuple', 1)", "nested(100000, 'dict', 1)"]


@pytest.mark.parametrize("x", DEEP)
@pytest.mark.parametrize(
    "call",
    [
        "Game(seed=x)",
        "simulate(1, seed=x)",
        "Game(2, seed=1).playouts(1, seed=x)",
        "analyse(2, games_per_opening=1, seed=x, workers=1)",
        "Game(x)",
        "simulate(x)",
        "simulate(1, policy=x)",
        "simulate(1, openings=x)",
        "Move.place(x, x)",
        "Move.from_action(0, x)",
        "Game.from_record(x)",
    ],
)
def test_deep_nesting_does_not_crash(call: str, x: str) -> None:
    """Arguments nested 100,000 deep (lists, tuples, dicts): a short GenialError, quickly; never
    a crash of the interpreter (numpy's SeedSequence overflows the C stack on them), in a child
    process so that a crash fails only this test."""
    out = in_child(call, x=x)
    if out["raised"] is not None:
        assert out["genial"], f"{call}, x = {x}: raised {out['raised']}: {out['message']}"
        assert out["length"] <= MAX_MESSAGE, f"{call}, x = {x}: a {out['length']}-char message"
    assert out["seconds"] < 1.0, f"{call}, x = {x}: took {out['seconds']:.1f} s"
