"""genial's OpenSpiel games (``genial.integrations.openspiel``), uniformly random legal actions
and every chance node sampled from its outcomes, one full game after another: the board game
with 2 players and the card game with 3. Compare ``test_pettingzoo.py`` (the same games behind
the PettingZoo API) and ``test_momaland.py``. Skipped unless open_spiel is installed."""

from __future__ import annotations

import time

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
openspiel = pytest.importorskip("genial.integrations.openspiel")


@pytest.mark.parametrize(("name", "players"), [("genial_board", 2), ("genial_cards", 3)])
def test_openspiel_random_games(benchmark, name: str, players: int) -> None:  # type: ignore[no-untyped-def]
    game = pyspiel.load_game(name, {"players": players})
    rng = np.random.default_rng(1)
    games = 10 if name == "genial_board" else 20

    def play() -> tuple[int, int]:
        decisions = chances = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(int(outcomes[rng.choice(len(outcomes), p=probs)]))
                    chances += 1
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rng.integers(len(legal)))])
                    decisions += 1
        return decisions, chances

    began = time.perf_counter()
    decisions, chances = benchmark.pedantic(play, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else time.perf_counter() - began
    benchmark.extra_info.update(
        players=f"{name} {players}",
        policy="random (OpenSpiel state API)",
        workers=1,
        games=games,
        games_per_s=round(games / seconds, 1),
        decisions_per_s=round(decisions / seconds),
        chance_nodes_per_s=round(chances / seconds),
    )
