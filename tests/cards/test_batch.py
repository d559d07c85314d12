"""Card-game batches (``genial.simulate(..., game="cards")``): the same arrays whatever the
workers, records that replay to the batch's rows, every column of a row recounted by stepping
the game by hand, per-seat and epsilon-greedy policies (statistically), the turn cap (RULES §5.7
Decision) and the pandas / Parquet output. Colours: R G B O Y P = 0..5."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import genial
from genial.batch import Playouts
from genial.cards import CardGame, CardMove, CardPosition, CardRules
from genial.cards._kernel import ROW_DTYPE

COLUMNS: tuple[str, ...] = ROW_DTYPE.names or ()
"""Every field of a batch row: scores ranks winner instant truncated turns plays bonus swaps
reshuffles."""


def cards(n: int, rules: Any = "c3", **options: Any) -> Playouts:
    runs: Playouts = genial.simulate(n, rules, game="cards", **options)
    return runs


def assert_identical(a: Playouts, b: Playouts) -> None:
    """Every column of the two batches, and their game numbers, are equal."""
    assert len(a) == len(b)
    for name in COLUMNS:
        assert np.array_equal(a.rows[name], b.rows[name]), name
    assert np.array_equal(a.game, b.game)


def test_the_row_has_the_columns_this_file_checks() -> None:
    """The columns recounted below (a new column needs a check of its own here)."""
    assert set(COLUMNS) == {
        *("scores", "ranks", "winner", "instant", "truncated", "turns"),
        *("plays", "bonus", "swaps", "reshuffles"),
    }


# -- workers and seeds ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_same_seed_gives_the_same_games_whatever_the_workers(players: int) -> None:
    """2,500 games span three seed chunks of 1,024 (``genial.batch.spec.CHUNK``), so two
    workers and all cores really split the work; the arrays are the same, column by column."""
    rules = CardRules(players)
    policy = ["greedy", "random", "epsilon-greedy:0.3", "random"][:players]
    one = cards(2500, rules, policy=policy, seed=77, workers=1)
    assert len(one) == 2500 and one.rules == rules
    for workers in (2, -1):
        assert_identical(one, cards(2500, rules, policy=policy, seed=77, workers=workers))
    # a different seed gives other games (2,500 games equal by chance: impossible)
    other = cards(2500, rules, policy=policy, seed=78, workers=1)
    assert not np.array_equal(one.rows["scores"], other.rows["scores"])
    assert not np.array_equal(one.rows["turns"], other.rows["turns"])
    # and the same seed twice in one worker is the same again
    assert_identical(one, cards(2500, rules, policy=policy, seed=77))


def test_the_logs_do_not_depend_on_the_workers() -> None:
    one = cards(1100, "c2", seed=5, records=True, workers=1)
    two = cards(1100, "c2", seed=5, records=True, workers=2)
    assert one.logs is not None and two.logs is not None
    assert_identical(one, two)
    assert np.array_equal(one.logs, two.logs)


# -- records ------------------------------------------------------------------------------------


def expected_winner(game: CardGame) -> int:
    """The row's ``winner``: the instant winner or the seat ranked first alone, else -1."""
    winner = game.winner()
    return -1 if winner is None else winner


