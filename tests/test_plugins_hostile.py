"""Plug-ins that cannot break the house (``genial.registry``, ``genial.cli``): a third-party
game of the ``genial.games`` entry-point group that fails in any way (its module, its
function, its entry, its command-line module) is skipped with one ``RuntimeWarning`` naming it
and its distribution, and the library's own games and verbs keep working; the library's own
games cannot be unregistered, nor a game through an alias; a malformed entry, or one whose
text prefix could claim another game's position texts, is refused and changes nothing.

Each plug-in is a real distribution: a ``.dist-info`` directory and its modules in a temporary
directory put first on ``sys.path``, found by ``importlib.metadata`` like an installed one; the
registry is emptied for the test (and restored after it) so that it loads the entry points
again."""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial import Game, GenialError, registry
from genial.cards import CardGame
from genial.cli import main
from genial.registry import (
    GameEntry,
    distribution,
    entry,
    entry_of,
    games,
    own_games,
    register,
    unregister,
)

from .toy import GAME as TOY

DIST = "genial-hostile"
_COUNTER = itertools.count()

# a valid entry of the toy game under another name, the base of the plug-ins below
ENTRY = """
import dataclasses
from tests.toy.entry import GAME as TOY
GAME = dataclasses.replace(TOY, name={name!r}, aliases=(), record_format=None, cli={cli!r})
"""

# a command-line module that works: the plain verbs with the toy's default rules
GOOD_CLI = """
VERBS = ("play", "simulate")
def add_options(parser, verb, types):
    parser.add_argument("--sides", type=types.integer(2, 6), default=6)
def rules(options):
    from tests.toy.rules import toy_rules
    return toy_rules()
"""


Install = Callable[..., str]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """``install(entry_source, cli_source=None, *, point=None)``: a distribution ``genial-hostile``
    declaring one game whose entry module is ``entry_source`` (formatted with the game's
    ``name`` and ``cli`` module name), and the command-line module ``cli_source``; returns the
    game's name. The registry is emptied, to load every entry point again at its next use."""
    added: list[str] = []
    lines: list[str] = []
    info = tmp_path / "genial_hostile-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, value in (("_ENTRIES", {}), ("_ALIASES", {}), ("_OWN", set()), ("_ORIGINS", {})):
        monkeypatch.setattr(registry, name, value)
    monkeypatch.setattr(registry, "_LOADED", False)

    def add(entry_source: str, cli_source: str | None = None, *, point: str | None = None) -> str:
        number = next(_COUNTER)
        name, module, cli = f"hostile{number}", f"hostile_entry_{number}", f"hostile_cli_{number}"
        (tmp_path / f"{module}.py").write_text(
            textwrap.dedent(entry_source).format(name=name, cli=cli)
        )
        if cli_source is not None:
            (tmp_path / f"{cli}.py").write_text(textwrap.dedent(cli_source))
        added.extend([module, cli])
        lines.append(f"{name} = {point or module + ':GAME'}")
        (info / "entry_points.txt").write_text("[genial.games]\n" + "\n".join(lines) + "\n")
        importlib.invalidate_caches()
        return name

    yield add
    for module in added:
        sys.modules.pop(module, None)


def loaded() -> tuple[tuple[str, ...], list[str]]:
    """The games the registry loads now, and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = games()
    return names, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, list[str]]:
    """``main(argv)``: its status, stdout, stderr and the RuntimeWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(argv)
    out, err = capsys.readouterr()
    said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    return code, out, err, said


def assert_house_stands(capsys: pytest.CaptureFixture[str]) -> None:
    """``genial --help`` and a cheap game of each own game still work, without a warning (the
    broken plug-in was reported once already)."""
    code, out, err, _ = run(["--help"], capsys)
    assert code == 0 and "play" in out and "Traceback" not in err
    for argv in (["play", "--players", "2"], ["cards", "play"]):
        code, out, err, _ = run([*argv, "--seed", "1", "--quiet"], capsys)
        assert code == 0, err
        assert "game over" in out or "result" in out


def assert_one_warning(messages: list[str], name: str, *words: str) -> None:
    assert len(messages) == 1, messages
    assert repr(name) in messages[0] and DIST in messages[0], messages[0]
    for word in words:
        assert word in messages[0], messages[0]


# -- a plug-in that fails in the registry --------------------------------------------------------

