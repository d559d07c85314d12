"""The learned evaluation (docs/value.md) and the ``value`` policy.

The features are checked against a pure-Python reading of the public position (below, from
docs/value.md's definitions and the reference board's lines, tests/reference/board.py); the
policy against its contract (legal, complete games in every variant; swap iff a fresh rack
rates better; reads nothing the mover cannot see); the training against synthetic data with
known weights; the weights file against damage; and the shipped weights against greedy play.
"""

from __future__ import annotations

import hashlib
import json
import math
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial import Game, GenialError, Rules, _core, learn, simulate
from genial.arena import arena
from genial.cards import CardGame
from genial.policies import parse_policy

from .docs import run_examples
from .reference.board import DIRECTIONS, Reference, neighbour

VARIANTS = ["2", "3", "4", "1", "2v", "4t", "2T"]


# ------------------------------------------------------------------ the features, by hand


def reference_features(game: Game, seat: int, fresh: bool = False) -> list[float]:
    """docs/value.md's 40 features of ``game`` for ``seat``, from the public position."""
    rules = game.rules
    ref = Reference.from_covered(
        1 if rules.players == 1 else rules.players,
        [(q, r, c) for (q, r), c in game.board.items()],
        teams=rules.teams,
        tournament=rules.tournament,
        tiles=rules.tiles,
    )
    cap, rs = float(rules.cap), float(rules.rack_size)
    scores = game.scores
    team = rules.team_of
    sets = sorted({team(q) for q in range(rules.players)})
    row = {
        k: [int(x) for x in scores[next(q for q in range(rules.players) if team(q) == k)]]
        for k in sets
    }
    mine = team(seat)
    s = row[mine]
    others = [k for k in sets if k != mine]
    # the leader and the runner-up among the other counter sets (RULES §3.7: lowest first)
    ranked = sorted(others, key=lambda k: tuple(sorted(row[k])), reverse=True)
    best = ranked[0] if ranked else None
    second = ranked[1] if len(ranked) > 1 else None
    o = row[best] if best is not None else s
    oc = sorted(range(6), key=lambda c: s[c])
    xc = sorted(range(6), key=lambda c: o[c])
    # the tiles the seat has not seen: the bag and the other racks, as one pool
    pool: list[tuple[int, int]] = [t for t, n in game.bag().items() for _ in range(n)]
    for q in range(rules.players):
        if q != seat:
            pool += game.rack(q)
    share = [sum(c in set(t) for t in pool) / len(pool) if pool else 0.0 for c in range(6)]
    # the best line per colour on the cells where a tile can go
    m = [0] * 6
    for cell in ref.empty_cells():
        if not any(
            ref.in_area(neighbour(cell, d)) and ref.colour_at(neighbour(cell, d)) is None
            for d in DIRECTIONS
        ):
            continue
        line = [0] * 6
        for d in DIRECTIONS:  # only the colour next to the cell can run along d
            nb = neighbour(cell, d)
            c = ref.colour_at(nb) if ref.in_area(nb) else None
            if c is not None:
                line[c] += ref.ray(cell, d, c)
        m = [max(a, b) for a, b in zip(m, line, strict=True)]
    rack = [] if fresh else game.rack(seat)
    left = max(0.0, rs - len(rack))
    r = [left * share[c] + sum(c in set(t) for t in rack) for c in range(6)]
    f = [0.0] * 40
    f[0] = 1.0
    for i in range(6):
        f[1 + i] = s[oc[i]] / cap
        f[7 + i] = o[xc[i]] / cap if best is not None else 0.0
    for i in range(3):
        f[13 + i] = ((cap - s[oc[i]]) / cap) ** 2
        f[16 + i] = ((cap - o[xc[i]]) / cap) ** 2 if best is not None else 0.0
        f[19 + i] = m[oc[i]] / 8
        f[22 + i] = m[xc[i]] / 8 if best is not None else 0.0
        f[25 + i] = r[oc[i]] / rs
    if game.current_player == seat and game.phase == "place":
        f[28] = min(game.bonus_plays, 2)
    area_cells = len(ref.area()) - sum(
        1
        for c in ref.area()
        if c in ref.area() and ref.colour_at(c) is not None and c not in ref.covered
    )
    f[29] = (len(game.board) // 2) / (area_cells / 2)
    f[30] = f[29] * (f[1] - f[7])
    f[31] = min(row[second]) / cap if second is not None else 0.0
    held = max((len(game.rack(q)) for q in range(rules.players) if team(q) == best), default=0)
    for i in range(3):
        f[32 + i] = f[19 + i] * min(1.0, r[oc[i]])
        f[35 + i] = f[22 + i] * (1 - (1 - share[xc[i]]) ** held) if best is not None else 0.0
    f[38] = (f[1] - f[7]) ** 2
    f[39] = f[29] ** 2
    return f


def play_through(rules: str, seed: int, policy: str = "greedy", every: int = 1):
    """The positions of one game, every ``every``-th step (the game itself, copied)."""
    game = Game(rules=Rules.parse(rules), seed=seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game.copy()
        game.play(game.choose(policy))
        step += 1


@pytest.mark.parametrize("rules", VARIANTS)
def test_features_are_the_documented_ones(rules: str) -> None:
    checked = 0
    for seed in (1, 2):
        every = 3 if len(rules) == 1 and int(rules) <= 2 else 7
        for game in play_through(rules, seed, "greedy" if seed == 1 else "random", every):
            for seat in range(game.players):
                for fresh in (False, True):
                    got = game._core.value_features(seat, fresh)
                    want = reference_features(game, seat, fresh)
                    assert got.shape == (_core.N_FEATURES,)
                    np.testing.assert_allclose(
                        got,
                        want,
                        rtol=1e-12,
                        atol=1e-12,
                        err_msg=f"{rules} seat {seat} fresh {fresh}",
                    )
                    checked += 1
    assert checked > 40


def test_features_see_nothing_hidden() -> None:
    """Two positions that differ only in how the unseen tiles are split between the bag and
    the other racks have the same features for the seat (the information rule)."""
    game = next(g for i, g in enumerate(play_through("3", 5)) if i == 20)
    other = game.copy()
    other._core.redeal(0, np.random.PCG64(9))
    assert other.rack(1) != game.rack(1) or other.rack(2) != game.rack(2)
    assert other.rack(0) == game.rack(0)
    np.testing.assert_array_equal(game._core.value_features(0), other._core.value_features(0))
    assert game.evaluate(0) == other.evaluate(0)


def test_evaluation_is_a_probability_and_exact_at_the_end() -> None:
    for rules in VARIANTS:
        game = Game(rules=Rules.parse(rules), seed=3)
        while not game.is_over:
            for seat in range(game.players):
                assert 0.0 < game.evaluate(seat) < 1.0
            game.play(game.choose("greedy"))
        ranks = game.ranks()
        for seat in range(game.players):
            if game.players == 1:
                assert game.evaluate(seat) == game.scores[0].min() / game.rules.cap
            else:
                firsts = sum(
                    1
                    for k in set(game.rules.team_of(q) for q in range(game.players))
                    if ranks[next(q for q in range(game.players) if game.rules.team_of(q) == k)]
                    == 0
                )
                assert game.evaluate(seat) == (1.0 / firsts if ranks[seat] == 0 else 0.0)
    with pytest.raises(GenialError, match="seat"):
        Game(2, seed=1).evaluate(2)


# ------------------------------------------------------------------ the policy


@pytest.mark.parametrize("rules", VARIANTS)
def test_value_games_are_legal_and_complete(rules: str) -> None:
    for seed in range(3):
        game = Game(rules=Rules.parse(rules), seed=seed)
        while not game.is_over:
            move = game.choose("value")
            assert game.is_legal(move)
            game.play(move)
        assert game.is_over
    result = simulate(40, Rules.parse(rules), policy="value:k3", seed=1)
    again = simulate(40, Rules.parse(rules), policy="value:k3", seed=1, workers=2)
    assert np.array_equal(result.scores, again.scores)


def test_the_swap_decision_compares_keep_and_a_fresh_rack() -> None:
    seen = {"swap": 0, "keep": 0}
    for seed in range(400):
        game = Game(2, seed=seed)
        while not game.is_over and game.phase != "swap":
            game.play(game.choose("greedy"))
        if game.is_over:
            continue
        seat = game.current_player
        keep = game._core.value(seat, False)
        fresh = game._core.value(seat, True)
        move = game.choose("value")
        assert move.kind == ("swap" if fresh > keep else "keep")
        seen[move.kind] += 1
        if min(seen.values()) >= 3:
            break
    assert min(seen.values()) >= 3, seen


def short_bag(seed: int, keep: int = 16) -> Game:
    """A new two-player game whose bag keeps only ``keep`` random tiles, so that it runs out."""
    fields = Game(2, seed=seed).to_text().split()
    rng = np.random.default_rng(seed)
    tiles = [t for t, n in enumerate(fields[4]) for _ in range(int(n))]
    kept = np.bincount(rng.choice(tiles, size=keep, replace=False), minlength=21)
    fields[4] = "".join(str(n) for n in kept)
    return Game.from_text(" ".join(fields), seed=seed)


def test_value_plays_the_placement_it_rates_best() -> None:
    """With the bag empty a placement draws nothing, so the position after playing it is the
    one the policy rated: ``value`` with every legal placement a candidate plays one whose
    position rates best for the mover, and that is never worse than greedy's choice."""
    checked = 0
    for seed in range(40):
        game = short_bag(seed)
        while not game.is_over and (game.bag_size > 0 or game.phase != "place"):
            game.play(game.choose("greedy"))
        if game.is_over:
            continue
        seat = game.current_player
        rated = {}
        for move in game.legal_moves():
            after = game.copy()
            after.play(move)
            rated[move] = after.evaluate(seat)
        chosen = game.choose(f"value:k{_core.MAX_TOP_K}")  # every placement a candidate
        assert rated[chosen] == max(rated.values())
        greedy = game.choose("greedy")
        assert rated[chosen] >= rated[greedy]
        checked += 1
    assert checked >= 20


def test_value_beats_greedy() -> None:
    """The issue's bar, seeded (the same games every run): over 1,000 two-player games with
    the seats alternated, the 95% lower bound of value's score against greedy is above 0.55."""
    table = arena(["value", "greedy"], games=500, seed=20)
    assert table.games == 1000
    assert table.score_lo[0, 1] > 0.55, (table.score[0, 1], table.score_lo[0, 1])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("value:k0", "k must be from 1"),
        ("value:5", "value takes"),
        ("value:k3:k4", "value takes"),
        ("value:greedy", "value takes"),
    ],
)
def test_bad_value_names(name: str, message: str) -> None:
    with pytest.raises(GenialError, match=message):
        parse_policy(name)


