"""A third game proves the plug-in API (issue 18): the toy game of ``tests/toy`` (Pig, a dice
race), registered by the ``toy_game`` fixture through ``genial.registry.register`` alone, with no
line of ``src/genial`` knowing it, passes the conformance contract and runs in every layer.

A layer that cannot take it yet without an edit to ``src/genial`` has its test marked
``xfail(strict=True)`` with what the layer lacks: when the layer learns, the test passes, the
strict marker fails the run, and the marker goes.
"""

from __future__ import annotations

import html
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import genial
from genial import GenialError
from genial.batch import Scheduler
from genial.errors import IllegalMoveError, PositionError, RecordError, RulesError
from genial.registry import GameEntry, entry, entry_of, games, make, register, unregister

from .conformance import DEFAULT_BAD_INPUTS, check_game, check_pickling, check_random_games
from .processes import genial_env
from .toy import GAME, ToyGame, ToyMove, ToyPosition, ToyRules
from .toy.rules import MOVE_CAP, toy_rules

pytestmark = pytest.mark.usefixtures("toy_game")

SEED = 20261202
TOKENS = ("pig2", "pig3", "pig4-20", "pig2-5")

# near misses of the toy's move texts, rejected in every position
BAD_INPUTS = (
    *DEFAULT_BAD_INPUTS,
    "Roll",
    "HOLD",
    "roll ",
    " hold",
    "roll hold",
    "rollhold",
    "r",
    "h",
    "pass",
    "ToyMove(kind='roll')",
)


def maker(token: str) -> Any:
    rules = ToyRules.parse(token)
    return lambda seed: ToyGame(rules, seed=seed)


# -- the registry ----------------------------------------------------------------------------


def test_the_fixture_registers_the_toy(toy_game: GameEntry) -> None:
    assert toy_game is GAME
    assert games()[-1] == "toy" and entry("pig") is GAME
    assert entry_of(ToyRules(3)) is GAME and entry_of(ToyGame(2, seed=1)) is GAME
    assert entry_of(ToyGame(2, seed=1).to_record()) is GAME  # found by its record's format
    assert make("toy", "pig3", seed=1).rules == ToyRules(3)
    with pytest.raises(GenialError, match="registered already"):
        register(GAME)


def test_register_and_unregister_leave_the_registry_as_it_was() -> None:
    unregister("toy")
    try:
        assert "toy" not in games()
        with pytest.raises(GenialError, match="unknown game 'toy'"):
            entry("toy")
    finally:
        register(GAME)
    assert "toy" in games()