BROKEN_ENTRIES = {
    "import raises": ("raise RuntimeError('boom at import')", "boom at import"),
    "import exits": ("raise SystemExit(3)", "SystemExit"),
    "no such attribute": ("NOTHING = 1", "AttributeError"),
    "function raises": ("def GAME():\n    raise KeyError('factory')", "factory"),
    "not an entry": ("GAME = 42", "not a GameEntry"),
    "function gives no entry": ("def GAME():\n    return 'board'", "not a GameEntry"),
    "the class itself": ("from genial.registry import GameEntry as GAME", "TypeError"),
    "name of a built-in": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='board', aliases=())",
        "'board' is registered already",
    ),
    "alias of a built-in": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=('ingenious',))",
        "'ingenious' is registered already",
    ),
    "name is a built-in's alias": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='card', aliases=())",
        "'card' is registered already",
    ),
    "record format of a built-in": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), record_format='genial-record')",
        "record format",
    ),
    "text prefix of the board game's texts": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), text_prefix='2')",
        "text_prefix",
    ),
    "text prefix of the card game's": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), text_prefix='ca')",
        "would claim the same position texts",
    ),
    "players out of range": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), players=9)",
        "players",
    ),
    "title not a text": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), title=None)",
        "title",
    ),
    "position not a class": (
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), position=str)",
        "position",
    ),
}


