"""One command line for every game: each verb once, ``--game NAME`` (default ``board``) choosing
the game from the registry, the game's own options from its entry; ``genial cards VERB`` an
alias of ``genial VERB --game cards``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pandas as pd
import pytest

import genial
from genial import registry
from genial.cards import CardGame
from genial.cli import VERBS, build_parser, main

from .test_cli import assert_one_line, run


def _card_position() -> str:
    game = CardGame(3, seed=5)
    for _ in range(10):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game.to_text()


def _body(text: str) -> list[str]:
    """The output without its timing line."""
    return [line for line in text.splitlines() if "/s" not in line]


# a command of the card game, with the arguments that make it quick and deterministic
CARD_COMMANDS = {
    "play": ["--players", "2", "--seed", "3", "--quiet"],
    "simulate": ["--games", "300", "--players", "3", "--seed", "4", "--no-progress"],
    "match": ["--matches", "50", "--rounds", "2", "--seed", "5", "--no-progress"],
    "arena": ["--policy", "random", "greedy", "--players", "2", "--games", "10", "--seed", "1"],
    "analyse": ["--playouts", "20", "--seed", "1", "--rows", "3", "--no-progress"],
}


@pytest.mark.parametrize("verb", sorted(CARD_COMMANDS))
def test_every_verb_of_the_card_game_is_its_alias(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``genial VERB --game cards`` prints what ``genial cards VERB`` prints for the same
    seed (the timing aside), for every verb of the card game."""
    extra = CARD_COMMANDS[verb]
    if verb == "analyse":
        extra = [_card_position(), *extra]
    if verb == "arena":
        extra = [*extra, "--no-progress"]
    code, out, err, _ = run([verb, "--game", "cards", *extra], capsys)
    assert code == 0, err
    alias_code, alias_out, alias_err, _ = run(["cards", verb, *extra], capsys)
    assert alias_code == 0, alias_err
    assert _body(out) == _body(alias_out) and _body(out)
    code, again, err, _ = run([verb, "--game=card", *extra], capsys)  # an alias of the game
    assert code == 0, err
    assert _body(again) == _body(out)


def test_simulate_of_either_spelling_writes_the_same_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--games", "300", "--players", "4", "--turn-cap", "60", "--seed", "9"]
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    code, _, err, _ = run(["simulate", "--game", "cards", *argv, "--out", str(one)], capsys)
    assert code == 0, err
    code, _, err, _ = run(["cards", "simulate", *argv, "--out", str(two)], capsys)
    assert code == 0, err
    rules = genial.cards.CardRules(4, turn_cap=60)
    expected = genial.simulate(300, game="cards", rules=rules, policy="greedy", seed=9).to_pandas()
    for path in (one, two):
        frame = pd.read_csv(path)
        assert frame["score_R"].tolist() == expected["score_R"].tolist()


def test_play_and_replay_of_the_card_game(tmp_path: Path) -> None:
    record, page = tmp_path / "game.json", tmp_path / "replay.html"
    argv = ["play", "--game", "cards", "--seed", "8", "--quiet", "--record", str(record)]
    assert main(argv) == 0
    game = CardGame.from_record(json.loads(record.read_text(encoding="utf-8")))
    assert game.is_over
    for replay in (["replay"], ["replay", "--game", "cards"], ["cards", "replay"]):
        page.unlink(missing_ok=True)
        assert main([*replay, str(record), "--html", str(page)]) == 0
        assert page.exists()


def test_replay_refuses_a_record_of_another_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.json"
    assert main(["play", "--game", "cards", "--seed", "1", "--quiet", "--record", str(record)]) == 0
    capsys.readouterr()
    code, out, err, _ = run(["replay", str(record), "--game", "board", "--html", "x.html"], capsys)
    assert code == 2 and out == ""
    message = assert_one_line(err, "replay")
    assert "record of the game 'cards', not of --game board" in message
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("verb", VERBS)
def test_an_unknown_game_is_one_line(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, played = run([verb, "--game", "chess", "--no-progress"], capsys)
    assert code == 2 and out == "" and played == 0
    message = assert_one_line(err, verb)
    assert message == "argument --game: unknown game 'chess': expected one of board, cards"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["openings", "--game", "cards"], "the game 'cards' has no openings; give --game board"),
        (["match", "--game", "board"], "the game 'board' has no match; give --game cards"),
        (["match"], "the game 'board' (the default) has no match; give --game cards"),
        (
            ["match", "--matches", "10"],
            "the game 'board' (the default) has no match; give --game cards",
        ),
    ],
)
def test_a_verb_the_game_has_not_is_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, played = run(argv, capsys)
    assert code == 2 and out == "" and played == 0
    assert assert_one_line(err, argv[0]) == f"argument --game: {message}"