def check_row(runs: Playouts, row: int, game: CardGame) -> None:
    """The finished ``game`` is the game of ``row``: markers, ranks, turns, winner, end."""
    p = runs.players
    assert game.is_over, row
    assert game.scores.tolist() == runs.scores[row].tolist(), row
    assert game.ranks().tolist() == runs.ranks[row].tolist(), row
    assert game.turn == int(runs.turns[row]), row
    assert expected_winner(game) == int(runs.winner[row]), row
    assert game.truncated == bool(runs.truncated[row]), row
    assert (game.position.winner is not None) == bool(runs.column("instant")[row]), row
    assert runs.rows["scores"][row, p:].sum() == 0  # seats beyond the game are zero
    assert game.stats()["plays"] == runs.column("plays")[row].tolist(), row


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_record_replays_to_its_row(players: int) -> None:
    """``records=True``: each game's record starts from its deal and ``CardGame.from_record``
    replays it to the row's final markers, ranks, turns, winner and end."""
    runs = cards(80, CardRules(players), policy="epsilon-greedy:0.5", seed=players, records=True)
    records = runs.records
    assert records is not None and len(records) == 80
    for row, record in enumerate(records):
        start = CardPosition.parse(record["start"])  # a fresh deal (RULES §5.2)
        assert start.rules == CardRules(players) and start.turn == 1
        assert start.markers == ((0,) * 6,) * players
        # a record is JSON and replays from its JSON text
        game = CardGame.from_record(json.loads(json.dumps(record)))
        check_row(runs, row, game)
        assert game.to_record() == record
    # replay(row) replays from the seed alone, and record(row) is records[row]
    for row in (0, 41, 79):
        assert runs.replay(row) == CardGame.from_record(records[row])
        assert runs.record(row) == records[row]


def _position_in_swap_phase() -> CardGame:
    """A real game stopped at a swap decision (RULES §5.5): greedy swaps whenever allowed."""
    for seed in range(200):
        game = CardGame(3, seed=seed)
        while not game.is_over and game.phase != "swap":
            game.play(game.choose("greedy"))
        if game.phase == "swap":
            return game
    raise AssertionError("no greedy game of 200 reached a swap decision")  # pragma: no cover


def _position_mid_game() -> CardGame:
    game = CardGame(3, seed=9)
    for _ in range(25):
        game.play(game.choose("random"))
    assert not game.is_over
    return game


@pytest.mark.parametrize("where", ["mid-game", "swap phase"])
def test_records_of_a_batch_from_a_start_position(where: str) -> None:
    """``start=`` a position text (in the middle of a game, or at a swap decision): every game
    begins there, its record starts from that text, and with two workers (1,100 games: two seed
    chunks) it is the same batch as with one; records from both chunks replay to their rows."""
    start = _position_mid_game() if where == "mid-game" else _position_in_swap_phase()
    text = start.to_text()
    assert start.phase == ("swap" if where == "swap phase" else "play")
    two = cards(1100, "c3", start=text, policy="random", seed=3, workers=2, records=True)
    one = cards(1100, "c3", start=text, policy="random", seed=3, workers=1, records=True)
    assert_identical(one, two)
    assert one.logs is not None and two.logs is not None
    assert np.array_equal(one.logs, two.logs)
    assert (two.turns >= start.turn).all()
    first_moves = set()
    for row in [*range(30), *range(1024, 1054)]:
        record = two.record(row)
        assert record["start"] == text
        first_moves.add(record["moves"][0]["move"])
        check_row(two, row, CardGame.from_record(record))
    if where == "swap phase":  # the first decision is the swap's: random takes both
        assert first_moves == {"swap", "keep"}
    else:
        assert first_moves <= {str(m) for m in start.legal_moves()}
    # a CardGame as the start is the same as its text
    assert_identical(two, cards(1100, "c3", start=start, policy="random", seed=3, workers=2))


# -- every column, recounted by hand ---------------------------------------------------------------