def test_value_names() -> None:
    assert parse_policy("value")[0] == "value"
    assert parse_policy("value:k10")[0] == "value"
    assert parse_policy("value:k20")[0] == "value:k20"
    game = CardGame(2, seed=1)
    with pytest.raises(GenialError, match="board game's policies"):
        game.choose("value")


# ------------------------------------------------------------------ training


def test_fit_recovers_known_weights() -> None:
    rng = np.random.default_rng(4)
    x = np.column_stack([np.ones(40_000), rng.normal(size=(40_000, 3))])
    true = np.array([-0.5, 1.5, -2.0, 0.25])
    y = (rng.random(40_000) < learn.predict(true, x)).astype(np.float64)
    w = learn.fit(x, y, l2=0.0)
    assert np.max(np.abs(w - true)) < 0.08, w
    assert learn.log_loss(w, x, y) <= learn.log_loss(true, x, y) + 1e-9
    est, obs, count = learn.calibration(w, x, y)
    full = count > 500
    assert np.all(np.abs(est[full] - obs[full]) < 0.05)
    with pytest.raises(GenialError, match="features"):
        learn.fit(np.ones((3, 2)), np.ones(2))


def test_samples_are_reproducible_and_labelled() -> None:
    a = learn.samples(Rules(3), 12, seed=7)
    b = learn.samples(Rules(3), 12, seed=7)
    assert np.array_equal(a.features, b.features) and np.array_equal(a.targets, b.targets)
    assert a.games == 12 and a.features.shape[1] == _core.N_FEATURES
    assert set(np.unique(a.seats)) <= {0, 1, 2}
    assert set(np.unique(a.targets)) <= {0.0, 0.5, 1.0 / 3.0, 1.0} | {np.float32(1 / 3)}
    # every game's rows: 3 players, one winner share summed over the game's last seats
    assert 0.2 < a.targets.mean() < 0.5
    with pytest.raises(GenialError, match="games"):
        learn.samples(Rules(2), 0)