def test_the_other_games_options_are_refused_saying_whose_they_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err, played = run(["simulate", "--game", "cards", "--tiles", "travel"], capsys)
    assert code == 2 and played == 0
    message = assert_one_line(err, "simulate")
    assert message == "unrecognized arguments: '--tiles travel' (not options of --game cards)"
    code, _, err, _ = run(["simulate", "--turn-cap", "5"], capsys)
    assert code == 2 and assert_one_line(err, "simulate").endswith("'--turn-cap 5'")
    code, _, err, _ = run(["play", "--game", "cards", "--players", "1"], capsys)
    assert code == 2
    assert "argument --players: expected one of 2, 3, 4" in assert_one_line(err, "play")


def test_game_options_reach_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    args = parser.parse_args(["simulate", "--game", "cards", "--players", "2", "--turn-cap", "9"])
    assert (args.game, args.players, args.turn_cap) == ("cards", 2, 9)
    assert not hasattr(args, "tiles")
    args = parser.parse_args(["play", "--ga", "cards", "--players", "4"])  # abbreviated
    assert (args.game, args.players, args.turn_cap) == ("cards", 4, 1000)
    board = parser.parse_args(["arena", "--tiles", "travel"])
    assert (board.game, board.players, board.tiles) == ("board", 2, "travel")
    assert parser.parse_args(["replay", "r.json"]).game is None  # the record's own game


def test_help_shows_the_default_game_and_says_how_to_see_another(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--help"]) == 0
    board = " ".join(capsys.readouterr().out.split())
    assert "--tiles" in board and "--turn-cap" not in board
    assert "those of --game board (the default)" in board
    assert "genial simulate --game NAME --help shows those of game NAME (cards)" in board
    assert main(["simulate", "--game", "cards", "--help"]) == 0
    cards = " ".join(capsys.readouterr().out.split())
    assert "--turn-cap" in cards and "--tiles" not in cards
    assert "those of --game cards." in cards and "(board)" in cards
    assert main(["match", "--help"]) == 0
    assert "genial match --game NAME --help" in capsys.readouterr().out
    assert main(["--help"]) == 0
    top = " ".join(capsys.readouterr().out.split())
    assert "genial cards VERB is genial VERB --game cards" in top
    assert "genial COMMAND --game NAME --help" in top


@pytest.mark.parametrize("verb", ["play", "simulate", "analyse", "arena", "match"])
def test_every_option_of_the_card_game_shows_its_default(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([verb, "--game", "cards", "--help"]) == 0
    text = capsys.readouterr().out.split("options:\n", 1)[1]
    entries: list[str] = []
    for line in text.splitlines():
        if line.startswith("  -"):
            entries.append(line)
        elif line.startswith("   ") and entries:
            entries[-1] += " " + line.strip()
    assert len(entries) >= 7
    for entry in entries:
        if not entry.strip().startswith("-h, --help"):
            assert "(default: " in " ".join(entry.split()), entry


def test_a_game_without_a_command_line_module_plays_its_default_rules(
    capsys: pytest.CaptureFixture[str], toy_game: registry.GameEntry
) -> None:
    """A game whose entry names no ``cli`` module (the tests' toy game, Pig) still has play,
    simulate, analyse, arena and replay, with the game's default rules and no options of its
    own."""
    assert toy_game.cli is None
    code, out, err, _ = run(["simulate", "--game", "toy", "--games", "40", "--seed", "2"], capsys)
    assert code == 0, err
    assert "40 games, rules pig2" in out
    code, _, err, _ = run(["openings", "--game", "toy"], capsys)
    assert code == 2 and "the game 'toy' has no openings" in assert_one_line(err, "openings")
    code, _, err, _ = run(["simulate", "--game", "toy", "--tiles", "travel"], capsys)
    assert code == 2 and "not options of --game toy" in assert_one_line(err, "simulate")
    code, _, err, _ = run(["toy", "play", "--seed", "1", "--quiet"], capsys)
    assert code == 0, err


def test_the_command_line_names_no_game() -> None:
    """genial.cli reaches the games through the registry only."""
    source = Path(genial.cli.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = ("." * node.level) + (node.module or "")
            assert not module.lstrip(".").startswith(("board", "cards")), module
            assert not module.startswith(("genial.board", "genial.cards")), module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                assert not alias.name.startswith(("genial.board", "genial.cards")), alias.name