def step_by_step(record: dict[str, Any]) -> dict[str, Any]:
    """Recount a record's game by stepping it: the positions before and after every move are
    recovered by replaying the whole record and taking the moves back one by one (``undo``
    restores the draws exactly). Returns the counts a batch row holds."""
    game = CardGame.from_record(record)
    final = game.position
    after = [final]
    for _ in record["moves"]:
        game.undo()
        after.append(game.position)
    positions = after[::-1]  # positions[i] is the one before move i
    assert positions[0] == CardPosition.parse(record["start"])
    n = final.rules.players
    plays, bonus, swaps = [0] * n, [0] * n, [0] * n
    reshuffles = 0
    for i, entry in enumerate(record["moves"]):
        before, now = positions[i], positions[i + 1]
        seat = before.to_move
        move = CardMove.parse(entry["move"])
        if move.kind == "play":
            plays[seat] += 1
            bonus[seat] += before.bonus > 0  # a card played while a bonus turn is owed (§5.6)
        elif move.kind == "swap":
            swaps[seat] += 1
        # without a reshuffle the deck loses exactly the cards drawn; a reshuffle (RULES §5.3)
        # adds the discard pile (never empty when it happens) to what is left
        drawn = len(entry["draws"])
        if now.deck_size + drawn != before.deck_size:
            reshuffles += 1
            assert before.deck_size < drawn  # the deck ran out during these draws
            assert now.deck_size + drawn > before.deck_size
            assert now.discard_size == 0  # and the whole discard pile became the deck
    return {
        "plays": plays,
        "bonus": bonus,
        "swaps": swaps,
        "reshuffles": reshuffles,
        "instant": final.winner is not None,
        "truncated": final.phase == "over" and final.winner is None,
        "turns": final.turn,
        "scores": [list(m) for m in final.markers],
    }


@pytest.mark.parametrize(("players", "cap"), [(2, 33), (3, 52), (4, 55)])
def test_every_column_agrees_with_stepping_the_game(players: int, cap: int) -> None:
    """With the turn cap at the median length of these games about half of them stop at the cap
    and half are won (RULES §5.7);
    greedy, random and epsilon-greedy seats make bonus turns, swaps and reshuffles happen. Each
    row's per-seat plays, bonus plays and swaps, its reshuffles, instant win, truncation and
    turns are recounted from its record."""
    policy = ["greedy", "random", "epsilon-greedy:0.2", "greedy"][:players]
    runs = cards(120, CardRules(players, turn_cap=cap), policy=policy, seed=11, records=True)
    records = runs.records
    assert records is not None
    seen = dict.fromkeys(["bonus", "swaps", "reshuffles", "instant", "truncated"], 0)
    for row, record in enumerate(records):
        counted = step_by_step(record)
        assert counted["plays"] == runs.column("plays")[row].tolist(), row
        assert counted["bonus"] == runs.column("bonus")[row].tolist(), row
        assert counted["swaps"] == runs.swaps[row].tolist(), row
        assert counted["reshuffles"] == int(runs.column("reshuffles")[row]), row
        assert counted["instant"] == bool(runs.column("instant")[row]), row
        assert counted["truncated"] == bool(runs.truncated[row]), row
        assert counted["turns"] == int(runs.turns[row]), row
        assert counted["scores"] == runs.scores[row].tolist(), row
        assert counted["instant"] != counted["truncated"]  # every game ends one way (§5.7)
        for key in seen:
            value = counted[key]
            seen[key] += sum(value) if isinstance(value, list) else int(value)
    # the recount was not vacuous: every kind of event happened in the batch
    assert all(seen.values()), seen


# -- policies -----------------------------------------------------------------------------------


def se_of_rate(p: float, n: int) -> float:
    return float((p * (1 - p) / n) ** 0.5)


def test_a_greedy_seat_beats_two_random_seats() -> None:
    """``policy=["greedy", "random", "random"]``: the greedy seat 0 wins far more than its fair
    third. Under the null hypothesis (no better than a fair share) the win rate of 2,000 games
    has standard error sqrt(1/3 * 2/3 / 2000) = 0.0105; we ask for 1/3 + 10 standard errors
    (0.44). (Measured: greedy wins nearly every game against random seats.)"""
    n = 2000
    runs = cards(n, "c3", policy=["greedy", "random", "random"], seed=21, workers=2)
    assert runs.policies == ("greedy", "random", "random")
    rate = float((runs.winner == 0).mean())
    assert rate > 1 / 3 + 10 * se_of_rate(1 / 3, n), rate
    # its lowest marker is higher on average too (the victory-point measure of RULES §5.7)
    lowest = runs.lowest.astype(float)
    assert lowest[:, 0].mean() > lowest[:, 1].mean() + 0.5
    # the seats are the policies: swap the greedy seat to seat 2 and seat 2 wins instead
    moved = cards(n, "c3", policy=["random", "random", "greedy"], seed=21)
    assert float((moved.winner == 2).mean()) > 1 / 3 + 10 * se_of_rate(1 / 3, n)
    assert float((moved.winner == 0).mean()) < 1 / 3


