"""``genial cards analyse POSITION``: genial.analysis.evaluate on a card position from the command
line, built as ``genial analyse`` is (the same options, the same one-line errors)."""

from __future__ import annotations

import pytest

import genial
from genial.analysis import evaluate
from genial.cards import CardGame
from genial.cli import main

from ..test_cli import assert_one_line, run


def _position(seed: int = 5, moves: int = 10) -> str:
    game = CardGame(3, seed=seed)
    for _ in range(moves):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game.to_text()


def _body(text: str) -> list[str]:
    """The table without its timing line."""
    return [line for line in text.splitlines() if "playouts/s" not in line]


def test_cards_analyse_prints_the_librarys_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The summary of evaluate for that position, the same whatever the workers."""
    text = _position()
    seat = CardGame.from_text(text).current_player
    result = evaluate(text, playouts=60, seed=3, workers=1, policy="greedy")
    want = _body(result.summary(rows=4))
    assert want[0].startswith(f"seat {seat} to play a card, rules c3")
    argv = ["cards", "analyse", text, "--playouts", "60", "--seed", "3", "--rows", "4"]
    for workers in ("1", "2"):
        code, out, err, _ = run(
            [*argv, "--policy", "greedy", "--workers", workers, "--no-progress"], capsys
        )
        assert code == 0, err
        assert _body(out) == want


def test_cards_analyse_options(capsys: pytest.CaptureFixture[str]) -> None:
    """--view, --adaptive, --min-playouts and a policy per seat reach evaluate."""
    text = _position(seed=8, moves=6)
    result = evaluate(
        text,
        playouts=64,
        seed=1,
        workers=1,
        view="omniscient",
        adaptive=True,
        min_playouts=8,
        policy=["random", "greedy", "epsilon-greedy:0.3"],
    )
    argv = [
        *("cards", "analyse", text, "--playouts", "64", "--seed", "1", "--workers", "1"),
        *("--view", "omniscient", "--adaptive", "--min-playouts", "8", "--rows", "20"),
        *("--policy", "random", "greedy", "epsilon-greedy:0.3", "--no-progress"),
    ]
    code, out, err, _ = run(argv, capsys)
    assert code == 0, err
    assert _body(out) == _body(result.summary(rows=20))
    assert "omniscient view, adaptive: 8 to 64 playouts a move" in out


@pytest.mark.parametrize(
    ("extra", "command", "message"),
    [
        (["--policy", "mc:20"], "cards", "are the board game's policies"),
        (["--policy", "mcts:50"], "cards", "are the board game's policies"),
        (["--policy", "greedy", "random"], "cards", "one per seat"),
        (["--playouts", "0"], "cards analyse", "playouts"),
        (["--view", "god"], "cards analyse", "player"),
    ],
)
def test_cards_analyse_refuses_bad_arguments(
    extra: list[str], command: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad options are one line with status 2 (argparse's name the subcommand, the library's
    the command, as for the other card commands)."""
    code, out, err, _ = run(["cards", "analyse", _position(), *extra, "--no-progress"], capsys)
    assert code == 2 and out == ""
    assert message in assert_one_line(err, command)


def test_each_game_its_own_command(capsys: pytest.CaptureFixture[str]) -> None:
    """A board position is refused by genial cards analyse and a card position by genial
    analyse, each saying which command reads it; a text that is neither says what is wrong."""
    board = genial.Game(2, seed=1).to_text()
    code, _, err, _ = run(["cards", "analyse", board, "--no-progress"], capsys)
    assert code == 2 and "genial analyse" in assert_one_line(err, "cards")
    code, _, err, _ = run(["analyse", _position(), "--no-progress"], capsys)
    assert code == 2 and "genial cards analyse" in assert_one_line(err, "analyse")
    code, _, err, _ = run(["cards", "analyse", "c3 nonsense", "--no-progress"], capsys)
    assert code == 2 and "12 fields" in assert_one_line(err, "cards")
    over = CardGame(2, seed=4)
    while not over.is_over:
        over.play(over.choose("greedy"))
    code, _, err, _ = run(["cards", "analyse", over.to_text(), "--no-progress"], capsys)
    assert code == 2 and "over" in assert_one_line(err, "cards")


def test_cards_help_lists_analyse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--help"]) == 0
    assert "analyse" in capsys.readouterr().out
    assert main(["cards", "analyse", "--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--playouts", "--view", "--adaptive", "--min-playouts", "--policy", "--seed"):
        assert option in text
    assert "hands, deck and discard pile" in " ".join(text.split())