def test_a_distribution_declares_the_toy_through_the_entry_point_group(tmp_path: Path) -> None:
    """What another distribution does (docs/games.md): a ``genial.games`` entry point in its
    metadata, here a bare ``.dist-info`` on the path of a fresh interpreter, and the registry
    finds the game with no ``register()`` call, after the library's own games."""
    info = tmp_path / "genial_toy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: genial-toy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[genial.games]\ntoy = tests.toy.entry:GAME\n")
    env = genial_env()
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, str(tmp_path), env["PYTHONPATH"]])
    script = (
        "import genial\n"
        "print(genial.games())\n"
        "runs = genial.simulate(5, game='toy', seed=1)\n"
        "print(runs.spec.game, len(runs))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["('board', 'cards', 'toy')", "toy 5"]


# -- the conformance contract ----------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
def test_conformance(token: str) -> None:
    """The whole contract of ``tests/conformance.py`` at every step of random games."""
    summary = check_random_games(
        maker(token), games=4, seed=SEED, bad_inputs=BAD_INPUTS, error=GenialError, pickling=False
    )
    assert summary.games == summary.finished == 4
    assert summary.steps > 2 * 4 and summary.rejected > 0 and summary.max_legal == 2


@pytest.mark.parametrize("token", TOKENS)
def test_conformance_pickling(token: str) -> None:
    summary = check_pickling(maker(token), games=2, seed=SEED)
    assert summary.finished == 2 and summary.pickled >= 4  # (a short race ends before step 1..24)


def test_conformance_of_a_greedy_player_and_a_long_game() -> None:
    """Greedy choices (the contract's ``choose``) and a race long enough to hit the move cap."""
    rng = np.random.default_rng(0)

    def greedy(game: ToyGame, moves: list[ToyMove], _: Any) -> ToyMove:
        return game.choose("greedy", rng=rng)

    check_game(maker("pig2"), 3, bad_inputs=BAD_INPUTS, error=GenialError, choose=greedy)

    def never_hold(game: ToyGame, moves: list[ToyMove], _: Any) -> ToyMove:
        return moves[0]  # roll, always: nobody banks a point, the cap ends the game

    summary = check_game(maker("pig3"), 5, error=GenialError, choose=never_hold, rejects_per_step=2)
    assert summary.steps == MOVE_CAP


# -- the game's own checks -------------------------------------------------------------------


def test_texts_records_and_errors() -> None:
    game = ToyGame("pig3-50", seed=7)
    for _ in range(12):
        game.play(game.choose("epsilon-greedy", rng=np.random.default_rng(len(game.moves))))
    text, record = game.to_text(), game.to_record()
    assert ToyGame.from_text(text) == game and ToyPosition.parse(text).to_text() == text
    assert ToyGame.from_record(json.loads(json.dumps(record))).to_record() == record
    assert pickle.loads(pickle.dumps(game)).to_text() == text
    with pytest.raises(PositionError):
        ToyGame.from_text(text.replace("pig3-50", "pig2-50"))  # three scores for two seats
    with pytest.raises(PositionError):
        ToyPosition.parse("pig2 | 30 31 | seat 0 | total 0 | move 9")  # two winners
    with pytest.raises(PositionError):
        ToyPosition.parse("pig2 | 30 3 | seat 0 | total 4 | move 9")  # over, with a turn total
    with pytest.raises(PositionError):
        ToyPosition.parse("pig2 | 07 3 | seat 0 | total 4 | move 9")  # not canonical
    bad = json.loads(json.dumps(record))
    roll = next(m for m in bad["moves"] if m["move"] == "roll")
    pips = roll["draws"]
    for value in (["0"], ["7"], [3], ["3", "4"], [], ["3 "], None):
        roll["draws"] = value
        with pytest.raises(RecordError):
            ToyGame.from_record(bad)
    roll["draws"] = pips
    hold = next(m for m in bad["moves"] if m["move"] == "hold")
    hold["draws"] = ["3"]
    with pytest.raises(RecordError):
        ToyGame.from_record(bad)
    with pytest.raises(RulesError):
        ToyGame(5)
    with pytest.raises(RulesError, match="disagree"):
        toy_rules(2, rules="pig3")
    with pytest.raises(RulesError):
        ToyRules.parse("pig2-0")
    with pytest.raises(IllegalMoveError):
        ToyGame(2, seed=1).play("hold")  # nothing to bank yet
    assert game.to_text() == text


def test_moves_made_anew_and_unpickled_games_play_and_undo_alike() -> None:
    """A move object made anew (``ToyMove("roll")``) is the move of ``legal_moves()``, and a
    game unpickled walks back through its rolls (the dice counted back)."""
    game, other = ToyGame(2, seed=8), ToyGame(2, seed=8)
    for _ in range(6):
        game.play(ToyMove("roll") if game.current_player == 0 else "roll")
        other.play("roll")
    assert game.to_record() == other.to_record()
    clone = pickle.loads(pickle.dumps(game))
    assert clone.moves[0] is ToyMove.parse("roll")
    for _ in range(6):
        clone.undo()
    for _ in range(6):
        clone.play("roll")
    assert clone.to_record() == game.to_record()


def test_the_dice_come_from_the_seed() -> None:
    def rolls(seed: Any) -> list[int]:
        game = ToyGame(2, seed=seed)
        for _ in range(30):
            game.play("roll")
        return [int(m["draws"][0]) for m in game.to_record()["moves"]]

    assert rolls(1) == rolls(1) != rolls(2)
    assert set(rolls([3, 4])) <= set(range(1, 7))


# -- simulate ---------------------------------------------------------------------------------


def test_simulate_rows_replays_and_records() -> None:
    runs = genial.simulate(60, game="toy", policy=("greedy", "random"), seed=3, records=True)
    assert runs.spec.game == "toy" and runs.rules == ToyRules(2) and len(runs) == 60
    assert runs.rows.dtype == GAME.adapter.row_dtype
    assert runs.policies == ("greedy", "random")
    ranks = runs.ranks
    assert ranks.shape == (60, 2)
    winner = runs.winner
    assert ((winner == -1) | (ranks[np.arange(60), winner.clip(0)] == 0)).all()
    assert (runs.column("points")[:, :2].max(axis=1) >= 30).all()  # no truncated race here
    assert (winner == 0).mean() > 0.5  # greedy beats random
    for row in (0, 17, 59):
        record = runs.record(row)
        game = ToyGame.from_record(record)
        assert runs.replay(row) == game and game.is_over
        assert game.ranks().tolist() == ranks[row].tolist()
        assert len(game.moves) == runs.column("moves")[row]
    assert runs.records == [runs.record(i) for i in range(60)]
    with pytest.raises(GenialError, match="no column 'scores' in the toy game's results"):
        runs.column("scores")


def test_simulate_is_the_same_whatever_the_workers() -> None:
    one = genial.simulate(1500, game="toy", policy="epsilon-greedy", seed=11, backend="serial")
    two = genial.simulate(1500, game="toy", policy="epsilon-greedy", seed=11, workers=2)
    other = genial.simulate(1500, game="toy", policy="epsilon-greedy", seed=12, workers=2)
    assert one.rows.tobytes() == two.rows.tobytes() != other.rows.tobytes()
    assert np.array_equal(one.game, np.arange(1500))


def test_simulate_from_a_position_and_with_other_rules() -> None:
    start = "pig3-20 | 19 0 4 | seat 1 | total 0 | move 12"
    runs = genial.simulate(40, rules="pig3-20", game="toy", start=start, seed=1, records=True)
    assert runs.start == start and runs.players == 3
    record = runs.record(5)
    assert record["start"] == start and ToyGame.from_record(record).moves
    assert genial.simulate(5, rules=ToyRules(4), game="pig", seed=1).players == 4  # its alias


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"rules": 5}, RulesError, "players must be an int from 2 to 4"),
        ({"rules": "pig9"}, RulesError, "toy rules are"),
        ({"rules": 2.0}, GenialError, r"rules.* 2\.0"),
        ({"policy": "mc:10"}, GenialError, "are the board game's policies"),
        ({"policy": ("greedy",) * 3}, GenialError, "one policy or one per seat"),
        ({"start": "pig3 | 0 0 0 | seat 0 | total 0 | move 0"}, GenialError, "not of ToyRules"),
        ({"start": "pig2 | 30 3 | seat 1 | total 0 | move 40"}, GenialError, "already over"),
        ({"start": "pig2 | 3 0"}, PositionError, "not a toy position"),
        ({"start": 7}, GenialError, "a ToyGame or a position text"),
        ({"options": {"openings": ["roll"]}}, GenialError, "not one of the toy game's options"),
        ({"options": {"epsilon": 2.0}}, GenialError, "epsilon"),
    ],
)
def test_simulate_refuses_wrong_arguments(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        genial.simulate(3, game="toy", seed=1, **kwargs)


def test_simulate_refuses_the_board_games_variants_for_the_toy() -> None:
    """The deprecated keywords of genial 0.2 (``teams=``) name the board game's variants: a
    game whose rules have no such keyword refuses them."""
    with (
        pytest.warns(DeprecationWarning, match="teams"),
        pytest.raises(GenialError, match="teams: not keywords of the toy game's rules"),
    ):
        genial.simulate(3, game="toy", seed=1, teams=True)  # type: ignore[call-overload]


def test_simulate_to_a_dataset_and_open_it(tmp_path: Any) -> None:
    pytest.importorskip("pyarrow")
    from genial.batch import open_dataset

    out = tmp_path / "toy"
    written = genial.simulate(
        50, rules="pig3", game="toy", seed=5, records=True, out=out, workers=2
    )
    runs = genial.simulate(50, rules="pig3", game="toy", seed=5, records=True)
    opened = open_dataset(out)
    opened.verify()
    assert opened.game == written.game == "toy" and opened.rules == ToyRules(3)
    assert opened.complete and opened.games == 50
    back = opened.to_playouts()
    assert back.rows.tobytes() == runs.rows.tobytes()
    assert back.record(7) == runs.record(7)
    assert "points_2" in opened.to_arrow().column_names


def test_simulate_on_a_dask_cluster() -> None:
    """Worker processes know the toy once it is registered there too: a game registered with
    ``register()`` lives in one process (an entry-point game is found by every worker)."""
    distributed = pytest.importorskip("distributed")
    serial = genial.simulate(40, game="toy", policy="greedy", seed=9, records=True)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        client.run(_register_toy)
        dask = genial.simulate(
            40, game="toy", policy="greedy", seed=9, records=True, backend=Scheduler(client)
        )
    assert dask.rows.tobytes() == serial.rows.tobytes()
    assert dask.record(3) == serial.record(3)


def _register_toy() -> None:
    """Run on a Dask worker: register the toy there (once)."""
    if "toy" not in games():
        register(GAME)


# -- the layers above: summaries, analyses, arenas, the command line, environments, replays ---


def test_summary() -> None:
    """A game without colour scores gets the win rates, intervals and lengths."""
    runs = genial.simulate(200, game="toy", policy=("greedy", "random"), seed=2)
    summary = runs.summary()
    assert summary.games == 200 and summary.colours == 0
    assert summary.wins.sum() + summary.shared_first == 200
    assert summary.win_rate[0] > 0.5 and summary.win_rate_lo[0] < summary.win_rate[0]
    assert summary.mean_plays == runs.column("moves").mean()
    text = str(summary)
    assert text.startswith("200 games, rules pig2") and "greedy" in text and "lowest" not in text
    with pytest.raises(GenialError, match="no colour scores"):
        _ = runs.lowest


def test_to_pandas() -> None:
    pytest.importorskip("pandas")
    runs = genial.simulate(10, game="toy", seed=2)
    frame = runs.to_pandas()
    assert len(frame) == 20 and "score_R" not in frame and "lowest" not in frame
    assert frame["points"].tolist() == runs.column("points").reshape(-1).tolist()
    assert frame["won"].sum() == (runs.winner >= 0).sum()


def test_evaluate() -> None:
    """``evaluate`` plays a game without a kernel out through the game's own verbs: the same
    table whatever the workers, the game left as it was."""
    from genial.analysis import PLAYOUT_VERBS, evaluate
    from genial.render.html import evaluation_html

    assert all(hasattr(ToyGame, verb) for verb in PLAYOUT_VERBS)
    game = ToyGame(2, seed=1)
    game.play("roll")
    result = evaluate(game, playouts=40, seed=1, workers=1)
    assert len(result.rows) == len(game.legal_moves()) and result.phase == "move"
    # holding 25 + 5 reaches the target: every playout of hold is a win, roll's are not
    text = "pig2 | 25 20 | seat 0 | total 5 | move 30"
    near = ToyGame.from_text(text, seed=1)
    one = evaluate(near, playouts=200, seed=3, workers=1)
    two = evaluate(near, playouts=200, seed=3, workers=2)
    assert one.rows == two.rows != evaluate(near, playouts=200, seed=4, workers=1).rows
    assert near.to_text() == text and near.moves == []
    hold, roll = one.rows
    assert one.best is ToyMove.parse("hold") and (hold["move"], roll["move"]) == ("hold", "roll")
    assert hold["wins"] == hold["playouts"] == 200 and hold["lowest"] == 30 and hold["rank"] == 0
    assert 0 < roll["wins"] < 200 and roll["points"] == hold["points"] == 0
    assert one.seat == 0 and one.policy == ("greedy", "greedy") and one.total_playouts == 400
    assert "seat 0 to move" in str(one) and evaluation_html(one).count("<tr>") == 4
    assert evaluate(ToyPosition.parse(text), playouts=200, seed=3, workers=1).rows == one.rows
    only = evaluate(near, playouts=10, seed=1, moves=["roll", 1, ToyMove("roll")], workers=1)
    assert sorted(r["move"] for r in only.rows) == ["hold", "roll"] and only.total_playouts == 20
    assert [r["move"] for r in evaluate(near, playouts=5, moves=[0], workers=1).rows] == ["roll"]
    greedy = evaluate(near, playouts=50, policy=("greedy", "epsilon-greedy:0.3"), seed=1)
    assert greedy.policy == ("greedy", "epsilon-greedy:0.3")
    halving = evaluate(near, playouts=64, min_playouts=16, adaptive=True, seed=1, workers=1)
    counts = [r["playouts"] for r in halving.rows]  # roll dropped only once its bound parts
    assert counts[0] == 64 and 16 <= counts[1] <= 64 and str(halving.best) == "hold"
    with pytest.raises(GenialError, match="moves: 'pass' is not legal here"):
        evaluate(near, playouts=10, moves=["pass"])
    with pytest.raises(GenialError, match="moves: 'hold' is not legal here"):
        evaluate(ToyGame(2, seed=1), playouts=10, moves=["hold"])
    with pytest.raises(GenialError, match="are the board game's policies"):
        evaluate(near, playouts=10, policy="mc:10")
    with pytest.raises(GenialError, match="the game is over"):
        evaluate(ToyGame.from_text("pig2 | 30 20 | seat 1 | total 0 | move 30"), playouts=10)


def test_arena() -> None:
    from genial.arena import arena

    result = arena(["greedy", "random"], games=20, seed=1, workers=1, game="toy", bootstrap=0)
    assert result.games == 40 and result.elo[0] > result.elo[1]
    assert result.played.tolist() == [40, 40] and np.isnan(result.lowest).all()  # no colours
    assert result.first.sum() + (result.ties[0, 1]) == 40  # a first place in every untied game
    again = arena(["greedy", "random"], games=20, seed=1, workers=2, game="pig", bootstrap=0)
    assert np.array_equal(again.wins, result.wins) and np.array_equal(again.ties, result.ties)
    three = arena(
        ["greedy", "random", "epsilon-greedy"], games=4, players=3, seed=2, game="toy", bootstrap=9
    )
    assert three.games == 12 and three.rules == ToyRules(3) and three.meetings[0, 1] == 12
    assert "lowest" not in str(three) and "–" in three._repr_html_()


def test_command_line_analyse_arena_and_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line's verbs that need no ``Playouts.summary()``: ``analyse`` and ``arena``
    with ``--game toy``, and ``replay`` of a toy record (the game its format names)."""
    from genial.cli import main

    text = "pig2 | 25 20 | seat 0 | total 5 | move 30"
    assert main(["analyse", "--game", "toy", text, "--playouts", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 to move, rules pig2" in out and out.index("hold") < out.index("roll")
    arena_args = ["--policy", "greedy", "random", "--games", "5", "--seed", "1", "--no-progress"]
    assert main(["arena", "--game", "pig", *arena_args]) == 0
    assert "5 deals, 10 games" in capsys.readouterr().out
    game = ToyGame(2, seed=4)
    while not game.is_over:
        game.play(game.choose("greedy"))
    record, page = tmp_path / "toy.json", tmp_path / "toy.html"
    record.write_text(json.dumps(game.to_record()))
    assert main(["replay", str(record), "--html", str(page)]) == 0
    assert f"replay of {len(game.moves)} moves" in capsys.readouterr().out
    assert page.read_text().count("<li data-step=") == len(game.moves) + 1


def test_command_line_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    from genial.cli import main

    code = main(["simulate", "--game", "toy", "--games", "20", "--seed", "1", "--no-progress"])
    assert code == 0 and "20 games" in capsys.readouterr().out


def test_the_toy_observer() -> None:
    """The toy's part of an environment (``tests/toy/observer.py``, the protocol of the board
    and card games' observers), driven here by hand as an environment would."""
    from .toy.observer import ToyObserver

    watch = ToyObserver(3, max_turns=50)
    assert watch.rules == ToyRules(3) and watch.action_size == 2
    layout, size = {"points": slice(0, 3), "total": slice(3, 4)}, 10
    assert watch.high(layout, size).tolist() == [127] * 4 + [1] * 6
    game = watch.start(np.random.SeedSequence(4), None)
    rng = np.random.default_rng(0)
    while not (game.is_over or watch.truncated(game)):
        seen = watch.observation(game, 1)
        assert seen.dtype == np.int8 and len(seen) == size and seen[4:7].tolist() == [0, 1, 0]
        assert seen[7 + game.current_player] == 1
        action = int(rng.choice(game.legal_actions()))
        game.play(action)
        watch.played(game, action)
    rewards = watch.final(game, lambda ranks: [float(-r) for r in ranks])
    assert rewards == [float(-r) for r in game.ranks()]
    with pytest.raises(GenialError, match="this environment plays pig3"):
        watch.start(np.random.SeedSequence(1), "pig2 | 0 0 | seat 0 | total 0 | move 0")
    with pytest.raises(GenialError, match="max_turns"):
        ToyObserver(2, max_turns=0)


def test_pettingzoo_environment() -> None:
    pytest.importorskip("pettingzoo")
    from genial.integrations.pettingzoo import raw_env

    env = raw_env("toy", players=2)
    env.reset(seed=1)
    assert env.action_space("player_0").n == 2
    rng = np.random.default_rng(0)
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert isinstance(env.unwrapped.game, ToyGame)
    assert sorted(env.unwrapped.final_rewards) == [-1.0, 1.0]


def test_replay_page() -> None:
    from genial.render.html import replay_html

    game = ToyGame(2, seed=4)
    while not game.is_over:
        game.play(game.choose("greedy", rng=np.random.default_rng(len(game.moves))))
    page = replay_html(game.to_record())
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<li data-step=") == len(game.moves) + 1
    # no picture of its own: each step its text, the scores one column a seat, no lowest
    data = json.loads(re.search(r'id="genial-data">(.*?)</script>', page).group(1))
    assert data["lowest"] is False and len(data["steps"]) == len(game.moves) + 1
    assert data["steps"][0]["scores"] == [[0], [0]]
    assert data["steps"][-1]["scores"] == [[int(v)] for v in game.scores]
    assert data["steps"][-1]["status"] == f"game over: player {game.position.winner} wins"
    assert '<th title="score">score</th></tr>' in page and "<th>low</th>" not in page
    last = html.escape(str(game).splitlines()[-1])
    assert last in data["fragments"][data["steps"][-1]["panels"][0]]
    held = next(
        i
        for i, m in enumerate(game.moves)
        if str(m) == "hold" and data["steps"][i]["scores"] != data["steps"][i + 1]["scores"]
    )
    assert "(+" in data["steps"][held + 1]["said"] and " score)" in data["steps"][held + 1]["said"]