def distribution(runs: Playouts) -> dict[str, tuple[float, float]]:
    """(mean, standard error of the mean) of a few statistics of a batch."""
    n = len(runs)
    values = {
        "seat 0 wins": (runs.winner == 0).astype(float),
        "turns": runs.turns.astype(float),
        "seat 0 lowest": runs.lowest[:, 0].astype(float),
        "swaps": runs.swaps.sum(axis=1).astype(float),
        "bonus plays": runs.column("bonus").sum(axis=1).astype(float),
    }
    return {k: (float(v.mean()), float(v.std(ddof=1)) / n**0.5) for k, v in values.items()}


def same_distribution(a: Playouts, b: Playouts, z: float = 5.0) -> list[str]:
    """The statistics whose means differ by more than ``z`` standard errors of the difference
    (two independent batches: sqrt(se_a^2 + se_b^2)); 5 standard errors over 5 statistics
    fail a correct implementation with probability about 3e-6."""
    da, db = distribution(a), distribution(b)
    out = []
    for key, (mean_a, se_a) in da.items():
        mean_b, se_b = db[key]
        if abs(mean_a - mean_b) > z * (se_a**2 + se_b**2) ** 0.5 + 1e-12:
            out.append(f"{key}: {mean_a:.3f} vs {mean_b:.3f}")
    return out


def test_epsilon_greedy_0_plays_like_greedy_and_1_like_random() -> None:
    """``epsilon-greedy:EPS`` takes a random move with probability EPS, else greedy's: at 0 it
    is greedy, at 1 random. The games differ one by one (the policy stream is drawn for the
    epsilon coin), so the check is on distributions: 4,000 independent games each (other seeds),
    five statistics, each within 5 standard errors of the difference (e.g. turns: sd 3.4 for
    greedy, 9.7 for random, so the standard error of the difference is 0.08 and 0.22). The same
    test tells greedy from random by far more than that (turns 50 vs 87), so it can fail."""
    n = 4000
    greedy = cards(n, "c3", policy="greedy", seed=31, workers=2)
    eps0 = cards(n, "c3", policy="epsilon-greedy:0", seed=32, workers=2)
    random = cards(n, "c3", policy="random", seed=33, workers=2)
    eps1 = cards(n, "c3", policy="epsilon-greedy:1", seed=34, workers=2)
    assert eps0.policies == ("epsilon-greedy:0",) * 3
    assert same_distribution(greedy, eps0) == []
    assert same_distribution(random, eps1) == []
    assert len(same_distribution(greedy, random)) >= 3
    assert len(same_distribution(eps0, eps1)) >= 3
    # epsilon-greedy:0 is not greedy game by game (its coin uses the policy stream)
    same_seed = cards(n, "c3", policy="epsilon-greedy:0", seed=31, workers=2)
    assert same_distribution(greedy, same_seed) == []
    # epsilon= names the epsilon of plain "epsilon-greedy" seats: the same batch
    eps = {"epsilon": 0}
    assert_identical(same_seed, cards(n, "c3", policy="epsilon-greedy", options=eps, seed=31))