def test_train_writes_a_file_the_kernel_reads(tmp_path) -> None:
    model = learn.train(30, holdout=10, seed=3, models=(2,))
    assert model.metrics[2]["log_loss"] < model.metrics[2]["log_loss_constant"]
    path = tmp_path / "w.json"
    full = learn.Model(
        {n: model.weights.get(n, [0.0] * _core.N_FEATURES) for n in (1, 2, 3, 4)},
        model.metrics,
        model.provenance,
    )
    learn.write_weights(full, path)
    rows = _core._parse_value_weights(path.read_text())
    assert np.allclose(rows[1], model.weights[2])


# ------------------------------------------------------------------ the weights file


def shipped() -> str:
    return resources.files("genial").joinpath("value_weights.json").read_text("utf-8")


def test_the_shipped_weights_are_valid_and_beat_the_constant() -> None:
    data = json.loads(shipped())
    rows = _core._parse_value_weights(shipped())
    assert len(rows) == 4 and all(len(r) == _core.N_FEATURES for r in rows)
    Game(2, seed=1).choose("value")  # (the kernel reads its weights when first needed)
    assert _core.value_error is None
    for n in ("1", "2", "3", "4"):
        metric = data["metrics"][n]
        assert metric["log_loss"] < metric["log_loss_constant"]
    assert data["provenance"]["command"].startswith("genial learn")


