"""Every game of the library passes the game-agnostic contract of ``tests/conformance.py`` (random
games checked at every step), and the board game's move generator matches the golden perft file
``tests/fixtures/perft_board.json`` (``python tests/fixtures/make_perft.py`` regenerates it).

To add a game, add one entry to ``GAMES``: a name and ``make(seed)`` returning a fresh game.
Uniformly random play never reaches some rules of the board game (bonus plays, counters at the
cap), so its games are also played by a score-seeking chooser (``SEEKERS``, optional per game).
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genial import Game, GenialError, Rules
from genial.cards import CardGame

from .conformance import DEFAULT_BAD_INPUTS, check_pickling, check_random_games

BOARD_RULES = ("1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t")


def board(token: str) -> Callable[[int], Game]:
    """``make(seed)`` for the board game under the rules ``token``."""
    rules = Rules.parse(token)

    def make(seed: int) -> Game:
        return Game(rules=rules, seed=seed)

    return make


def cards(players: int) -> Callable[[int], CardGame]:
    """``make(seed)`` for the card game with ``players`` players."""

    def make(seed: int) -> CardGame:
        return CardGame(players, seed=seed)

    return make


CARD_PLAYERS = (2, 3, 4)

GAMES: dict[str, Callable[[int], Any]] = {
    **{f"board-{token}": board(token) for token in BOARD_RULES},
    **{f"cards-{n}": cards(n) for n in CARD_PLAYERS},
}


class Seeker:
    """Score-seeking move choice for the board game, through its public ``gains()`` only: with
    probability 3/4 the placement of highest total gain among up to 150 sampled legal moves
    (ties at random), else a uniformly random move. Counts the decisions it saw, to prove the
    games reached bonus plays, swap decisions and counters at 18."""

    def __init__(self) -> None:
        self.bonus = self.swap = self.at_cap = 0

    def __call__(self, game: Game, moves: list[Any], rng: random.Random) -> Any:
        self.bonus += game.bonus_plays > 0
        self.swap += game.phase == "swap"
        self.at_cap += bool((game.scores >= 18).any())  # the cap, or the crossing (solo, teams)
        if moves[0].kind != "place" or rng.random() < 0.25:
            return rng.choice(moves)
        sample = moves if len(moves) <= 150 else rng.sample(moves, 150)
        return max(sample, key=lambda m: (sum(game.gains(m)), rng.random()))


class CardSeeker:
    """Score-seeking move choice for the card game, through its public ``gains()`` only: with
    probability 3/4 the play advancing the mover's markers most (ties at random), else a
    uniformly random move (the swap decision always at random). Counts the decisions it saw, to
    prove the games reached bonus turns, swap decisions and markers at 10."""

    def __init__(self) -> None:
        self.bonus = self.swap = self.at_cap = 0

    def __call__(self, game: CardGame, moves: list[Any], rng: random.Random) -> Any:
        self.bonus += game.bonus_turns > 0
        self.swap += game.phase == "swap"
        self.at_cap += bool((game.scores >= 10).any())
        if moves[0].kind != "play" or rng.random() < 0.25:
            return rng.choice(moves)
        return max(moves, key=lambda m: (sum(game.gains(m)), rng.random()))


SEEKERS: dict[str, Callable[[], Seeker | CardSeeker]] = {
    **{f"board-{token}": Seeker for token in BOARD_RULES},
    **{f"cards-{n}": CardSeeker for n in CARD_PLAYERS},
}

GAMES_PER_RULES = 3
SEED = 20240601

# Near misses of the board notation, rejected whatever the position (with the generic garbage):
# extra or missing halves, a printed symbol, the same cell twice, cells apart or off the board,
# an unknown colour, a decision with trailing text, a Move-like repr.
BAD_INPUTS = (
    *DEFAULT_BAD_INPUTS,
    "R0,0",
    "R0,0+",
    "+R0,0",
    "R0,0+B1,0+G2,0",
    "R0,-5+R1,-5",
    "R0,0+R0,0",
    "R0,0+B2,0",
    "R8,0+B9,0",
    "R99999999999999999999,0+B1,0",
    "X0,0+B1,0",
    "R0,0+B1,0x",
    "swap!",
    "keep keep",
    "Move.parse('swap')",
)
# Near misses of the card notation (rejected by both games): a card of one colour, one letter
# or three, an unknown letter, spaces or signs inside, a move and a decision together.
CARD_BAD_INPUTS = (
    *BAD_INPUTS,
    "RR",
    "pp",
    "R",
    "RGB",
    "RX",
    "XY",
    "R G",
    "RG+",
    "R-G",
    "RGswap",
    "ßR",
    "ＲＧ",
    "CardMove.parse('RG')",
)


def bad_inputs(name: str) -> tuple[Any, ...]:
    return CARD_BAD_INPUTS if name.startswith("cards-") else BAD_INPUTS


@pytest.mark.parametrize("name", GAMES)
def test_random_games(name: str) -> None:
    """The whole contract but pickling (its own test below), at every step of random games."""
    summary = check_random_games(
        GAMES[name],
        games=GAMES_PER_RULES,
        seed=SEED,
        bad_inputs=bad_inputs(name),
        error=GenialError,
        pickling=False,
    )
    assert summary.games == GAMES_PER_RULES
    assert summary.finished == GAMES_PER_RULES  # every game reached its end checks
    assert summary.steps > 10 * GAMES_PER_RULES
    assert summary.rejected > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in GAMES if name in SEEKERS])
def test_seeking_games(name: str) -> None:
    """The same contract on games played by a score-seeking chooser, which reach the rules that
    random play misses: bonus plays and counters at 18 (and swaps, except in the solo game)."""
    seeker = SEEKERS[name]()
    summary = check_random_games(
        GAMES[name],
        games=GAMES_PER_RULES,
        seed=SEED + 1,
        bad_inputs=bad_inputs(name),
        error=GenialError,
        pickling=False,
        choose=seeker,
    )
    assert summary.finished == GAMES_PER_RULES
    assert seeker.at_cap > 0
    if not name.startswith("board-1"):  # solo: no bonus plays, no swap (RULES §4.1)
        assert seeker.bonus > 0 and seeker.swap > 0


@pytest.mark.parametrize("name", GAMES)
def test_pickling(name: str) -> None:
    """An unpickled game is equal to the original and has the same future (same draws)."""
    summary = check_pickling(GAMES[name], games=2, seed=SEED)
    assert summary.finished == 2
    assert summary.pickled == 6


# ------------------------------------------------------------------------------------- perft
PERFT = Path(__file__).resolve().parent / "fixtures" / "perft_board.json"


def _perft_games() -> list[Any]:
    data = json.loads(PERFT.read_text())
    assert data["format"] == "genial-perft" and data["version"] == 1
    return [pytest.param(g, id=f"{g['rules']}-seed{g['seed']}") for g in data["games"]]


def _digest(actions: list[int]) -> str:
    return f"{zlib.crc32(np.asarray(actions, dtype='<i4').tobytes()):08x}"


def test_perft_covers_every_rules() -> None:
    assert {p.values[0]["rules"] for p in _perft_games()} == set(BOARD_RULES)


@pytest.mark.parametrize("golden", _perft_games())
def test_perft(golden: dict[str, Any]) -> None:
    """The legal moves of every step of a golden game match the file: replay its record (the
    draws come from it, not from a seed), walk it back with ``undo()`` collecting the sorted
    legal ids, then check the counts, their digests, and that ``random.Random(seed)`` over those
    ids chooses the recorded moves (the procedure of ``make_perft.py``)."""
    record = golden["record"]
    game = Game.from_record(record)
    assert str(game.rules) == golden["rules"]
    assert game.is_over
    steps = [sorted(int(a) for a in game.legal_actions())]
    played = []
    for _ in record["moves"]:
        played.append(game.undo().action)
        steps.append(sorted(int(a) for a in game.legal_actions()))
    steps.reverse()
    played.reverse()
    assert game.to_text() == record["start"]

    counts = [len(ids) for ids in steps]
    if counts != golden["counts"]:
        i = next(
            i for i, (a, b) in enumerate(zip(counts, golden["counts"], strict=False)) if a != b
        )
        pytest.fail(
            f"legal-move counts differ from step {i} on: {counts[i : i + 5]} != "
            f"{golden['counts'][i : i + 5]} (move {i}: {record['moves'][i]['move']})"
        )
    digests = [_digest(ids) for ids in steps]
    if digests != golden["digests"]:
        i = next(
            i for i, (a, b) in enumerate(zip(digests, golden["digests"], strict=False)) if a != b
        )
        pytest.fail(f"the set of legal moves differs at step {i} (same count {counts[i]})")
    rng = random.Random(golden["seed"])
    assert [rng.choice(ids) for ids in steps[:-1]] == played