def test_per_seat_epsilons_in_one_batch() -> None:
    """One batch with an epsilon-greedy:0 seat against two epsilon-greedy:1 seats is, seat for
    seat, greedy against random: seat 0 wins far more than its fair share (as in
    ``test_a_greedy_seat_beats_two_random_seats``, 1/3 + 10 standard errors)."""
    n = 2000
    policy = ["epsilon-greedy:0", "epsilon-greedy:1", "epsilon-greedy:1"]
    mixed = cards(n, "c3", policy=policy, seed=42)
    assert mixed.policies == tuple(policy)
    assert float((mixed.winner == 0).mean()) > 1 / 3 + 10 * se_of_rate(1 / 3, n)
    reference = cards(n, "c3", policy=["greedy", "random", "random"], seed=41)
    assert same_distribution(reference, mixed) == []


# -- the turn cap ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "turns_per_seat"), [(2, [3, 2]), (3, [2, 2, 1]), (4, [2, 1, 1, 1])]
)
def test_a_turn_cap_of_5_truncates_every_game(players: int, turns_per_seat: list[int]) -> None:
    """RULES §5.7 Decision: the game stops when turn 5, the cap, is done (its refill or swap):
    every game is truncated with ``turns == 5``. Nobody can win in five turns (six markers at 7
    take far more cards), and no bonus turn can happen: a marker reaches 10 only from the
    lowest area A2 (§5.4), and in two or three turns a seat moves at most 6 of its markers, a
    card's two colours each. So each seat plays exactly one card per turn it had: turns 1..5 go
    to seats 0, 1, ..., round and round."""
    token = f"c{players}:5"
    runs = cards(500, token, policy="greedy", seed=players, workers=2)
    assert str(runs.rules) == token and runs.rules == CardRules(players, turn_cap=5)
    assert runs.truncated.all() and (runs.turns == 5).all()
    assert not runs.column("instant").any()
    assert (runs.column("bonus") == 0).all()
    assert (runs.column("plays") == np.array(turns_per_seat)).all()
    assert runs.scores.max() <= 3  # every seat still has a marker at 0: limit 3 (§5.4)
    # the winner column: the seat ranked first alone, -1 if first place is shared
    for row in range(len(runs)):
        first = np.flatnonzero(runs.ranks[row] == 0)
        assert runs.winner[row] == (first[0] if len(first) == 1 else -1)
    # the rules object and the token are the same batch
    same = cards(500, CardRules(players, turn_cap=5), policy="greedy", seed=players)
    assert_identical(runs, same)


def test_a_game_from_the_batch_stops_at_the_cap_in_the_game_too() -> None:
    runs = cards(40, "c3:5", seed=8, records=True)
    for record in runs.records or []:
        game = CardGame.from_record(record)
        assert (game.is_over, game.truncated, game.turn) == (True, True, 5)
        assert game.to_text().split()[-5:] == ["x", "0", "5", "5", "-"]


# -- pandas and Parquet -----------------------------------------------------------------------


def test_pandas_has_one_row_per_game_and_seat() -> None:
    pytest.importorskip("pandas")
    runs = cards(60, "c4:60", policy=["greedy", "random", "epsilon-greedy:0.2", "random"], seed=4)
    frame = runs.to_pandas()
    n, p = len(runs), 4
    assert len(frame) == n * p
    assert list(frame.columns) == [
        *("game", "seat", "policy", "rank", "won"),
        *(f"score_{c}" for c in "RGBOYP"),
        *("lowest", "plays", "bonus", "swaps", "instant", "truncated", "turns", "reshuffles"),
    ]
    for g in range(n):
        for s in range(p):
            line = frame.iloc[g * p + s]
            assert (line["game"], line["seat"]) == (runs.game[g], s)
            assert line["policy"] == runs.policies[s]
            assert [line[f"score_{c}"] for c in "RGBOYP"] == runs.scores[g, s].tolist()
            assert line["lowest"] == min(runs.scores[g, s].tolist())
            assert line["rank"] == runs.ranks[g, s]
            assert line["won"] == (runs.winner[g] == s)
            for name in ("plays", "bonus", "swaps"):
                assert line[name] == runs.column(name)[g, s]
            for name in ("instant", "truncated", "turns", "reshuffles"):
                assert line[name] == runs.column(name)[g]
    assert frame["won"].sum() == (runs.winner >= 0).sum()