def test_the_shipped_model_and_its_calibration_figure(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    model = learn.Model.shipped()
    assert [len(model.weights[n]) for n in (1, 2, 3, 4)] == [_core.N_FEATURES] * 4
    figure = model.plot_calibration(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 1000
    assert len(figure.axes[0].lines) == 5  # the diagonal and four models


def test_the_docs_examples_run() -> None:
    """The Python blocks of docs/value.md run as written."""
    result = run_examples("value.md")
    assert result.attempted >= 5 and result.failed == 0


def damaged(edit) -> str:
    data = json.loads(shipped())
    edit(data)
    return json.dumps(data)


def rehash(data: dict) -> None:
    body = json.dumps(data["models"], sort_keys=True, separators=(",", ":"))
    data["sha256"] = hashlib.sha256(body.encode()).hexdigest()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["models"]["2"].__setitem__(3, 1.0), "checksum"),
        (lambda d: (d["models"]["2"].__setitem__(3, True), rehash(d)), "finite numbers"),
        (lambda d: (d["models"]["3"].pop(), rehash(d)), "finite numbers"),
        (lambda d: (d["models"].pop("4"), rehash(d)), "one list of weights"),
        (lambda d: d.__setitem__("format", "genial-value-0"), "genial-value-1"),
        (lambda d: d.__setitem__("features", 39), "39"),
        (lambda d: (d["models"]["1"].__setitem__(0, "1"), rehash(d)), "finite numbers"),
    ],
)
def test_damaged_weights_are_refused(edit, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _core._parse_value_weights(damaged(edit))


def test_non_finite_weights_are_refused() -> None:
    text = shipped().replace('"2": [', '"2": [NaN, ', 1)
    data = json.loads(text)
    data["models"]["2"].pop()
    rehash(data)
    with pytest.raises(ValueError, match="finite numbers"):
        _core._parse_value_weights(json.dumps(data))
    with pytest.raises(ValueError, match="not JSON"):
        _core._parse_value_weights(shipped()[:-40])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_or_is_refused(text: str) -> None:
    try:
        rows = _core._parse_value_weights(text)
    except ValueError:
        return
    assert all(len(r) == _core.N_FEATURES and all(math.isfinite(x) for x in r) for r in rows)