@pytest.mark.parametrize("kind", sorted(BROKEN_ENTRIES))
def test_a_broken_plugin_is_skipped_with_one_warning(
    kind: str, install: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    source, why = BROKEN_ENTRIES[kind]
    name = install(source)
    names, messages = loaded()
    assert names == ("board", "cards")
    assert own_games() == ("board", "cards")
    assert_one_warning(messages, name, why)
    assert entry("ingenious") is entry("board") and entry("card") is entry("cards")
    assert_house_stands(capsys)


def test_a_broken_plugin_does_not_stop_a_good_one(
    install: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = install("raise ImportError('no such dependency')")
    good = install(ENTRY, GOOD_CLI)
    code, out, err, messages = run(["--help"], capsys)
    assert code == 0 and good in out and broken not in out
    assert_one_warning(messages, broken, "no such dependency")
    assert games() == ("board", "cards", good) and distribution(good) == DIST
    assert distribution("board") != DIST and distribution("board") is not None
    code, out, err, messages = run(["play", "--game", good, "--seed", "1", "--quiet"], capsys)
    assert code == 0 and messages == [], err
    assert_house_stands(capsys)


def test_one_entry_under_two_entry_points_is_one_game(install: Install) -> None:
    """Two entry points giving the same entry (a distribution installed twice, editable and in
    site-packages, or a plug-in naming the entry twice): one game, no clash, no warning."""
    first = install(ENTRY)
    number = first.removeprefix("hostile")
    install(f"from hostile_entry_{number} import GAME")
    names, messages = loaded()
    assert names == ("board", "cards", first) and messages == []


def test_an_entry_point_naming_the_library_game_again_is_silent(install: Install) -> None:
    install("", point="genial.board.entry:GAME")
    names, messages = loaded()
    assert names == ("board", "cards") and messages == []


# -- a plug-in whose command line fails ----------------------------------------------------------

BROKEN_CLIS = {
    "missing module": (None, "ModuleNotFoundError"),
    "import raises": ("raise ValueError('cli boom')", "cli boom"),
    "import exits": ("import sys\nsys.exit(1)", "SystemExit"),
    "no VERBS": ("def add_options(p, v, t): pass\ndef rules(o): return None\n", "VERBS"),
    "VERBS a number": (
        "VERBS = 5\ndef add_options(p, v, t): pass\ndef rules(o): return None\n",
        "VERBS",
    ),
    "VERBS of numbers": (
        "VERBS = (1, 2)\ndef add_options(p, v, t): pass\ndef rules(o): return None\n",
        "VERBS",
    ),
    "no add_options": ("VERBS = ('play',)\ndef rules(o): return None\n", "add_options"),
    "add_options not callable": (
        "VERBS = ('play',)\nadd_options = 3\ndef rules(o): return None\n",
        "add_options",
    ),
    "no rules": ("VERBS = ('play',)\ndef add_options(p, v, t): pass\n", "rules"),
    "add_options raises": (
        "VERBS = ('play',)\ndef add_options(p, v, t): raise RuntimeError('options boom')\n"
        "def rules(o): return None\n",
        "options boom",
    ),
    "an option of the verb's": (
        "VERBS = ('play',)\ndef add_options(p, v, t): p.add_argument('--seed')\n"
        "def rules(o): return None\n",
        "--seed",
    ),
    "a help argparse cannot write": (
        "VERBS = ('play',)\n"
        "def add_options(p, v, t): p.add_argument('--odds', help='%(nothing)s')\n"
        "def rules(o): return None\n",
        "nothing",
    ),
    "HIDDEN not a text": (
        "VERBS = ('play',)\nHIDDEN = 5\ndef add_options(p, v, t): pass\n"
        "def rules(o): return None\n",
        "HIDDEN",
    ),
}


@pytest.mark.parametrize("kind", sorted(BROKEN_CLIS))
def test_a_broken_command_line_module_is_skipped_with_one_warning(
    kind: str, install: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    source, why = BROKEN_CLIS[kind]
    name = install(ENTRY, source)
    assert loaded() == (("board", "cards", name), [])  # the game itself is fine
    for argv in (["--help"], ["play", "--players", "2", "--seed", "1", "--quiet"]):
        code, out, err, messages = run(argv, capsys)
        assert code == 0 and "Traceback" not in err, err
        assert_one_warning(messages, name, "command line", why)
    code, out, err, messages = run(["play", "--game", name, "--seed", "1"], capsys)
    assert code == 2 and out == "" and len(messages) == 1
    assert err.count("\n") == 1 and "has no command line here" in err
    assert_house_stands(capsys)


def test_a_title_with_percent_signs_is_shown_as_it_is(
    install: Install, capsys: pytest.CaptureFixture[str]
) -> None:
    install(
        "import dataclasses\nfrom tests.toy.entry import GAME as TOY\n"
        "GAME = dataclasses.replace(TOY, name='{name}', aliases=(), cli=None,"
        " title='100% luck %(prog)s %')"
    )
    code, out, err, messages = run(["--help"], capsys)
    assert code == 0 and messages == [] and "100% luck %(prog)s %" in out, err


# -- unregister ----------------------------------------------------------------------------------


def snapshot() -> tuple[Any, ...]:
    """The registry's state (loaded first)."""
    games()
    return (
        dict(registry._ENTRIES),
        dict(registry._ALIASES),
        set(registry._OWN),
        dict(registry._ORIGINS),
    )


@pytest.mark.parametrize("name", ["board", "cards", "ingenious", "genial", "card"])
def test_the_own_games_cannot_be_unregistered(name: str) -> None:
    before = snapshot()
    with pytest.raises(GenialError, match="one of genial's own games: it cannot be unregistered"):
        unregister(name)
    assert snapshot() == before
    assert entry(name).name in ("board", "cards")


def test_a_game_is_unregistered_by_its_name_not_an_alias(toy_game: GameEntry) -> None:
    before = snapshot()
    with pytest.raises(GenialError, match="'pig' is an alias of the game 'toy': unregister"):
        unregister("pig")
    assert snapshot() == before and entry("pig") is toy_game
    for name in ("chess", "", None, 5):
        with pytest.raises(GenialError, match="unknown game"):
            unregister(name)  # type: ignore[arg-type]
    assert snapshot() == before


# -- text prefixes -------------------------------------------------------------------------------


class Zed:
    """A game class (the entries below are never played)."""

    def __init__(self, rules: Any = None, seed: Any = None) -> None:
        self.rules = rules


def zed(**fields: Any) -> GameEntry:
    values: dict[str, Any] = {
        "name": "zed",
        "title": "a game of tests",
        "game": Zed,
        "rules": lambda spec=None: spec,
        "adapter": None,
    }
    return GameEntry(**{**values, **fields})


@pytest.mark.parametrize(
    "prefix", ["2", "3T", "", "c", "ca", "card", "c2", " x", "x y", "x\n", "é", "_x", "a" * 17, 2]
)
def test_text_prefixes_that_could_take_another_games_texts_are_refused(prefix: Any) -> None:
    before = snapshot()
    with pytest.raises(GenialError, match=r"text.prefix"):
        register(zed(text_prefix=prefix))
    assert snapshot() == before
    assert entry_of(Game(2, seed=1).to_text()).name == "board"
    assert entry_of(CardGame(2, seed=1).to_text()).name == "cards"


def test_a_prefix_of_its_own_tells_the_texts_apart() -> None:
    register(zed(text_prefix="z"))
    try:
        with pytest.raises(GenialError, match="would claim the same position texts"):
            register(zed(name="zee", text_prefix="zz"))
        with pytest.raises(GenialError, match="would claim the same position texts"):
            register(zed(name="zee", text_prefix="z"))
        assert "zee" not in games()
        assert entry_of("z1 whatever").name == "zed"
        assert entry_of("  z whatever").name == "zed"
        assert entry_of(Game("2T", seed=3).to_text()).name == "board"
        assert entry_of(CardGame(4, seed=3).to_text()).name == "cards"
        assert entry_of("2 not a position").name == "board"
        assert entry_of("c4 not a position").name == "cards"
    finally:
        unregister("zed")
    assert "zed" not in games()


def test_the_own_games_texts_stay_theirs() -> None:
    """Even were a prefix to slip through, ``entry_of`` asks the library's own games first:
    here the registry's list is forced to hold a game claiming every text."""
    greedy = zed(text_prefix="z")
    register(greedy)
    try:
        object.__setattr__(greedy, "text_prefix", "")  # (what register would refuse)
        assert entry_of(Game(3, seed=2).to_text()).name == "board"
        assert entry_of(CardGame(3, seed=2).to_text()).name == "cards"
    finally:
        object.__setattr__(greedy, "text_prefix", "z")
        unregister("zed")


# -- malformed entries ---------------------------------------------------------------------------

MALFORMED = {
    "name": [None, 5, "", "two words", "x-y", "1x", "x" * 41, b"zed"],
    "title": [None, 5, "", "two\nlines", "t" * 201],
    "game": [None, 5, "Zed", int, dict, object, lambda: 0],
    "rules": [None, 5, "rules"],
    "rules_type": [5, "Rules", str, int],
    "position": [5, str, dict],
    "move": [5, tuple],
    "record_format": [5, "", "two\nlines", "f" * 101],
    "aliases": ["pig", ["pig"], ("pig", 5), ("two words",), ("zed",), ("p", "p"), ("a",) * 17],
    "noun": [None, "", 5],
    "search": [None, 1, "yes"],
    "svg": [5, "svg"],
    "replay_picture": [5],
    "analysis": [5, "hooks"],
    "observer": [5],
    "env": ["env"],
    "vector_env": [5],
    "players": [0, 5, -1, True, 2.0, "2", None],
    "cli": [5, "", "a..b", "1x", "a b", "m" * 201],
}


@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in MALFORMED.items() for v in values]
)
def test_a_malformed_entry_is_refused_and_changes_nothing(field: str, value: Any) -> None:
    before = snapshot()
    with pytest.raises(GenialError):
        register(zed(**{field: value}))
    assert snapshot() == before
    assert "zed" not in games()


def test_a_well_formed_entry_is_registered() -> None:
    found = register(zed(aliases=("zz",), text_prefix="z", players=4, cli="a.b_c", noun="zed"))
    try:
        assert entry("zz") is found and distribution("zed") is None
    finally:
        unregister("zed")


# -- any entry: a GenialError or a game --------------------------------------------------------

ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.text(max_size=6),
    st.sampled_from(["board", "cards", "ingenious", "card", "genial-record", "c", "2", "zed"]),
    st.sampled_from([Zed, int, str, dict, len, print, lambda spec=None: spec, TOY, TOY.adapter]),
    st.tuples(st.text(max_size=4)),
    st.lists(st.sampled_from(["zz", "pig", "board"]), max_size=2).map(tuple),
)
VALID: dict[str, st.SearchStrategy[Any]] = {
    "name": st.sampled_from(["zed", "zee", "z_1", "Zed"]),
    "title": st.text(min_size=1, max_size=20).filter(str.isprintable),
    "game": st.just(Zed),
    "rules": st.just(lambda spec=None: spec),
    "adapter": ANY,
    "rules_type": st.sampled_from([None, Zed]),
    "position": st.sampled_from([None, Zed]),
    "move": st.sampled_from([None, Zed]),
    "record_format": st.sampled_from([None, "zed-record"]),
    "aliases": st.lists(st.sampled_from(["zz", "zq", "pig"]), max_size=2, unique=True).map(tuple),
    "noun": st.sampled_from(["game", "dice game"]),
    "text_prefix": st.sampled_from([None, "z", "zq", "q", "Q9_"]),
    "search": st.booleans(),
    "svg": st.sampled_from([None, len]),
    "replay_picture": st.sampled_from([None, len]),
    "analysis": st.none(),
    "observer": st.sampled_from([None, Zed]),
    "env": st.sampled_from([None, Zed]),
    "vector_env": st.sampled_from([None, Zed]),
    "players": st.integers(1, 4),
    "cli": st.sampled_from([None, "a.b", "genial_zed.cli"]),
}
"""A valid value of each field."""
FIELDS = st.tuples(
    st.fixed_dictionaries({}, optional=VALID),
    st.dictionaries(st.sampled_from(sorted(VALID)), ANY, max_size=3),
).map(lambda drawn: {**drawn[0], **drawn[1]})
"""Valid fields, up to three of them then given any value (mostly an invalid one)."""


def check_any_entry(fields: dict[str, Any]) -> None:
    before = snapshot()
    made = zed(**fields)
    try:
        register(made)
    except GenialError:
        assert snapshot() == before
        return
    try:
        assert entry(made.name) is made
        assert all(entry(alias) is made for alias in made.aliases)
    finally:
        unregister(made.name)
    assert snapshot() == before


@settings(max_examples=60, deadline=None)
@given(FIELDS)
def test_any_entry_is_refused_or_registered(fields: dict[str, Any]) -> None:
    check_any_entry(fields)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(FIELDS)
def test_any_entry_is_refused_or_registered_long(fields: dict[str, Any]) -> None:
    check_any_entry(fields)