def test_parquet_round_trips_the_columns(tmp_path: Any) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    runs = cards(200, "c3", policy=["greedy", "random", "random"], seed=6)
    path = tmp_path / "cards.parquet"
    runs.to_parquet(path)
    back = pd.read_parquet(path)
    frame = runs.to_pandas()
    pd.testing.assert_frame_equal(back, frame)
    assert back["turns"].dtype == np.int16 and back["score_R"].dtype == np.uint8
    # the numbers survive, seat by seat (a sum over the whole frame would hide a swap)
    assert back.groupby("seat")["plays"].sum().tolist() == runs.column("plays").sum(0).tolist()
    assert np.array_equal(back["score_P"].to_numpy().reshape(200, 3), runs.scores[:, :, 5])
    attrs = pd.read_parquet(path).attrs
    if attrs:  # pandas writes DataFrame.attrs into the file's metadata (pandas >= 2.1)
        assert attrs["game"] == "cards" and attrs["rules"] == "c3"
        assert attrs["policies"] == "greedy,random,random"


def test_summary_reports_truncated_games_and_unknown_columns_are_refused() -> None:
    """A batch whose games stop at the turn cap says so in its summary (RULES §5.7 Decision),
    counted exactly; asking for a column the card game does not have names the ones it has."""
    runs = genial.simulate(400, "c3:20", game="cards", seed=1, workers=1)
    summary = runs.summary()
    assert summary.truncated == int(runs.truncated.sum()) == 400
    assert "400 truncated at the turn cap (100.0%" in str(summary)
    full = genial.simulate(400, 3, game="cards", seed=1, workers=1).summary()
    assert full.truncated == 0 and "truncated" not in str(full)
    assert full.moves_label == "plays" and "plays per game" in str(full)
    assert full.mean_plays == genial.cards.simulate(400, 3, seed=1).column("plays").sum(1).mean()
    with pytest.raises(genial.GenialError, match=r"no column 'placements'.*plays"):
        runs.column("placements")
    with pytest.raises(genial.GenialError, match="no column"):
        runs.column(3)  # type: ignore[arg-type]


def test_the_card_games_own_default_player_count() -> None:
    """simulate(game='cards') plays the card game's default, three players, and a player count
    that disagrees with rules= is refused rather than dropped; a CardRules names its game, and
    the board game's options are refused by name."""
    assert genial.simulate(10, game="cards", seed=1).rules.players == 3
    assert genial.simulate(10, seed=1).rules.players == 2
    assert genial.cards.simulate(10, seed=1).rules.players == 3
    assert genial.simulate(10, genial.cards.CardRules(4), seed=1).spec.game == "cards"
    with (
        pytest.warns(DeprecationWarning, match="players="),  # (genial 0.2's spelling)
        pytest.raises(genial.GenialError, match="not both"),
    ):
        genial.simulate(10, game="cards", players=2, rules="c4")  # type: ignore[call-overload]
    with pytest.raises(genial.GenialError, match="'openings' is not one of the cards game's"):
        genial.simulate(10, "c3", game="cards", options={"openings": ["R0,-4+R1,-5"]})
    with (
        pytest.warns(DeprecationWarning, match="teams="),
        pytest.raises(genial.GenialError, match="teams: not keywords of the cards game's rules"),
    ):
        genial.simulate(10, "c4", game="cards", teams=True)  # type: ignore[call-overload]
    with pytest.warns(DeprecationWarning, match="players="):
        old = genial.cards.simulate(10, players=2, seed=1)  # type: ignore[call-arg]
    assert old.rules == genial.cards.CardRules(2)
